// task: How many open issues does acme/api have?
// expect: error
// mistake: unknown-tool
const issues = await tools.github__list_issues({ repo: "acme/api", state: "open" }); // <- error
issues.length;
