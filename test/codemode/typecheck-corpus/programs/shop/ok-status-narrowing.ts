// task: For Grace Hopper, tell me what to do with each of her orders: refund the late ones, just report the rest.
// expect: ok
// returns: ["A102: on its way","A106: refunded 77 (R1)","A110: delivered, nothing to do","A114: on its way","A118: refunded 23 (R2)","A122: delivered, nothing to do"]
const [grace] = await tools.find_customers({ query: "Grace" });
const orders = await tools.list_orders({ customer_id: grace.id });

const actions: string[] = [];
for (const order of orders) {
  switch (order.status) {
    case "late": {
      const refund = await tools.refund_order({ order_id: order.id, reason: "arrived late" });
      actions.push(`${order.id}: refunded ${refund.amount} (${refund.refund_id})`);
      break;
    }
    case "shipped":
      actions.push(`${order.id}: on its way`);
      break;
    case "delivered":
      actions.push(`${order.id}: delivered, nothing to do`);
      break;
    default:
      actions.push(`${order.id}: ${order.status}`);
  }
}
return actions;
