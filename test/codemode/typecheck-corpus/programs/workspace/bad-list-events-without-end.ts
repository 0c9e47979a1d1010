// task: Book a "Release dry run" on 12 June 10:00-11:00 UTC, then show me everything else that day.
// expect: error
// mistake: missing-argument
const created = await tools.calendar__create_event({
  title: "Release dry run",
  start: "2025-06-12T10:00:00Z",
  end: "2025-06-12T11:00:00Z",
});
const day = await tools.calendar__list_events({ from: "2025-06-12T00:00:00Z" }); // <- error
return { created: created.id, others: day.events.map((e) => e.title) };
