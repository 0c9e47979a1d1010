// task: Create an issue for the export timeout follow-up in acme/api and announce it in #eng.
// expect: error
// mistake: wrong-argument-name
const created = await tools.github__create_issue({
  repo: "acme/api",
  title: "Profile /export for Globex",
  assignee: "sam",
});
await tools.slack__post_message({ channel_id: "C02", text: `New: ${created.url}` }); // <- error
