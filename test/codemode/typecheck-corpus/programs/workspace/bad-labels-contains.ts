// task: Label acme/web#101 as p2, then tell me whether it is also marked as a ui issue.
// expect: error
// mistake: unknown-method
await tools.github__add_labels({ repo: "acme/web", number: 101, labels: ["p2"] });
const issue = await tools.github__get_issue({ repo: "acme/web", number: 101 });
issue.labels.contains("ui"); // <- error
