// task: Comment on acme/api#203 that we need a profile, and label it needs-info.
// expect: error
// mistake: wrong-argument-type
await tools.github__add_comment({
  repo: "acme/api",
  number: 203,
  body: "Can someone attach a profile from prod?",
});
await tools.github__add_labels({ repo: "acme/api", number: 203, labels: "needs-info" }); // <- error
