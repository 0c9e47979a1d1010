// task: Refund order A118 and show me order A122.
// expect: error
// mistake: wrong-argument-type
const refund = await tools.refund_order({ order_id: "A118", reason: "late delivery" });
const order = await tools.get_order({ order_id: 122 }); // <- error
return { refund, order };
