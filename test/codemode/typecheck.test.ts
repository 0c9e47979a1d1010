/**
 * typecheck "block", "report" and "off": what each does with code that has a type error, and that good
 * code (top-level await and return, a last expression, an async arrow function) is never stopped.
 */

import { afterAll, describe, expect, it } from "vitest";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import { MAX_TYPE_DIAGNOSTICS } from "../../src/codemode/typecheck/limits.js";
import { type CodeMode, codeMode, renderCodeRunResult } from "../../src/index.js";
import { countingShop } from "./typecheck-fixtures.js";

const open: CodeMode[] = [];
function shopMode(typecheck: "block" | "report" | "off") {
  const shop = countingShop();
  const mode = codeMode({ tools: shop.tools, environment: isolateEnvironment(), typecheck });
  open.push(mode);
  return { mode, ran: shop.ran };
}
afterAll(async () => {
  await Promise.all(open.map((mode) => mode.close()));
});

/** A refund, then a misspelt argument three lines later: the run that stops halfway without a check. */
const REFUND_THEN_TYPO = `const order = await tools.get_order({ order_id: "A1" });
await tools.refund_order({ order_id: order.id, amount: order.amount });
const again = await tools.get_order({ order_id: "A2" });
await tools.refund_order({ order_id: again.id, amout: again.amount });
return again.status;`;

describe('typecheck "block"', () => {
  const { mode, ran } = shopMode("block");

  it("stops a wrong call before any tool runs: no call, the error and its diagnostic on the model's line", async () => {
    const result = await mode.run(REFUND_THEN_TYPO);
    expect(ran).toEqual({ get_order: 0, refund_order: 0, list_orders: 0, notes: 0 });
    expect(result.status).toBe("error");
    expect(result.error?.name).toBe("TypeCheckError");
    expect(result.calls).toEqual([]);
    expect(result.diagnostics).toHaveLength(1);
    expect(result.diagnostics?.[0]).toMatchObject({ line: 4, column: 48, code: 2561, fix: "amount" });
    expect(result.diagnostics?.[0]?.message).toMatch(
      /'amout' does not exist .*Did you mean to write 'amount'\?/,
    );
  });

  it("renders each diagnostic for the model with its line of code, a caret and the fix", async () => {
    const result = await mode.run(REFUND_THEN_TYPO);
    const report = renderCodeRunResult(result, 10_000);
    expect(report).toContain("no tool calls");
    expect(report).toContain("TypeCheckError: The code did not run: TypeScript found 1 type error");
    expect(report).toContain("line 4, column 48: ");
    expect(report).toContain("[TS2561] Fix: amount");
    expect(report).toContain(
      `  await tools.refund_order({ order_id: again.id, amout: again.amount });\n${" ".repeat(49)}^`,
    );
  });

  it("reports a misspelt result property, a missing await, a wrong enum literal and a call without tools.", async () => {
    const result = await mode.run(`const order = await tools.get_order({ order_id: "A1" });
const total = order.amout * 2;
const pending = tools.get_order({ order_id: "A2" });
console.log(pending.status);
const ids = await tools.list_orders({ customer: "c", status: "pending" });
await refund_order({ order_id: "A1", amount: 1 });
return { total, ids };`);
    expect(result.error?.name).toBe("TypeCheckError");
    expect(result.diagnostics?.map(({ line, code, fix }) => ({ line, code, fix }))).toEqual([
      { line: 2, code: 2551, fix: "amount" },
      { line: 4, code: 2339, fix: undefined },
      { line: 5, code: 2322, fix: undefined },
      { line: 6, code: 2304, fix: "tools.refund_order" },
    ]);
    expect(result.diagnostics?.[1]?.message).toContain("Did you forget to use 'await'?");
    expect(ran.get_order).toBe(0);
  });

  it(`lists at most ${MAX_TYPE_DIAGNOSTICS} diagnostics and counts the rest`, async () => {
    const lines = Array.from({ length: MAX_TYPE_DIAGNOSTICS + 3 }, (_, i) => `const v${i}: number = "${i}";`);
    const result = await mode.run(lines.join("\n"));
    expect(result.diagnostics).toHaveLength(MAX_TYPE_DIAGNOSTICS);
    expect(result.error?.message).toContain("TypeScript found 8 type errors");
    expect(result.error?.message).toContain("…and 3 more not shown.");
  });

  it("runs good code: top-level await and return, optional fields, try/catch, JSON, untyped outputs", async () => {
    const result = await mode.run(`const ids = await tools.list_orders({ customer: "c" });
const orders = await Promise.all(ids.map((order_id) => tools.get_order({ order_id })));
const paid = orders.filter((o) => o.status === "paid");
const notes = await tools.notes({ customer: "c" });
let refunded = 0;
try {
  const { refunded: r } = await tools.refund_order({ order_id: paid[0].id, amount: paid[0].amount / 2 });
  refunded = r;
} catch (error) {
  console.log(error.message, error instanceof ToolCallError ? error.kind : "");
}
const parsed = JSON.parse(JSON.stringify({ at: new Date(0).toISOString() }));
return { paid: paid.length, email: orders[0].email?.toLowerCase() ?? "none", first: notes.lines[0], refunded, at: parsed.at.slice(0, 4) };`);
    expect(result.error).toBeUndefined();
    expect(result.diagnostics).toBeUndefined();
    expect(result.value).toEqual({ paid: 2, email: "none", first: "likes tea", refunded: 20, at: "1970" });
  });

  it("runs a last expression, an async arrow function and a fenced block", async () => {
    const last = await mode.run(`const o = await tools.get_order({ order_id: "A1" });\no.amount + 1`);
    expect(last.value).toBe(41);
    const arrow = await mode.run(
      `async () => {\n  const o = await tools.get_order({ order_id: "A1" });\n  return o.status;\n}`,
    );
    expect(arrow.value).toBe("paid");
    const fenced = await mode.run("Here it is:\n```ts\nconst n: number = 2;\nn * 3\n```");
    expect(fenced.value).toBe(6);
    const fencedWrong = await mode.run("```ts\nconst n: number = 2;\nn.toUpperCase()\n```");
    expect(fencedWrong.diagnostics?.[0]).toMatchObject({ line: 2, column: 3, code: 2339 });
  });

  it("checks against the sandbox's globals: no timers, fetch or process; console and queueMicrotask are there", async () => {
    const result = await mode.run(`setTimeout(() => {}, 1);
await fetch("https://example.com");
process.exit(1);
new SharedArrayBuffer(8);
queueMicrotask(() => console.debug("later"));`);
    expect(result.diagnostics?.map((d) => [d.line, d.code])).toEqual([
      [1, 2304],
      [2, 2304],
      [3, 2591],
      [4, 2693],
    ]);
  });

  it("accepts a tool name that the dispatcher repairs, and says the real name", async () => {
    const ok = await mode.run(`const o = await tools.getOrder({ order_id: "A1" });\nreturn o.amount;`);
    expect(ok.value).toBe(40);
    expect(ok.calls.map((call) => [call.requested, call.tool])).toEqual([["getOrder", "get_order"]]);
    // Its arguments are still checked against the real tool's declaration, and the report names it.
    const wrong = await mode.run(`const o = await tools.getOrder({ id: "A1" });\nreturn o.amount;`);
    expect(wrong.diagnostics?.map((d) => d.line)).toEqual([1]);
    expect(wrong.error?.message).toContain(
      "Note: tools.getOrder is not a declared name, but it reaches the tool get_order: it works, and get_order is its real name.",
    );
  });
});

describe('typecheck "report"', () => {
  const { mode, ran } = shopMode("report");

  it("runs the code anyway and adds the diagnostics to the result and the report", async () => {
    const result = await mode.run(`const o = await tools.get_order({ order_id: "A1" });\nreturn o.amout;`);
    expect(ran.get_order).toBe(1);
    expect(result.status).toBe("ok");
    expect(result.calls).toHaveLength(1);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ line: 2, column: 10, code: 2551, fix: "amount" }),
    ]);
    const report = renderCodeRunResult(result, 10_000);
    expect(report).toContain("type errors (the code ran anyway):\nline 2, column 10: Property 'amout'");
  });

  it("leaves diagnostics out when the code is clean", async () => {
    const result = await mode.run(`const o = await tools.get_order({ order_id: "A1" });\nreturn o.amount;`);
    expect(result.diagnostics).toBeUndefined();
    expect(result.value).toBe(40);
  });
});

describe('typecheck "off"', () => {
  const { mode, ran } = shopMode("off");

  it("runs as today: the refund is made, then the typo fails at run time", async () => {
    const result = await mode.run(REFUND_THEN_TYPO);
    expect(ran.refund_order).toBe(1);
    expect(result.diagnostics).toBeUndefined();
    expect(result.calls.map((call) => call.status)).toEqual(["ok", "ok", "ok", "invalid_arguments"]);
  });
});
