// task: List every open p1 bug in acme/web and acme/api, with who is on it.
// expect: ok
// returns: ["acme/web#103 Crash when uploading a large avatar (maria)","acme/api#201 Rate limiter returns 500 instead of 429 (tom)"]
const repos = ["acme/web", "acme/api"];
const results = await Promise.all(
  repos.map((repo) => tools.github__search_issues({ repo, labels: ["bug", "p1"], state: "open" })),
);

const bugs = results.flatMap((result, i) =>
  result.items.map((issue) => `${repos[i]}#${issue.number} ${issue.title} (${issue.assignee ?? "unassigned"})`),
);
return bugs;
