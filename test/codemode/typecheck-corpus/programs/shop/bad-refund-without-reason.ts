// task: Refund Ada's late orders A109 and A121.
// expect: error
// mistake: missing-argument
const first = await tools.refund_order({ order_id: "A109", reason: "late delivery" });
const second = await tools.refund_order({ order_id: "A121" }); // <- error
return [first.refund_id, second.refund_id];
