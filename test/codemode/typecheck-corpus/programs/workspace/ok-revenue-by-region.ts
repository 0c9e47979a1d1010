// task: From the May report, what was the revenue per region, and which region had the most orders?
// expect: ok
// returns: {"revenue":{"emea":37400,"amer":58825,"apac":13550},"busiest":"amer"}
const file = await tools.files__read_file({ path: "/reports/2025-05.csv" });
const [header, ...lines] = file.content.trim().split("\n");
const columns = header.split(",");

const revenue: Record<string, number> = {};
const orders: Record<string, number> = {};
for (const line of lines) {
  const cells = line.split(",");
  const row = Object.fromEntries(columns.map((c, i) => [c, cells[i]]));
  revenue[row.region] = (revenue[row.region] ?? 0) + Number(row.revenue);
  orders[row.region] = (orders[row.region] ?? 0) + parseInt(row.orders, 10);
}

const busiest = Object.entries(orders).sort((a, b) => b[1] - a[1])[0][0];
return { revenue, busiest };
