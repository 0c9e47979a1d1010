// task: Tell #eng about the dry run and book it on 12 June 10:00-11:00 UTC for Maria and Tom with a reminder.
// expect: error
// mistake: wrong-enum
await tools.slack__post_message({ channel: "#eng", text: "Release dry run Thursday 10:00 UTC" });
const event = await tools.calendar__create_event({
  title: "Release dry run",
  start: "2025-06-12T10:00:00Z",
  end: "2025-06-12T11:00:00Z",
  attendees: ["maria@acme.dev", "tom@acme.dev"],
  reminder: { minutes_before: 15, method: "push" }, // <- error
});
event.id;
