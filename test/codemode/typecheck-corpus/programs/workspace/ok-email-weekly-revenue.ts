// task: Email maria@acme.dev and tom@acme.dev the revenue of the first June week, with the May weekly average.
// expect: ok
// returns: {"id":"msg-1","juneWeek":42630,"change":55.3}
const [may, june] = await Promise.all([
  tools.files__read_file({ path: "/reports/2025-05.csv" }),
  tools.files__read_file({ path: "/reports/2025-06.csv" }),
]);

const total = (csv: string) =>
  csv
    .trim()
    .split("\n")
    .slice(1)
    .reduce((sum, line) => sum + Number(line.split(",")[2]), 0);

const mayWeekly = total(may.content) / 4;
const juneWeek = total(june.content);
const change = ((juneWeek - mayWeekly) / mayWeekly) * 100;

const sent = await tools.mail__send_email({
  to: ["maria@acme.dev", "tom@acme.dev"],
  subject: `Revenue, week of 2 June: ${juneWeek.toLocaleString("en-US")}`,
  body: `Week of 2 June: ${juneWeek}\nMay weekly average: ${mayWeekly.toFixed(0)}\nChange: ${change.toFixed(1)}%`,
  priority: "normal",
});
return { id: sent.id, juneWeek, change: Math.round(change * 10) / 10 };
