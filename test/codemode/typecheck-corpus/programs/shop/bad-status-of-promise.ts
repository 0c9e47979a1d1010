// task: Refund A121 (late), then refund A109 too if it is still late.
// expect: error
// mistake: missing-await
await tools.refund_order({ order_id: "A121", reason: "late delivery" });
const order = tools.get_order({ order_id: "A109" });
if (order.status === "late") { // <- error
  await tools.refund_order({ order_id: "A109", reason: "late delivery" });
}
return "done";
