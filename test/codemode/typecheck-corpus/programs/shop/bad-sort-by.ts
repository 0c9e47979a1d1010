// task: Refund all of Alan's late orders and list the refunds from the largest down.
// expect: error
// mistake: unknown-method
const late = await tools.list_orders({ customer_id: "c-4", status: "late" });
const refunds = await Promise.all(
  late.map((o) => tools.refund_order({ order_id: o.id, reason: "late delivery" })),
);
return refunds.sortBy((r) => -r.amount); // <- error
