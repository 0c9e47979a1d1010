// task: Read the last standup notes and post any blocker to #eng.
// expect: ok
// returns: {"posted":"1749300006.000100","blockers":["staging database is full"]}
const notes = await tools.files__read_file({ path: "/notes/standup.md" });
const blockers = notes.content
  .split("\n")
  .filter((line) => line.includes("BLOCKER"))
  .map((line) => line.replace(/^-\s*BLOCKER:\s*/, "").trim());

if (blockers.length === 0) return "no blockers";

const posted = await tools.slack__post_message({
  channel: "#eng",
  text: `Blockers from standup:\n${blockers.map((b) => `• ${b}`).join("\n")}`,
});
return { posted: posted.ts, blockers };
