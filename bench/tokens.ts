// Tokens that enter the model's context for three composite tasks, done once as sequential direct tool
// calls and once as one run_code call. The "model" is a script (no hosted model exists here): its tool
// calls are written out below; the tools, the dispatcher, the sandbox and the rendered outputs are real.
// Tokens are counted with js-tiktoken's o200k_base encoding.
// Run: make bench (it measures the built package: "cordon" resolves to dist/).

import { type CodeRunResult, codeMode, Dispatcher, type ToolCall, Toolset, tool } from "cordon";
import { getEncoding } from "js-tiktoken";
import { z } from "zod";
import { expectResults } from "./check.js";
import { bigCatalogTokens, breakEven } from "./tokens-catalog.js";

const encoding = getEncoding("o200k_base");
const tokens = (text: string) => encoding.encode(text).length;

// ---- A shop with enough data to make the point. ----
const orders = Array.from({ length: 150 }, (_, i) => ({
  id: `A${1000 + i}`,
  customer: i % 3 === 0 ? "c-7" : `c-${i % 11}`,
  status: i % 4 === 0 ? "refunded" : "shipped",
  amount: 20 + ((i * 37) % 180),
  items: [{ sku: `SKU-${i % 17}`, qty: 1 + (i % 3) }],
  created_at: new Date(Date.UTC(2026, 0, 1 + (i % 28))).toISOString(),
}));
const customers = Array.from({ length: 200 }, (_, i) => ({
  id: `c-${i}`,
  name: `Customer ${i}`,
  country: ["DE", "FR", "US", "JP"][i % 4],
}));
const invoices = Array.from({ length: 300 }, (_, i) => ({
  id: `INV-${i}`,
  customer: `c-${(i * 7) % 200}`,
  total: 50 + ((i * 13) % 400),
  paid: i % 5 !== 0,
}));
const rows = Array.from({ length: 10_000 }, (_, i) => ({
  id: i,
  region: ["north", "south", "east", "west"][i % 4],
  score: (i * 7919) % 10_007,
  flagged: i % 2_000 === 1_234,
}));
const PAGE = 500;

const toolset = new Toolset([
  tool({
    name: "list_orders",
    description: "List the ids of a customer's orders.",
    input: z.object({ customer: z.string() }),
    run: ({ customer }) => orders.filter((o) => o.customer === customer).map((o) => o.id),
  }),
  tool({
    name: "get_order",
    description: "Get one order with its status, amount, items and date.",
    input: z.object({ id: z.string() }),
    run: ({ id }) => orders.find((o) => o.id === id) ?? null,
  }),
  tool({
    name: "list_customers",
    description: "List all customers.",
    input: z.object({}),
    run: () => customers,
  }),
  tool({
    name: "list_invoices",
    description: "List all invoices.",
    input: z.object({}),
    run: () => invoices,
  }),
  tool({
    name: "query_rows",
    description: `Read ${PAGE} rows of the metrics table, starting at offset.`,
    input: z.object({ offset: z.number().int().min(0) }),
    run: ({ offset }) => rows.slice(offset, offset + PAGE),
  }),
]);
const dispatcher = new Dispatcher(toolset);
const cm = codeMode({ dispatcher });

/** Runs the model's calls turn by turn and counts what enters its context: each call and each output. */
async function direct(turns: Omit<ToolCall, "id">[][]): Promise<number> {
  let total = 0;
  let n = 0;
  for (const turn of turns) {
    const calls = turn.map((call) => ({ ...call, id: `call_${++n}` }));
    const results = await dispatcher.dispatch(calls).results();
    expectResults(results, "a direct tool call");
    for (const call of calls) total += tokens(call.name) + tokens(JSON.stringify(call.arguments));
    for (const result of results) total += tokens(result.output);
  }
  return total;
}

/** One run_code call: the code the model writes and the output it reads back. */
async function viaCode(code: string): Promise<{ tokens: number; output: string }> {
  const [result] = await dispatcher.dispatch([{ id: "rc", name: "run_code", arguments: { code } }]).results();
  // A failed run's short error would count as a flatteringly small answer.
  expectResults([result!], "run_code");
  const run = result!.value as CodeRunResult;
  if (run.status !== "ok")
    throw new Error(`benchmark "run_code": the run did not succeed (${run.status}: ${run.error?.message})`);
  return {
    tokens: tokens("run_code") + tokens(JSON.stringify({ code })) + tokens(result!.output),
    output: result!.output,
  };
}
toolset.add(cm.tool);

const c7 = orders.filter((o) => o.customer === "c-7");
const tasks = [
  {
    name: "total the refunds of a customer's 50 orders",
    turns: [
      [{ name: "list_orders", arguments: { customer: "c-7" } }],
      c7.map((o) => ({ name: "get_order", arguments: { id: o.id } })),
    ],
    code: `const ids = await tools.list_orders({ customer: "c-7" });
const all = await Promise.all(ids.map((id) => tools.get_order({ id })));
const refunded = all.filter((o) => o.status === "refunded");
return { orders: all.length, refunded: refunded.length, total: refunded.reduce((s, o) => s + o.amount, 0) };`,
  },
  {
    name: "join two lists (customers with unpaid invoices)",
    turns: [
      [
        { name: "list_customers", arguments: {} },
        { name: "list_invoices", arguments: {} },
      ],
    ],
    code: `const [customers, invoices] = await Promise.all([tools.list_customers({}), tools.list_invoices({})]);
const byId = new Map(customers.map((c) => [c.id, c.name]));
const unpaid = invoices.filter((i) => !i.paid && i.total > 300);
return unpaid.map((i) => ({ invoice: i.id, customer: byId.get(i.customer), total: i.total }));`,
  },
  {
    name: "filter 10,000 rows to 5",
    turns: Array.from({ length: rows.length / PAGE }, (_, p) => [
      { name: "query_rows", arguments: { offset: p * PAGE } },
    ]),
    code: `const hits = [];
for (let offset = 0; offset < 10000; offset += 500) {
  const page = await tools.query_rows({ offset });
  hits.push(...page.filter((r) => r.flagged));
}
return hits;`,
  },
];

console.log("tokens entering the model's context (o200k_base): sequential direct calls vs one run_code");
let sumDirect = 0;
let sumCode = 0;
for (const task of tasks) {
  const d = await direct(task.turns as Omit<ToolCall, "id">[][]);
  const c = await viaCode(task.code);
  sumDirect += d;
  sumCode += c.tokens;
  console.log(
    `  ${task.name}: direct ${d.toLocaleString("en-US")}, run_code ${c.tokens.toLocaleString("en-US")} (${(100 * (1 - c.tokens / d)).toFixed(1)}% fewer)`,
  );
}
console.log(
  `  all three: direct ${sumDirect.toLocaleString("en-US")}, run_code ${sumCode.toLocaleString("en-US")} (${(sumDirect / sumCode).toFixed(1)}x fewer)`,
);
const definitions = tokens(JSON.stringify(toolset.without(["run_code"]).definitions()));
console.log(
  `  one-time cost of what the model is told: direct tool definitions ${definitions.toLocaleString("en-US")}, run_code definition with declarations ${tokens(JSON.stringify(cm.tool.parameters) + cm.tool.description).toLocaleString("en-US")}, full code-mode instructions ${tokens(cm.instructions).toLocaleString("en-US")}`,
);
await cm.close();

// The big catalog: every prompt of the conversation counts, since the tools are shown on every turn.
const big = await bigCatalogTokens(tokens);
console.log(
  `\nbig catalog (${big.tools} tools), three composite tasks: tokens of every prompt read and message written, turn by turn (o200k_base)`,
);
const [directWay] = big.ways;
for (const way of big.ways) {
  const vs = way === directWay ? "" : ` (${(directWay!.tokens / way.tokens).toFixed(1)}x fewer than direct)`;
  console.log(
    `  ${way.name}: ${way.tokens.toLocaleString("en-US")} in ${way.turns} model turns${vs}; per task ${way.perTask.map((n) => n.toLocaleString("en-US")).join(", ")}`,
  );
}

console.log(
  "\nwhere discovery starts to pay: the same three tasks over part of the catalog, inline vs discovery",
);
for (const row of await breakEven(tokens)) {
  console.log(
    `  ${row.tools} tools, declarations ~${row.declarationTokens.toLocaleString("en-US")} tokens: inline ${row.inline.toLocaleString("en-US")}, discovery ${row.search.toLocaleString("en-US")} (${row.search < row.inline ? "discovery" : "inline"} cheaper)`,
  );
}
