// task: Refund Alan's late orders A112 and A124 and make sure he is notified.
// expect: error
// mistake: wrong-argument-count
const refunds = [];
for (const order_id of ["A112", "A124"]) {
  refunds.push(await tools.refund_order({ order_id, reason: "late delivery" }, { notify: true })); // <- error
}
refunds;
