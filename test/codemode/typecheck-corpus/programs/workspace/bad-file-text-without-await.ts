// task: Post the current TODO list to #eng.
// expect: error
// mistake: missing-await
const todo = tools.files__read_file({ path: "/notes/todo.md" });
await tools.slack__post_message({ channel: "#eng", text: todo.content }); // <- error
