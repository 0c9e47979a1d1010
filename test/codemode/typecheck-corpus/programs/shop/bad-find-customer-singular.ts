// task: Refund A106, then tell me which customer placed it.
// expect: error
// mistake: unknown-tool
const refund = await tools.refund_order({ order_id: "A106", reason: "late delivery" });
const [customer] = await tools.find_customer({ query: "grace" }); // <- error
`${refund.refund_id} for ${customer.name}`;
