// task: Refund A103, then tell me the total value of orders A101, A102 and A104.
// expect: error
// mistake: missing-await
await tools.refund_order({ order_id: "A103", reason: "late delivery" });
const orders = ["A101", "A102", "A104"].map((order_id) => tools.get_order({ order_id }));
const total = orders.reduce((sum, o) => sum + o.amount, 0); // <- error
total;
