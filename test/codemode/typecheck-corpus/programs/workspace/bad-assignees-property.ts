// task: For the open bugs in acme/web, comment on those without anyone assigned.
// expect: error
// mistake: misspelt-property
const { items } = await tools.github__search_issues({ repo: "acme/web", labels: ["bug"] });
for (const issue of items) {
  if (issue.number === 105) {
    await tools.github__add_comment({ repo: "acme/web", number: 105, body: "Is this still happening on 2.3.1?" });
  }
  if (issue.assignees.length === 0) { // <- error
    await tools.github__add_comment({ repo: "acme/web", number: issue.number, body: "Needs an owner." });
  }
}
