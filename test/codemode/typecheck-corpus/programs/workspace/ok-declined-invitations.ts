// task: Who declined meetings this week (9-13 June), and which ones?
// expect: ok
// returns: {"maria@acme.dev":["Design review"],"sam@acme.dev":["Release planning v2.4"]}
const { events } = await tools.calendar__list_events({
  from: "2025-06-09T00:00:00Z",
  to: "2025-06-14T00:00:00Z",
});

const declined: Record<string, string[]> = {};
for (const event of events) {
  for (const { email, response } of event.attendees) {
    if (response !== "declined") continue;
    (declined[email] ??= []).push(event.title);
  }
}
declined;
