// task: Try to refund Ada's orders A105 and A109; tell me which worked and why the others did not.
// expect: ok
// returns: [{"id":"A105","ok":false,"why":"error: Order A105 is cancelled: there is nothing to refund."},{"id":"A109","ok":true,"refund":"R1"}]
const results = await Promise.allSettled(
  ["A105", "A109"].map((order_id) => tools.refund_order({ order_id, reason: "customer request" })),
);

const report = results.map((r, i) => {
  const id = ["A105", "A109"][i];
  if (r.status === "fulfilled") return { id, ok: true, refund: r.value.refund_id };
  const err = r.reason as { kind: string; message: string };
  return { id, ok: false, why: `${err.kind}: ${err.message}` };
});
report;
