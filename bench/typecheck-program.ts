// The program and the tool set of the type-check benchmarks (bench/typecheck.ts, bench/ts7/): 20 tools,
// and a 30-line program a model writes against them, clean or with one misspelt property on line 12.

import { Toolset, tool } from "cordon";
import { z } from "zod";

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
/** The 20 tools. */
export const toolset = new Toolset(tools);

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
/** The program, correct. */
export const CLEAN = PROGRAM("amount");
/** The program with `r.amout` for `r.amount`: one error, on line {@link FAULTY_LINE}. */
export const FAULTY = PROGRAM("amout");
/** The line of the faulty program's one error. */
export const FAULTY_LINE = 12;
/** The value the clean program returns. */
export const EXPECTED = {
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
