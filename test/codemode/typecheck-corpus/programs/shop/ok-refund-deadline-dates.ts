// task: For each of Grace's late orders, tell me the last day we can still refund it: 30 days from 2025-06-09.
// expect: ok
// returns: {"lines":["A106 (filters): refund by 2025-07-09","A118 (teapot): refund by 2025-07-09"],"weekday":"Wednesday"}
const today = new Date("2025-06-09T00:00:00Z");
const deadline = new Date(today.getTime() + 30 * 24 * 60 * 60 * 1000);

const late = await tools.list_orders({ customer_id: "c-2", status: "late" });
const lines = late.map((o) => `${o.id} (${o.item}): refund by ${deadline.toISOString().slice(0, 10)}`);
const weekday = deadline.toLocaleDateString("en-US", { weekday: "long", timeZone: "UTC" });
return { lines, weekday };
