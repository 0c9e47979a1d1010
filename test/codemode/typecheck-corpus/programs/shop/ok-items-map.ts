// task: Which items does Ada order most? Count her orders per item.
// expect: ok
// returns: {"kettle":3,"scale":3}
const orders = await tools.list_orders({ customer_id: "c-1" });
const counts = new Map<string, number>();
for (const { item } of orders) counts.set(item, (counts.get(item) ?? 0) + 1);

const sorted = [...counts.entries()].sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
Object.fromEntries(sorted);
