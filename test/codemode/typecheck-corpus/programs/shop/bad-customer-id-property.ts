// task: Find Alan Turing and refund his late orders.
// expect: error
// mistake: misspelt-property
const [alan] = await tools.find_customers({ query: "Alan Turing" });
const late = await tools.list_orders({ customer_id: alan.customer_id, status: "late" }); // <- error
for (const order of late) await tools.refund_order({ order_id: order.id, reason: "late delivery" });
late.length;
