// task: Back up /config/app.json to /config/app.backup.json, then tell me which features are on.
// expect: error
// mistake: misspelt-property
const file = await tools.files__read_file({ path: "/config/app.json" });
await tools.files__write_file({ path: "/config/app.backup.json", content: file.content, mode: "create" });
const config = JSON.parse(file.contents); // <- error
return Object.entries(config.features).filter(([, on]) => on).map(([name]) => name);
