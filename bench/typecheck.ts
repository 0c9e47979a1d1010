// The type check of code mode (typecheck "block"): cold start (a code mode created, to its first check
// done), a warm check of a 30-line program against 20 tools (p50, p95; aim p50 ≤ 15 ms), and its share
// of a whole run (the same program run with and without the check, in-process). Every timed check is
// verified: the faulty program must be stopped with exactly 1 diagnostic on its line and no call; every
// timed run must end ok with the expected value. Run: make bench (it measures the built package).

import { type CodeMode, codeMode, isolateEnvironment, Toolset, tool } from "cordon";
import { z } from "zod";
import { checked } from "./check.js";
import { fmt, median, sample } from "./stats.js";

// 20 tools with the shapes of a shop's and a CRM's: nested objects, enums, optional fields, arrays.
const status = z.enum(["open", "paid", "shipped", "late", "refunded"]);
const order = z.object({
  id: z.string(),
  customer_id: z.string(),
  status,
  amount: z.number(),
  items: z.array(z.object({ sku: z.string(), qty: z.number(), price: z.number() })),
  note: z.string().optional(),
});
const customer = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  tier: z.enum(["standard", "gold"]),
});
const tools = [
  tool({
    name: "find_customers",
    description: "Customers matching a query.",
    input: z.object({ query: z.string(), limit: z.number().optional() }),
    output: z.array(customer),
    run: () => [{ id: "C1", name: "Dana", email: "d@x", tier: "gold" as const }],
  }),
  tool({
    name: "get_customer",
    description: "One customer.",
    input: z.object({ customer_id: z.string() }),
    output: customer,
    run: ({ customer_id }) => ({ id: customer_id, name: "Dana", email: "d@x", tier: "gold" as const }),
  }),
  tool({
    name: "list_orders",
    description: "A customer's orders.",
    input: z.object({ customer_id: z.string(), status: status.optional() }),
    output: z.array(order),
    run: ({ customer_id }) =>
      [1, 2, 3].map((n) => ({
        id: `O${n}`,
        customer_id,
        status: "late" as const,
        amount: n * 10,
        items: [{ sku: "S", qty: n, price: 10 }],
      })),
  }),
  tool({
    name: "get_order",
    description: "One order.",
    input: z.object({ order_id: z.string() }),
    output: order,
    run: ({ order_id }) => ({
      id: order_id,
      customer_id: "C1",
      status: "paid" as const,
      amount: 10,
      items: [],
    }),
  }),
  tool({
    name: "refund_order",
    description: "Refunds an order.",
    input: z.object({ order_id: z.string(), reason: z.string(), amount: z.number().optional() }),
    output: z.object({ order_id: z.string(), amount: z.number() }),
    run: ({ order_id }) => ({ order_id, amount: 10 }),
  }),
  ...Array.from({ length: 15 }, (_, i) =>
    tool({
      name: `crm_action_${i}`,
      description: `CRM action ${i}: updates a record and returns it.`,
      input: z.object({
        record_id: z.string(),
        fields: z.record(z.string(), z.string()).optional(),
        mode: z.enum(["merge", "replace"]).optional(),
      }),
      output: z.object({ record_id: z.string(), updated: z.boolean(), version: z.number() }),
      run: ({ record_id }) => ({ record_id, updated: true, version: i }),
    }),
  ),
];
const toolset = new Toolset(tools);

/** 30 lines a model writes: a lookup, a fan-out, filtering, a loop with try/catch, a summary. */
const PROGRAM = (
  amountName: string,
) => `const [customer] = await tools.find_customers({ query: "dana@example.com" });
const profile = await tools.get_customer({ customer_id: customer.id });
const orders = await tools.list_orders({ customer_id: customer.id });
const late = orders.filter((o) => o.status === "late");
const details = await Promise.all(late.map((o) => tools.get_order({ order_id: o.id })));
const totals = new Map<string, number>();
for (const o of orders) totals.set(o.id, o.items.reduce((acc, item) => acc + item.qty * item.price, 0));
const refunded: { id: string; amount: number }[] = [];
for (const o of late) {
  try {
    const r = await tools.refund_order({ order_id: o.id, reason: "late delivery" });
    refunded.push({ id: r.order_id, amount: r.${amountName} });
  } catch (error) {
    console.warn(\`\${o.id}: \${error.message}\`);
  }
}
const updated = await tools.crm_action_3({ record_id: customer.id, fields: { last_refund: new Date(0).toISOString() }, mode: "merge" });
const biggest = [...totals.entries()].sort((a, b) => b[1] - a[1])[0];
const summary = {
  name: profile.name,
  tier: profile.tier,
  late: late.length,
  checked: details.length,
  refunded: refunded.map((r) => r.id),
  total: refunded.reduce((sum, r) => sum + r.amount, 0),
  biggest: biggest ? biggest[0] : null,
  version: updated.version,
};
console.log(\`\${summary.name}: \${summary.refunded.length} refunded\`);
return summary;`;
const CLEAN = PROGRAM("amount");
const FAULTY = PROGRAM("amout");
const EXPECTED = {
  name: "Dana",
  tier: "gold",
  late: 3,
  checked: 3,
  refunded: ["O1", "O2", "O3"],
  total: 30,
  biggest: "O3",
  version: 3,
};
if (CLEAN.split("\n").length !== 30) throw new Error("the program must be 30 lines");

/** Runs the faulty program in `mode`; throws unless the check stopped it: one diagnostic, on line 12, no call. */
async function stopped(mode: CodeMode, what: string): Promise<void> {
  const result = await mode.run(`${FAULTY}\n// ${Math.random()}`);
  const ok =
    result.error?.name === "TypeCheckError" &&
    result.calls.length === 0 &&
    result.diagnostics?.length === 1 &&
    result.diagnostics[0]?.line === 12;
  if (!ok) throw new Error(`benchmark "${what}": unexpected result ${JSON.stringify(result).slice(0, 400)}`);
}

// 1. Cold start: a code mode created, to its first check done (a new checker each time).
const colds: number[] = [];
for (let i = 0; i < 5; i++) {
  const start = performance.now();
  const mode = codeMode({ tools: toolset, environment: isolateEnvironment(), typecheck: "block" });
  await stopped(mode, "cold check");
  colds.push(performance.now() - start);
  await mode.close();
}

// 2. Warm checks: runs the check stops (the code is prepared and checked, and nothing runs), each
// program different by a comment, as real programs differ.
const block = codeMode({ tools: toolset, environment: isolateEnvironment(), typecheck: "block" });
const warm = () => stopped(block, "warm check");
await sample(50, warm);
const warmUs = (await sample(400, warm)).sort((a, b) => a - b);
const p = (q: number) => warmUs[Math.min(warmUs.length - 1, Math.floor(q * warmUs.length))]! / 1000;

// 3. Share of a whole run: the clean program run in-process with and without the check.
const off = codeMode({ tools: toolset, environment: isolateEnvironment() });
const runOff = checked(() => off.run(CLEAN), EXPECTED, "run without the check");
const runBlock = checked(() => block.run(CLEAN), EXPECTED, "run with the check");
await sample(20, runOff);
await sample(20, runBlock);
const offMs = median(await sample(150, runOff)) / 1000;
const blockMs = median(await sample(150, runBlock)) / 1000;
await off.close();
await block.close();

console.log('type check (typecheck "block"), 20 tools, a 30-line program');
console.log(
  `  cold start, creation to first check done: median ${fmt(median(colds), "ms")} (${colds.map((c) => c.toFixed(0)).join(", ")})`,
);
console.log(
  `  warm check (a run the check stops: code prepared and checked): p50 ${fmt(p(0.5), "ms")}, p95 ${fmt(p(0.95), "ms")} (aim p50 <= 15 ms, ${warmUs.length} checks)`,
);
console.log(
  `  whole run in-process, median: without the check ${fmt(offMs, "ms")}, with it ${fmt(blockMs, "ms")} (the check's share ${(((blockMs - offMs) / blockMs) * 100).toFixed(0)}%)`,
);
process.exit(0);
