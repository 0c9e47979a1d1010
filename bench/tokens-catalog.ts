// The big-catalog case of the token bench: the 340-tool test catalog, three composite tasks, and the
// tokens a model is billed for (every prompt it reads, turn by turn, and everything it writes) when it
// works with direct tool calls, with code mode and the declarations inline, and with code mode and
// discovery (the index, and tools.$search inside the code). The "model" is a script; its prompts are
// real: the tool definitions the provider would send and the conversation so far, with the tools'
// and run_code's real outputs. Six catalog tools answer from data here; every task's answer is checked.

import {
  type AnyTool,
  type CodeMode,
  type CodeRunResult,
  codeMode,
  Dispatcher,
  type ToolCall,
  Toolset,
  tool,
} from "cordon";
import { estimateTokens } from "cordon/discovery";
import { catalogTools } from "../test/codemode/discovery/catalog/index.js";
import { expectResults } from "./check.js";

/** Tokens of one text, with the bench's tokenizer. */
export type CountTokens = (text: string) => number;

// ---- Data behind the six tools the tasks need. ----
const orders = Array.from({ length: 50 }, (_, i) => ({
  id: `O-${2000 + i}`,
  customer_id: "cus-7",
  status: i % 4 === 0 ? "refunded" : "delivered",
  total: 20 + ((i * 37) % 180),
  items: [{ sku: `SKU-${i % 17}`, qty: 1 + (i % 3) }],
  shipping_address: { city: ["Berlin", "Lyon", "Osaka"][i % 3], country: ["DE", "FR", "JP"][i % 3] },
}));
const services = Array.from({ length: 12 }, (_, i) => ({ id: `SVC-${i}`, policy: `POL-${i % 4}` }));
const incidents = Array.from({ length: 60 }, (_, i) => ({
  id: `INC-${i}`,
  title: `Incident ${i}`,
  status: i % 5 === 0 ? "triggered" : i % 5 === 1 ? "acknowledged" : "resolved",
  service: { id: services[i % services.length]!.id },
  escalation_policy: { id: services[i % services.length]!.policy },
  created_at: new Date(Date.UTC(2026, 10, 1 + (i % 28))).toISOString(),
}));
const oncalls = Array.from({ length: 4 }, (_, i) =>
  [1, 2].map((level) => ({
    escalation_policy: { id: `POL-${i}` },
    escalation_level: level,
    user: { id: `U-${i}-${level}`, name: `Person ${i}.${level}`, email: `p${i}${level}@example.com` },
  })),
).flat();
const customers = Array.from({ length: 120 }, (_, i) => ({
  id: `cus_${i}`,
  name: `Customer ${i}`,
  email: `c${i}@example.com`,
  created: 1_760_000_000 + i * 3_600,
}));
const invoices = Array.from({ length: 200 }, (_, i) => ({
  id: `in_${i}`,
  customer: `cus_${(i * 7) % 120}`,
  status: i % 3 === 0 ? "open" : "paid",
  amount_due: 5_000 + ((i * 1_301) % 60_000),
  currency: "eur",
}));

type Args = Record<string, unknown>;
const RUNS: Record<string, (args: Args) => unknown> = {
  shop__list_orders: ({ customer_id }) => ({
    orders: orders.filter((o) => o.customer_id === customer_id).map((o) => ({ id: o.id })),
  }),
  shop__get_order: ({ order_id }) => orders.find((o) => o.id === order_id) ?? null,
  pagerduty__list_incidents: ({ statuses }) => ({
    incidents: incidents.filter((x) => !Array.isArray(statuses) || statuses.includes(x.status)),
  }),
  pagerduty__list_oncalls: ({ escalation_policy_ids }) => ({
    oncalls: oncalls.filter(
      (o) => !Array.isArray(escalation_policy_ids) || escalation_policy_ids.includes(o.escalation_policy.id),
    ),
  }),
  stripe__list_customers: () => ({ data: customers }),
  stripe__list_invoices: ({ status }) => ({
    data: invoices.filter((x) => status === undefined || x.status === status),
  }),
};

/** The catalog, with the six tools the tasks use answering from the data above. */
function catalog(): AnyTool[] {
  return catalogTools().map((t) => {
    const run = RUNS[t.name];
    if (run === undefined) return t;
    return tool({
      name: t.name,
      description: t.description,
      input: t.parameters,
      readOnly: true,
      run: (args) => run(args as Args),
    });
  });
}

// ---- The tasks and their answers. ----
const refunded = orders.filter((o) => o.status === "refunded");
const triggered = incidents.filter((x) => x.status === "triggered");
const openOver = invoices.filter((x) => x.status === "open" && x.amount_due > 50_000);
const byCustomer = new Map(customers.map((c) => [c.id, c]));

interface Task {
  name: string;
  ask: string;
  answer: unknown;
  /** Direct calls, turn by turn; a turn's calls may depend on what earlier outputs said (`seen`). */
  direct: ((seen: unknown[]) => Omit<ToolCall, "id">[])[];
  /** Direct calls: the answer the script reads off the outputs. */
  directAnswer: (seen: unknown[]) => unknown;
  /** Discovery: what the code searches for, and the tools the script then needs to have found. */
  searches: string[];
  needs: string[];
  /** The code that does the task. */
  code: string;
}

const TASKS: Task[] = [
  {
    name: "refunds over a customer's 50 orders",
    ask: "How much was refunded in total over customer cus-7's orders, and in how many orders?",
    answer: { refunded: refunded.length, total: refunded.reduce((s, o) => s + o.total, 0) },
    direct: [
      () => [{ name: "shop__list_orders", arguments: { customer_id: "cus-7" } }],
      (seen) =>
        (seen[0] as { orders: { id: string }[] }).orders.map((o) => ({
          name: "shop__get_order",
          arguments: { order_id: o.id },
        })),
    ],
    directAnswer: (seen) => {
      const got = seen.slice(1) as { status: string; total: number }[];
      const r = got.filter((o) => o.status === "refunded");
      return { refunded: r.length, total: r.reduce((s, o) => s + o.total, 0) };
    },
    searches: ["list a customer's orders", "get one order with its totals"],
    needs: ["shop__list_orders", "shop__get_order"],
    code: `const { orders } = await tools.shop__list_orders({ customer_id: "cus-7" });
const all = await Promise.all(orders.map((o) => tools.shop__get_order({ order_id: o.id })));
const refunded = all.filter((o) => o.status === "refunded");
return { refunded: refunded.length, total: refunded.reduce((s, o) => s + o.total, 0) };`,
  },
  {
    name: "who is on call for the triggered incidents",
    ask: "For each triggered incident, who is first on call for its escalation policy?",
    answer: triggered.map((x) => ({
      incident: x.id,
      oncall: oncalls.find(
        (o) => o.escalation_policy.id === x.escalation_policy.id && o.escalation_level === 1,
      )!.user.name,
    })),
    direct: [
      () => [
        { name: "pagerduty__list_incidents", arguments: { statuses: ["triggered"] } },
        { name: "pagerduty__list_oncalls", arguments: {} },
      ],
    ],
    directAnswer: (seen) => {
      const [{ incidents: found }, { oncalls: people }] = seen as [
        { incidents: typeof incidents },
        { oncalls: typeof oncalls },
      ];
      return found.map((x) => ({
        incident: x.id,
        oncall: people.find(
          (o) => o.escalation_policy.id === x.escalation_policy.id && o.escalation_level === 1,
        )!.user.name,
      }));
    },
    searches: ["triggered incidents", "who is on call"],
    needs: ["pagerduty__list_incidents", "pagerduty__list_oncalls"],
    code: `const [{ incidents }, { oncalls }] = await Promise.all([
  tools.pagerduty__list_incidents({ statuses: ["triggered"] }),
  tools.pagerduty__list_oncalls({}),
]);
return incidents.map((x) => ({
  incident: x.id,
  oncall: oncalls.find((o) => o.escalation_policy.id === x.escalation_policy.id && o.escalation_level === 1).user.name,
}));`,
  },
  {
    name: "open invoices over 500 EUR with their customers",
    ask: "Which open Stripe invoices are over 500 EUR, and whose (name and email) are they?",
    answer: openOver.map((x) => ({
      invoice: x.id,
      name: byCustomer.get(x.customer)!.name,
      email: byCustomer.get(x.customer)!.email,
    })),
    direct: [
      () => [
        { name: "stripe__list_invoices", arguments: { status: "open" } },
        { name: "stripe__list_customers", arguments: {} },
      ],
    ],
    directAnswer: (seen) => {
      const [{ data: found }, { data: people }] = seen as [
        { data: typeof invoices },
        { data: typeof customers },
      ];
      const who = new Map(people.map((c) => [c.id, c]));
      return found
        .filter((x) => x.amount_due > 50_000)
        .map((x) => ({ invoice: x.id, name: who.get(x.customer)!.name, email: who.get(x.customer)!.email }));
    },
    searches: ["open invoices", "list customers with emails"],
    needs: ["stripe__list_invoices", "stripe__list_customers"],
    code: `const [{ data: invoices }, { data: customers }] = await Promise.all([
  tools.stripe__list_invoices({ status: "open" }),
  tools.stripe__list_customers({}),
]);
const byId = new Map(customers.map((c) => [c.id, c]));
return invoices
  .filter((x) => x.amount_due > 50000)
  .map((x) => ({ invoice: x.id, name: byId.get(x.customer).name, email: byId.get(x.customer).email }));`,
  },
];

/** One conversation: what the model is shown (tool definitions), and the messages so far. */
class Conversation {
  readonly #count: CountTokens;
  readonly #tools: string;
  readonly #messages: string[] = [];
  /** Tokens of every prompt read and every message written so far. */
  total = 0;
  turns = 0;

  constructor(count: CountTokens, definitions: unknown, ask: string) {
    this.#count = count;
    this.#tools = JSON.stringify(definitions);
    this.#messages.push(JSON.stringify({ role: "user", content: ask }));
  }

  /** The model reads the whole prompt, then writes `message`, which joins the conversation. */
  modelTurn(message: unknown): void {
    this.turns++;
    this.total += this.#count(this.#tools) + this.#count(this.#messages.join("\n"));
    const written = JSON.stringify(message);
    this.total += this.#count(written);
    this.#messages.push(written);
  }

  /** A tool's output joins the conversation (the model reads it with its next prompt). */
  toolOutput(callId: string, output: string): void {
    this.#messages.push(JSON.stringify({ role: "tool", tool_call_id: callId, content: output }));
  }
}

function sameAnswer(task: Task, got: unknown, how: string): void {
  if (JSON.stringify(got) !== JSON.stringify(task.answer)) {
    throw new Error(
      `benchmark "tokens, big catalog": ${how} did not solve "${task.name}" (got ${JSON.stringify(got).slice(0, 200)})`,
    );
  }
}

async function direct(count: CountTokens, task: Task, toolset: Toolset): Promise<Conversation> {
  const dispatcher = new Dispatcher(toolset);
  const talk = new Conversation(count, toolset.definitions(), task.ask);
  const seen: unknown[] = [];
  let n = 0;
  for (const turn of task.direct) {
    const calls = turn(seen).map((call) => ({ ...call, id: `call_${++n}` }));
    talk.modelTurn({ role: "assistant", tool_calls: calls });
    const results = await dispatcher.dispatch(calls).results();
    expectResults(results, "a direct tool call in the big catalog");
    for (const call of calls) {
      const result = results.find((r) => r.callId === call.id)!;
      talk.toolOutput(call.id, result.output);
      seen.push(result.value);
    }
  }
  const answer = task.directAnswer(seen);
  sameAnswer(task, answer, "direct calls");
  talk.modelTurn({ role: "assistant", content: JSON.stringify(answer) });
  return talk;
}

/** One run_code turn of the conversation: the model writes the code, and reads the run's output next. */
async function codeTurn(
  talk: Conversation,
  outer: Dispatcher,
  code: string,
  id: string,
): Promise<CodeRunResult> {
  const call = { id, name: "run_code", arguments: { code } };
  talk.modelTurn({ role: "assistant", tool_calls: [call] });
  const [result] = await outer.dispatch([call]).results();
  expectResults([result!], "run_code in the big catalog");
  talk.toolOutput(id, result!.output);
  return result!.value as CodeRunResult;
}

async function viaCode(count: CountTokens, task: Task, cm: CodeMode): Promise<Conversation> {
  const outer = new Dispatcher(new Toolset([cm.tool]));
  const talk = new Conversation(count, outer.toolset.definitions(), task.ask);
  if (cm.discovery === "search") {
    const found = await codeTurn(
      talk,
      outer,
      `const found = await Promise.all(${JSON.stringify(task.searches)}.map((q) => tools.$search(q, { limit: 3 })));
return found.flat().map((m) => m.declaration);`,
      "rc_1",
    );
    const declarations = (found.value as string[]).join("\n");
    // The script goes on only with what the search really returned, as a model would.
    for (const name of task.needs) {
      if (!declarations.includes(`${name}(`)) {
        throw new Error(
          `benchmark "tokens, big catalog": the search for "${task.name}" did not find ${name}`,
        );
      }
    }
  }
  const run = await codeTurn(talk, outer, task.code, "rc_2");
  sameAnswer(task, run.value, `run_code (${cm.discovery})`);
  talk.modelTurn({ role: "assistant", content: JSON.stringify(run.value) });
  return talk;
}

/** The three ways over the three tasks: tokens and model turns of each, every task solved. */
export async function bigCatalogTokens(count: CountTokens): Promise<{
  tools: number;
  ways: { name: string; tokens: number; turns: number; perTask: number[] }[];
}> {
  const tools = catalog();
  const toolset = new Toolset(tools);
  const inline = codeMode({ tools, discovery: "inline" });
  const searching = codeMode({ tools });
  if (searching.discovery !== "search")
    throw new Error('benchmark "tokens, big catalog": "auto" did not search');
  try {
    const ways = [
      { name: "direct tool calls", run: (task: Task) => direct(count, task, toolset) },
      { name: "run_code, declarations inline", run: (task: Task) => viaCode(count, task, inline) },
      { name: "run_code, discovery (default)", run: (task: Task) => viaCode(count, task, searching) },
    ];
    const out = [];
    for (const way of ways) {
      const talks = [];
      for (const task of TASKS) talks.push(await way.run(task));
      out.push({
        name: way.name,
        tokens: talks.reduce((sum, t) => sum + t.total, 0),
        turns: talks.reduce((sum, t) => sum + t.turns, 0),
        perTask: talks.map((t) => t.total),
      });
    }
    return { tools: tools.length, ways: out };
  } finally {
    await inline.close();
    await searching.close();
  }
}

/**
 * Where discovery starts to pay: the three tasks over growing parts of the catalog (the six tools the
 * tasks use, then the others in catalog order), with the declarations inline and with discovery, and
 * the declarations' estimated tokens (what `inlineBudget` is compared with).
 */
export async function breakEven(
  count: CountTokens,
): Promise<{ tools: number; declarationTokens: number; inline: number; search: number }[]> {
  const all = catalog();
  const ordered = [...all.filter((t) => t.name in RUNS), ...all.filter((t) => !(t.name in RUNS))];
  const rows = [];
  for (const size of [6, 12, 20, 30, 45, 60, 80]) {
    const tools = ordered.slice(0, size);
    const inline = codeMode({ tools, discovery: "inline" });
    const searching = codeMode({ tools, discovery: "search" });
    try {
      let inlineTokens = 0;
      let searchTokens = 0;
      for (const task of TASKS) {
        inlineTokens += (await viaCode(count, task, inline)).total;
        searchTokens += (await viaCode(count, task, searching)).total;
      }
      rows.push({
        tools: tools.length,
        declarationTokens: estimateTokens(inline.declarations),
        inline: inlineTokens,
        search: searchTokens,
      });
    } finally {
      await inline.close();
      await searching.close();
    }
  }
  return rows;
}
