/**
 * What docs/code-mode.md says about runs with a model in the loop, held by running it: the table of
 * what the model reads for each way a run can fail is made here from real runs of run_code (so a changed
 * message shows as a diff of the table), and the order in which a gated call from code is decided is the
 * one the guide lists.
 */

import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type ApprovalHandler,
  type CodeMode,
  type CodeModeLimits,
  codeMode,
  type DispatchEvent,
  Dispatcher,
  runToolCalls,
  Toolset,
  tool,
} from "../../src/index.js";

const root = resolve(import.meta.dirname, "../..");
const GUIDE = "docs/code-mode.md";

const getOrder = tool({
  name: "get_order",
  description: "One order by its id.",
  input: z.object({ order_id: z.string() }),
  output: z.object({ order_id: z.string(), amount: z.number() }),
  run: ({ order_id }) => ({ order_id, amount: 38 }),
});
const refundOrder = tool({
  name: "refund_order",
  description: "Refund an order in full.",
  input: z.object({ order_id: z.string() }),
  needsApproval: true,
  run: ({ order_id }) => `refunded ${order_id}`,
});
const checkStock = tool({
  name: "check_stock",
  description: "How many of an item are in stock.",
  input: z.object({ item: z.string() }),
  run: (): number => {
    throw new Error("the warehouse is offline");
  },
});
const trackParcel = tool({
  name: "track_parcel",
  description: "Where a parcel is.",
  input: z.object({ parcel_id: z.string() }),
  timeout: 50,
  run: (_args, ctx) =>
    new Promise<string>((_resolve, reject) =>
      ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason)),
    ),
});
const tools = new Toolset([getOrder, refundOrder, checkStock, trackParcel]);

/** The limits the table's runs have, as the guide says above the table; the rest are the defaults. */
const LIMITS = { maxToolCalls: 3, maxResultChars: 1_000 };
/** Lower limits of the rows about them alone, so that no other row meets them first on a busy machine. */
const WALL_CLOCK = { timeoutMs: 1_000 };
const CPU_TIME = { cpuTimeMs: 500 };

type Mode = "plain" | "block" | "pause";

/** One way a run can fail: the table's first cell, and the code (with the code mode) that fails so. */
interface Failure {
  what: string;
  code: string;
  mode?: Mode;
  /** Limits of this row's code mode besides {@link LIMITS}. */
  limits?: Partial<CodeModeLimits>;
  /** Cancel the run this many ms after it starts, with this reason. */
  cancel?: { afterMs: number; reason: string };
}

const FAILURES: Failure[] = [
  { what: "the code throws", code: 'throw new Error("no such customer");' },
  { what: "the code does not parse", code: "const total = ;" },
  {
    what: "a name that does not exist",
    code: 'const order = await tools.get_order({ order_id: "A1" });\nreturn ordr.amount;',
  },
  { what: "a tool that does not exist", code: 'return await tools.get_ordr({ order_id: "A1" });' },
  {
    what: "a forgotten `await`",
    code: 'const order = tools.get_order({ order_id: "A1" });\nreturn order.amount.toFixed(2);',
  },
  { what: "a call's arguments are invalid", code: "return await tools.get_order({ order_id: 5 });" },
  { what: "a gated call nobody approves", code: 'return await tools.refund_order({ order_id: "A1" });' },
  { what: "a tool throws", code: 'return await tools.check_stock({ item: "lamp" });' },
  { what: "a tool times out", code: 'return await tools.track_parcel({ parcel_id: "P1" });' },
  {
    what: "one tool call too many",
    code: 'for (const id of ["A1", "A2", "A3", "A4"]) await tools.get_order({ order_id: id });',
  },
  {
    what: 'a type error, with `typecheck: "block"`',
    code: 'const order = await tools.get_order({ order_id: "A1" });\nreturn order.amout;',
    mode: "block",
  },
  { what: "the wall clock runs out", code: "await new Promise(() => {});", limits: WALL_CLOCK },
  { what: "the CPU time runs out", code: "while (true) {}", limits: CPU_TIME },
  {
    what: "the heap runs out",
    code: "const rows = [];\nwhile (true) rows.push(new Array(1_000_000).fill(1));",
  },
  { what: "a V8 fatal error ends the sandbox process", code: '"x".repeat(2 ** 28).split("");' },
  { what: "the result is too large", code: 'return "x".repeat(5_000);' },
  { what: "the code is too long", code: `return 1;${" ".repeat(100_001)}` },
  {
    what: "the run is cancelled",
    code: "await new Promise(() => {});",
    cancel: { afterMs: 200, reason: "the person pressed stop" },
  },
  {
    what: 'a gated call, with `approval: "pause"`',
    code: 'return await tools.refund_order({ order_id: "A1" });',
    mode: "pause",
  },
];

const codeModes = new Map<string, CodeMode>();

function codeModeFor(mode: Mode, limits: Partial<CodeModeLimits> = {}): CodeMode {
  const key = `${mode} ${JSON.stringify(limits)}`;
  let cm = codeModes.get(key);
  if (!cm) {
    cm = codeMode({
      tools,
      limits: { ...LIMITS, ...limits },
      typecheck: mode === "block" ? "block" : "off",
      ...(mode === "pause"
        ? { approval: "pause" as const, pause: { key: "a test key of at least sixteen bytes" } }
        : {}),
    });
    codeModes.set(key, cm);
  }
  return cm;
}

afterAll(async () => {
  for (const cm of codeModes.values()) await cm.close();
});

/** What the model reads when run_code runs `code`: the tool result's output, through a dispatcher. */
async function whatTheModelReads(failure: Failure): Promise<string> {
  const cm = codeModeFor(failure.mode ?? "plain", failure.limits);
  const outer = new Dispatcher(new Toolset([cm.tool]));
  const stop = new AbortController();
  const { cancel } = failure;
  const timer = cancel && setTimeout(() => stop.abort(new Error(cancel.reason)), cancel.afterMs);
  try {
    const call = { id: "call_1", name: "run_code", arguments: { code: failure.code } };
    const turn = await runToolCalls(outer, [call], { signal: stop.signal });
    return turn.results[0]!.output;
  } finally {
    clearTimeout(timer);
  }
}

/** A table row: the run, and what the model reads (the time it took as `…`, lines joined by <br>). */
function row(what: string, output: string): string {
  const text = output
    .replace(/ in \d+ ms;/, " in … ms;")
    .split("\n")
    .map((line) => line.replaceAll("|", "\\|"))
    .join("<br>");
  return `| ${what} | ${text} |`;
}

/** The lines of the guide between its run-failures markers. */
function tableInGuide(): string[] {
  const lines = readFileSync(join(root, GUIDE), "utf8").split("\n");
  const start = lines.findIndex((line) => line.startsWith("<!-- run-failures:"));
  const end = lines.indexOf("<!-- /run-failures -->");
  if (start < 0 || end < start) throw new Error(`${GUIDE} has no <!-- run-failures: ... --> section`);
  return lines.slice(start + 1, end);
}

describe("the guide's table of what the model reads when a run fails", () => {
  it("is what run_code answers for each of those runs", async () => {
    const rows = ["| the run | what the model reads |", "| --- | --- |"];
    for (const failure of FAILURES) rows.push(row(failure.what, await whatTheModelReads(failure)));
    expect(tableInGuide()).toEqual(rows);
  }, 120_000);

  it("states the limits those runs have", () => {
    const guide = readFileSync(join(root, GUIDE), "utf8").replace(/\s+/g, " ");
    const stated = (limits: Partial<CodeModeLimits>) =>
      Object.entries(limits)
        .map(([name, value]) => `${name}: ${value.toLocaleString("en-US").replaceAll(",", "_")}`)
        .join(", ");
    expect(guide).toContain(
      `limits: { ${stated(LIMITS)} }\`, and \`${stated(WALL_CLOCK)}\` and \`${stated(CPU_TIME)}\` in the rows of those limits`,
    );
  });
});

describe("who decides a gated call made from code, in the guide's order", () => {
  const code = 'try { return await tools.refund_order({ order_id: "A1" }); } catch (e) { return e.message; }';

  /** Runs the code through an outer dispatcher and says what the gated call came to. */
  async function decide(options: {
    inner?: ApprovalHandler;
    outer?: ApprovalHandler;
    reader?: (event: DispatchEvent) => void;
  }): Promise<unknown> {
    const cm = codeMode(
      options.inner ? { dispatcher: new Dispatcher(tools, { approvalHandler: options.inner }) } : { tools },
    );
    try {
      const outer = new Dispatcher(
        new Toolset([cm.tool]),
        options.outer ? { approvalHandler: options.outer } : {},
      );
      const turn = await runToolCalls(outer, [{ id: "call_1", name: "run_code", arguments: { code } }], {
        ...(options.reader ? { onStreamEvent: options.reader } : {}),
      });
      return JSON.parse(
        turn.results[0]!.output.split("\n")
          .find((line) => line.startsWith("result: "))!
          .slice(8),
      );
    } finally {
      await cm.close();
    }
  }

  const approveEach = (event: DispatchEvent) => {
    if (event.type === "approval_required") event.approve();
  };

  it("1. the reader of the turn's events decides first, over both dispatchers' handlers", async () => {
    expect(await decide({ reader: approveEach, inner: () => "deny", outer: () => "deny" })).toBe(
      "refunded A1",
    );
  });

  it("2. then the code mode's own dispatcher's handler, over the outer one's", async () => {
    expect(await decide({ reader: () => {}, inner: () => "deny", outer: () => "allow" })).toBe(
      "refund_order was not run: the call was denied.",
    );
  });

  it("2. else the handler of the dispatcher that runs run_code", async () => {
    expect(await decide({ outer: () => "allow" })).toBe("refunded A1");
  });

  it("3. nobody: denied, saying nobody approved it", async () => {
    expect(await decide({})).toBe("refund_order was not run: the call was denied: nobody approved it");
  });
});
