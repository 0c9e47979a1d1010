// task: Refund Dana's late orders and give me the total with two decimals.
// expect: error
// mistake: wrong-assignment
const late = await tools.list_orders({ customer_id: "c-3", status: "late" });
let total: number = 0;
for (const order of late) {
  const refund = await tools.refund_order({ order_id: order.id, reason: "late delivery" });
  total = (total + refund.amount).toFixed(2); // <- error
}
total;
