// task: Refund Dana's late order A103, then check what state her order A115 is in.
// expect: error
// mistake: wrong-argument-name
const refund = await tools.refund_order({ order_id: "A103", reason: "late delivery" });
console.log(`refunded ${refund.amount}`);
const other = await tools.get_order({ orderId: "A115" }); // <- error
return { refund: refund.refund_id, other: other.status };
