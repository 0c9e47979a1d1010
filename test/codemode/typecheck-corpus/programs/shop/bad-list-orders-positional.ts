// task: Refund A103, then list Dana's late orders.
// expect: error
// mistake: wrong-argument-type
await tools.refund_order({ order_id: "A103", reason: "late delivery" });
const late = await tools.list_orders("c-3"); // <- error
late.map((o) => o.id);
