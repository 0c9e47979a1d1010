// task: Refund all of Grace's late orders and tell me the total refunded.
// expect: error
// mistake: misspelt-property
const late = await tools.list_orders({ customer_id: "c-2", status: "late" });
let total = 0;
for (const order of late) {
  const refund = await tools.refund_order({ order_id: order.id, reason: "late delivery" });
  total += refund.amout; // <- error
}
return { refunded: late.length, total };
