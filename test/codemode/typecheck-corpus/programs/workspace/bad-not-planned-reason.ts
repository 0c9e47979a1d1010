// task: Tell #eng we are dropping the login button issue, then close acme/web#101 as won't fix.
// expect: error
// mistake: wrong-enum
await tools.slack__post_message({ channel: "#eng", text: "Closing acme/web#101: the mobile redesign replaces that button." });
await tools.github__close_issue({ repo: "acme/web", number: 101, reason: "wont_fix" }); // <- error
