// task: Where is the avatar crash mentioned, in acme/web's issues and in our notes?
// expect: ok
// returns: ["issue #103: Crash when uploading a large avatar","/notes/standup.md:3"]
type Finding =
  | { kind: "issue"; number: number; title: string }
  | { kind: "note"; path: string; line: number };

const [issues, notes] = await Promise.all([
  tools.github__search_issues({ repo: "acme/web", query: "avatar", state: "all" }),
  tools.files__search({ query: "avatar", path: "/notes" }),
]);

const findings: Finding[] = [
  ...issues.items.map((i): Finding => ({ kind: "issue", number: i.number, title: i.title })),
  ...notes.matches.map((m) => ({ kind: "note" as const, path: m.path, line: m.line })),
];

const describe = (f: Finding): string => {
  switch (f.kind) {
    case "issue":
      return `issue #${f.number}: ${f.title}`;
    case "note":
      return `${f.path}:${f.line}`;
  }
};
findings.map(describe);
