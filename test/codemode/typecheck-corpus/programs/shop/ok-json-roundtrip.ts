// task: Summarise Alan Turing's orders by status and give me the summary as a JSON string and parsed back.
// expect: ok
// returns: {"text":"{\"customer\":\"Alan Turing\",\"byStatus\":{\"delivered\":2,\"shipped\":2,\"late\":2}}","statuses":["delivered","late","shipped"]}
const [alan] = await tools.find_customers({ query: "turing" });
const orders = await tools.list_orders({ customer_id: alan.id });

const byStatus: Record<string, number> = {};
for (const o of orders) byStatus[o.status] = (byStatus[o.status] ?? 0) + 1;

const text = JSON.stringify({ customer: alan.name, byStatus });
const parsed = JSON.parse(text) as { customer: string; byStatus: Record<string, number> };
console.log(text);
return { text, statuses: Object.keys(parsed.byStatus).sort() };
