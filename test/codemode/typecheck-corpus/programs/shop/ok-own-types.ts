// task: For every customer, how many orders are still open (shipped or late) and what are they worth?
// expect: ok
// returns: [{"customer":"Ada Lovelace","open":2,"value":108},{"customer":"Grace Hopper","open":4,"value":166},{"customer":"Dana Smith","open":2,"value":92},{"customer":"Alan Turing","open":4,"value":128}]
type Order = Awaited<ReturnType<typeof tools.list_orders>>[number];

interface OpenSummary {
  customer: string;
  open: number;
  value: number;
}

function isOpen(order: Order): boolean {
  return order.status === "shipped" || order.status === "late";
}

const customers = await tools.find_customers({ query: "example" });
const summaries: OpenSummary[] = [];
for (const c of customers) {
  const open = (await tools.list_orders({ customer_id: c.id })).filter(isOpen);
  summaries.push({ customer: c.name, open: open.length, value: open.reduce((s, o) => s + o.amount, 0) });
}
summaries;
