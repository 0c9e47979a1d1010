// task: Tell #eng we are triaging, then list acme/web's opened issues with their labels.
// expect: error
// mistake: wrong-enum
await tools.slack__post_message({ channel: "#eng", text: "Triaging acme/web now" });
const result = await tools.github__search_issues({ repo: "acme/web", state: "opened" }); // <- error
result.items.map((i) => `#${i.number} [${i.labels.join(", ")}] ${i.title}`);
