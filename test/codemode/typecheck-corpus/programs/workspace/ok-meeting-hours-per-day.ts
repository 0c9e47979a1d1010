// task: How many hours of meetings do I have each day this week?
// expect: ok
// returns: {"perDay":{"2025-06-09":1.25,"2025-06-10":0.5,"2025-06-11":1.5,"2025-06-12":0.75},"busiest":"2025-06-11"}
const { events } = await tools.calendar__list_events({
  from: "2025-06-09T00:00:00Z",
  to: "2025-06-14T00:00:00Z",
});

const hours = new Map<string, number>();
for (const e of events) {
  const day = new Date(e.start).toISOString().slice(0, 10);
  const length = (Date.parse(e.end) - Date.parse(e.start)) / 3_600_000;
  hours.set(day, (hours.get(day) ?? 0) + length);
}

const busiest = [...hours].reduce((a, b) => (b[1] > a[1] ? b : a));
({ perDay: Object.fromEntries(hours), busiest: busiest[0] });
