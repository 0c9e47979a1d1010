// task: Remind on Slack everyone who accepted the release planning that it is tomorrow.
// expect: error
// mistake: misspelt-property
const { events } = await tools.calendar__list_events({ from: "2025-06-11T00:00:00Z", to: "2025-06-12T00:00:00Z", query: "planning" });
await tools.slack__post_message({ channel: "#eng", text: "Release planning v2.4 is tomorrow 13:00 UTC" });
const accepted = events[0].attendees.filter((a) => a.status === "accepted"); // <- error
return accepted.map((a) => a.email);
