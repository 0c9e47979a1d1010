// task: Open an issue in acme/web for the staging database being full and announce it in #eng.
// expect: error
// mistake: unknown-tool
const created = await tools.github__create_issue({
  repo: "acme/web",
  title: "Staging database is full",
  labels: ["ops"],
});
await tools.slack__send_message({ channel: "#eng", text: `Opened ${created.url}` }); // <- error
