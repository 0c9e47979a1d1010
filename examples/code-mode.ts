// The main job: a model's code calls several tools in one run_code call, in an isolated-vm sandbox.
// Each proxied call goes through the dispatcher (validation, approval, policies, retries, events).
// The model is scripted here: the code below is what a model would send as run_code's argument.
// Run: make demo
import { codeMode, Dispatcher, Toolset } from "cordon";
import { shopTools } from "./shop-tools.js";

// The calls made from code go through this dispatcher; a human would decide approvals here, the
// example allows refunds up to 42.
const shop = new Dispatcher(shopTools, {
  approvalHandler: ({ args }) => ((args as { amount?: number }).amount ?? 0) <= 42,
});
const cm = codeMode({ dispatcher: shop, limits: { timeoutMs: 10_000 } });
// The model's own turn: its one run_code call.
const dispatcher = new Dispatcher(new Toolset([cm.tool]));

console.log("--- what the model is told (cm.instructions, first lines) ---");
console.log(cm.instructions.split("\n").slice(0, 4).join("\n"));
console.log("...\n--- the tools the code can call (cm.declarations) ---");
console.log(cm.declarations);

const code = `
// Refund every shipped order of customer c-7 that costs less than 45.
const ids: string[] = await tools.list_orders({ customer_id: "c-7" });
const orders = await Promise.all(ids.map((order_id) => tools.get_order({ order_id })));
const small = orders.filter((o) => o.status === "shipped" && o.amount < 45);
const refunds = [];
for (const o of small) {
  try {
    refunds.push(await tools.refund({ order_id: o.id, amount: o.amount }));
  } catch (e) {
    console.warn(\`refund of \${o.id} failed: \${e.kind}\`);
  }
}
console.log(\`looked at \${orders.length} orders\`);
return { refunded: refunds.length, total: refunds.reduce((sum, r) => sum + r.refunded, 0) };
`;

console.log("\n--- one model turn: a single run_code call ---");
const handle = dispatcher.dispatch([{ id: "call_1", name: cm.tool.name, arguments: { code } }]);
let calls = 0;
for await (const event of handle) {
  if (event.parentCallId && event.type === "completed") calls++;
  if (event.type === "approval_decided")
    console.log(`  approval ${event.callId}: ${event.approved ? "allowed" : "denied"} by ${event.by}`);
  if (event.type === "failed") console.log(`  ${event.callId} ${event.name} failed: ${event.error.message}`);
}
const [result] = await handle.results();
console.log(`  ${calls} tool calls completed inside one run`);
console.log("\n--- what the model reads back ---");
console.log(result?.output);
await cm.close();
