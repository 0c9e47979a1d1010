// task: Label the open acme/api issues that have had no comments as needs-triage, and tell me which.
// expect: ok
// returns: [{"number":202,"labels":["docs","needs-triage"]}]
const search = await tools.github__search_issues({ repo: "acme/api", state: "open", limit: 50 });
const quiet = search.items.filter((i) => i.comments === 0);

const labelled = [];
for (const issue of quiet) {
  const after = await tools.github__add_labels({ repo: "acme/api", number: issue.number, labels: ["needs-triage"] });
  labelled.push({ number: issue.number, labels: after.labels });
}
return labelled;
