// task: Find an hour on Tuesday 10 June when Maria and Sam are both free and book a "v2.4 upload fix" sync.
// expect: ok
// returns: {"booked":"ev-7","at":"2025-06-10T09:00:00.000Z"}
const attendees = ["maria@acme.dev", "sam@acme.dev"];
const free = await tools.calendar__find_free_slots({
  attendees,
  duration_minutes: 60,
  from: "2025-06-10T00:00:00Z",
  to: "2025-06-11T00:00:00Z",
});

const slot = free.slots[0];
if (!slot) return "no common free hour on Tuesday";

const event = await tools.calendar__create_event({
  title: "v2.4 upload fix",
  start: slot.start,
  end: slot.end,
  attendees,
  reminder: { minutes_before: 10, method: "popup" },
});
return { booked: event.id, at: event.start };
