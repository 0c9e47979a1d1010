// task: Close the open docs issues in acme/api, leaving a comment on each first.
// expect: error
// mistake: wrong-argument-type
const docs = await tools.github__search_issues({ repo: "acme/api", labels: ["docs"] });
for (const issue of docs.items) {
  await tools.github__add_comment({ repo: "acme/api", number: issue.number, body: "Closing: covered by the new docs site." });
  await tools.github__close_issue({ repo: "acme/api", number: issue, reason: "completed" }); // <- error
}
