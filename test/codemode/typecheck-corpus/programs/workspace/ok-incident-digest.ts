// task: Summarise the failed deploys mentioned in #incidents and post the summary there, naming who reported them.
// expect: ok
// returns: {"failed":1,"posted":"C03"}
const result = await tools.slack__search_messages({ query: "deploy", channel: "#incidents" });
const failed = result.matches.filter((m: { text: string }) => m.text.includes("failed"));

const userIds = [...new Set<string>(failed.map((m: { user: string }) => m.user))];
const users = await Promise.all(userIds.map((user_id) => tools.slack__get_user({ user_id })));
const names = users.map((u) => (u.is_bot ? `${u.real_name} (bot)` : u.real_name));

const text = `${failed.length} failed deploy(s) reported by ${names.join(", ")}:\n` +
  failed.map((m: { text: string }) => `> ${m.text}`).join("\n");
const posted = await tools.slack__post_message({ channel: "#incidents", text });
return { failed: failed.length, posted: posted.channel };
