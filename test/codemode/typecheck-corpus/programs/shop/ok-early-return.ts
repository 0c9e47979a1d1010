// task: If Dana has any shipped orders, refund the cheapest of them as a goodwill gesture; otherwise tell me.
// expect: ok
// returns: "Dana has no shipped orders: nothing refunded."
const shipped = await tools.list_orders({ customer_id: "c-3", status: "shipped" });
if (shipped.length === 0) {
  return "Dana has no shipped orders: nothing refunded.";
}
const cheapest = shipped.reduce((min, o) => (o.amount < min.amount ? o : min));
const refund = await tools.refund_order({ order_id: cheapest.id, reason: "goodwill" });
return `Refunded ${refund.order_id} (${refund.amount})`;
