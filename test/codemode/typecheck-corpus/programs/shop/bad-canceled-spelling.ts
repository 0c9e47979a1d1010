// task: Refund every order of Ada's that is not cancelled (she is closing her account).
// expect: error
// mistake: wrong-enum
const orders = await tools.list_orders({ customer_id: "c-1" });
const refunded: string[] = [];
for (const order of orders) {
  if (order.status === "canceled") continue; // <- error
  const refund = await tools.refund_order({ order_id: order.id, reason: "account closed" });
  refunded.push(refund.order_id);
}
return refunded;
