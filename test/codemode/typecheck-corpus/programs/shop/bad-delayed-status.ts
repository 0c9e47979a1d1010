// task: Refund Dana's order A103, then list her other delayed orders so I can decide about them.
// expect: error
// mistake: wrong-enum
await tools.refund_order({ order_id: "A103", reason: "late delivery" });
const delayed = await tools.list_orders({ customer_id: "c-3", status: "delayed" }); // <- error
return delayed.map((o) => o.id);
