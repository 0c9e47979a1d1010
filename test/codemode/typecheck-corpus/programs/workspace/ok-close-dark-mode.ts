// task: Lee says the dark mode preview is up. Close acme/web#102 with a comment pointing at that message, and react to it.
// expect: ok
// returns: {"closed":"closed","reactions":["tada"]}
const found = await tools.slack__search_messages({ query: "dark mode preview", limit: 1 });
const message = found.matches[0];
if (!message) throw new Error("no preview announcement found");

await tools.github__add_comment({
  repo: "acme/web",
  number: 102,
  body: `Preview is on staging (announced in Slack at ${new Date(Number(message.ts) * 1000).toISOString()}).`,
});
const closed = await tools.github__close_issue({ repo: "acme/web", number: 102, reason: "completed" });
const reacted = await tools.slack__add_reaction({ channel: message.channel, ts: message.ts, name: "tada" });
return { closed: closed.state, reactions: reacted.reactions };
