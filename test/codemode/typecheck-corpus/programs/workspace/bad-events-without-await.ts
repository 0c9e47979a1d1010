// task: Post to #eng that planning is on Wednesday, then list who has not answered its invitation.
// expect: error
// mistake: missing-await
await tools.slack__post_message({ channel: "#eng", text: "Release planning v2.4 is on Wednesday at 13:00 UTC" });
const week = tools.calendar__list_events({ from: "2025-06-09T00:00:00Z", to: "2025-06-14T00:00:00Z", query: "planning" });
const pending = week.events.flatMap((e) => e.attendees.filter((a) => a.response === "needs_action")); // <- error
return pending.map((a) => a.email);
