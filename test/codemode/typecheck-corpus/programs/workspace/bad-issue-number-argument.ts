// task: Tell #eng that the avatar crash fix is in review, and note it on acme/web#103.
// expect: error
// mistake: wrong-argument-name
await tools.slack__post_message({ channel: "#eng", text: "Avatar crash fix (PR #110) is in review." });
await tools.github__add_comment({
  repo: "acme/web",
  issue_number: 103, // <- error
  body: "Fix is in review: #110",
});
