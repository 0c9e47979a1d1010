// task: Give me a little table of orders A101 to A106: id, item, amount and status.
// expect: ok
// returns: "6 orders, 267.00 in total"
const ids = ["A101", "A102", "A103", "A104", "A105", "A106"];
const orders = await Promise.all(ids.map((order_id) => tools.get_order({ order_id })));

const rows = orders.map(
  (o) => `${o.id.padEnd(6)}${o.item.padEnd(10)}${o.amount.toFixed(2).padStart(8)}  ${o.status.toUpperCase()}`,
);
const total = orders.reduce((sum, o) => sum + o.amount, 0);
console.log(rows.join("\n"));

`${rows.length} orders, ${total.toFixed(2)} in total`;
