// task: The customer quotes order numbers A999 and A110. Look them up and tell me which exist.
// expect: ok
// returns: {"found":[{"id":"A110","item":"teapot"}],"missing":["A999"]}
const found: { id: string; item: string }[] = [];
const missing: string[] = [];

for (const id of ["A999", "A110"]) {
  try {
    const order = await tools.get_order({ order_id: id });
    found.push({ id: order.id, item: order.item });
  } catch (e) {
    if (e.kind === "error") missing.push(id);
    else throw e;
  }
}

return { found, missing };
