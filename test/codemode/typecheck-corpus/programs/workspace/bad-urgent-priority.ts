// task: Write the incident note to /notes/incident.md and email it to tom@acme.dev as urgent.
// expect: error
// mistake: wrong-enum
const note = "# Incident 2025-06-06\n\nStaging database full; deploys of web failed.\n";
await tools.files__write_file({ path: "/notes/incident.md", content: note, mode: "create" });
await tools.mail__send_email({
  to: ["tom@acme.dev"],
  subject: "Incident note",
  body: note,
  priority: "urgent", // <- error
});
