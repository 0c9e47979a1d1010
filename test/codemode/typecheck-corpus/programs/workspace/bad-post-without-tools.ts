// task: Comment on acme/api#201 that the fix is in PR #210, and tell #eng.
// expect: error
// mistake: missing-tools-prefix
await tools.github__add_comment({ repo: "acme/api", number: 201, body: "Fixed in #210." });
await slack__post_message({ channel: "#eng", text: "api#201 is fixed in #210" }); // <- error
