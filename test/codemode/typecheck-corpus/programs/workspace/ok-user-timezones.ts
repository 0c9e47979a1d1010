// task: What time zones are U1 to U5 and U7 in? Skip anyone that does not exist.
// expect: ok
// returns: {"zones":{"maria":"Europe/Madrid","tom":"Europe/Berlin","sam":"America/New_York","lee":"Asia/Singapore","kim":"Asia/Seoul"},"unknown":["U7"]}
const ids = ["U1", "U2", "U3", "U4", "U5", "U7"];
const settled = await Promise.allSettled(ids.map((user_id) => tools.slack__get_user({ user_id })));

const zones: Record<string, string> = {};
const unknown: string[] = [];
settled.forEach((outcome, i) => {
  if (outcome.status === "fulfilled") zones[outcome.value.name] = outcome.value.tz;
  else unknown.push(ids[i]);
});
return { zones, unknown };
