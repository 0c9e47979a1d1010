// task: Append today's date to /notes/todo.md and show me the file afterwards.
// expect: error
// mistake: wrong-argument-count
await tools.files__write_file({
  path: "/notes/todo.md",
  content: "\n(checked 2025-06-09)\n",
  mode: "append",
});
const file = await tools.files__read_file("/notes/todo.md", { encoding: "utf8" }); // <- error
file.content;
