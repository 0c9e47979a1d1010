// task: Book "Globex follow-up" on 13 June 11:00-11:30 UTC with sam@acme.dev and tell #eng.
// expect: error
// mistake: wrong-argument-type
await tools.slack__post_message({ channel: "#eng", text: "Booking a Globex follow-up for Friday" });
const event = await tools.calendar__create_event({
  title: "Globex follow-up",
  start: "2025-06-13T11:00:00Z",
  end: "2025-06-13T11:30:00Z",
  attendees: "sam@acme.dev", // <- error
});
event.id;
