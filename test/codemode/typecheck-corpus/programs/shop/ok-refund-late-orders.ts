// task: Dana Smith (dana@example.com) says her late orders never arrived. Refund them all and tell me what was refunded.
// expect: ok
// returns: {"customer":"Dana Smith","refunded":["A103","A115"],"total":92}
const [customer] = await tools.find_customers({ query: "dana@example.com" });
const late = await tools.list_orders({ customer_id: customer.id, status: "late" });
console.log(`${customer.name} has ${late.length} late orders: ${late.map((o) => o.id).join(", ")}`);

const refunded = [];
for (const order of late) {
  try {
    refunded.push(await tools.refund_order({ order_id: order.id, reason: "late delivery" }));
  } catch (error) {
    console.warn(`${order.id} (${order.amount}) was not refunded: ${error.kind}: ${error.message}`);
  }
}

({
  customer: customer.name,
  refunded: refunded.map((r) => r.order_id),
  total: refunded.reduce((sum, r) => sum + r.amount, 0),
});
