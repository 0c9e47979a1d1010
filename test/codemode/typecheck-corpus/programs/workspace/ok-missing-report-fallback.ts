// task: Read the July report; if it does not exist yet, tell me which reports there are.
// expect: ok
// returns: "No July report yet. Available: 2025-05.csv, 2025-06.csv"
let summary: string;
try {
  const july = await tools.files__read_file({ path: "/reports/2025-07.csv" });
  summary = `July: ${july.content.split("\n").length - 1} rows`;
} catch (e: any) {
  console.warn(`${e.tool} failed (${e.kind}): ${e.message}`);
  const listing = await tools.files__list_directory({ path: "/reports" });
  const names: string[] = listing.entries.map((entry: any) => entry.name);
  summary = `No July report yet. Available: ${names.join(", ")}`;
}
summary;
