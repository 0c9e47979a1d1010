// task: List the active Slack channels with their topics and sizes.
// expect: ok
// returns: ["#general     120  (no topic)","#random      110  (no topic)","#eng          34  Engineering","#incidents    18  Page on-call: @tom"]
const channels = await tools.slack__list_channels();
channels
  .filter((c) => !c.archived)
  .sort((a, b) => b.members - a.members)
  .map((c) => `#${c.name.padEnd(10)} ${String(c.members).padStart(4)}  ${c.topic ?? "(no topic)"}`);
