// task: Turn the open item about the deploy key in /notes/todo.md into an issue in acme/api, labelled chore.
// expect: ok
// returns: {"number":205,"url":"https://github.com/acme/api/issues/205","stillOpen":3}
const todo = await tools.files__read_file({ path: "/notes/todo.md" });
const open = [...todo.content.matchAll(/^- \[ \] (.+)$/gm)].map((m) => m[1]);
const item = open.find((text) => /deploy key/i.test(text));
if (item === undefined) return "no such item";

const created = await tools.github__create_issue({
  repo: "acme/api",
  title: item.charAt(0).toUpperCase() + item.slice(1),
  body: "From /notes/todo.md",
  labels: ["chore"],
});
return { number: created.number, url: created.url, stillOpen: open.length };
