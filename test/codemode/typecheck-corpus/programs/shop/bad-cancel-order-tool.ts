// task: Refund Grace's late order A106 and cancel her shipped order A114.
// expect: error
// mistake: unknown-tool
const refund = await tools.refund_order({ order_id: "A106", reason: "late delivery" });
const cancelled = await tools.cancel_order({ order_id: "A114" }); // <- error
return { refund, cancelled };
