// task: Refund order A103, then tell me what is in order A115.
// expect: error
// mistake: missing-tools-prefix
await tools.refund_order({ order_id: "A103", reason: "late delivery" });
const next = await get_order({ order_id: "A115" }); // <- error
next.item;
