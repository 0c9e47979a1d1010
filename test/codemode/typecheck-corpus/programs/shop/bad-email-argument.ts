// task: Dana (dana@example.com) wants her late order A115 refunded; confirm it is hers first.
// expect: error
// mistake: wrong-argument-name
await tools.refund_order({ order_id: "A115", reason: "late delivery" });
const [dana] = await tools.find_customers({ email: "dana@example.com" }); // <- error
dana.name;
