/**
 * A hostile type-level program: TypeScript's checker driven into exponential work. It is cut off by the
 * check's time budget in the worker thread while the agent's event loop goes on; "block" refuses it,
 * "report" runs it unchecked with a note, and the next check works again.
 */

import { afterAll, describe, expect, it } from "vitest";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import { type CodeMode, codeMode, renderCodeRunResult } from "../../src/index.js";
import { countingShop } from "./typecheck-fixtures.js";

/** Twenty levels of a conditional type that doubles at each: TypeScript alone takes seconds on it. */
const EXPONENTIAL = `type T<N extends 0[], A> = N extends [0, ...infer R extends 0[]] ? T<R, [A, 1]> | T<R, [A, 2]> : A;
type X = T<[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 0>;
const x: X = 1 as any;
const order = await tools.get_order({ order_id: "A1" });
return order.amount;`;

const BUDGET_MS = 1_000;
const opened: CodeMode[] = [];
afterAll(() => Promise.all(opened.map((mode) => mode.close())));

function shopMode(typecheck: "block" | "report") {
  const shop = countingShop();
  const mode = codeMode({
    tools: shop.tools,
    environment: isolateEnvironment(),
    typecheck: { mode: typecheck, limits: { timeMs: BUDGET_MS } },
  });
  opened.push(mode);
  return { mode, ran: shop.ran };
}

/** Runs `work` while a timer on this thread ticks; resolves with the work's value and the ticks seen. */
async function whileTicking<T>(work: () => Promise<T>): Promise<{ value: T; ticks: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 10);
  try {
    const value = await work();
    return { value, ticks };
  } finally {
    clearInterval(timer);
  }
}

describe("a hostile type-level program", () => {
  it('"block": cut off by the budget, refused with a TypeCheckError saying so, while this thread keeps running', async () => {
    const { mode, ran } = shopMode("block");
    const { value: result, ticks } = await whileTicking(() => mode.run(EXPONENTIAL));
    expect(ticks).toBeGreaterThan(0);
    expect(result.status).toBe("error");
    expect(result.error?.name).toBe("TypeCheckError");
    expect(result.error?.message).toBe(
      `The code did not run: the type check took longer than its budget of ${BUDGET_MS} ms and was stopped, so it could not be checked. No tool was called. Write the code with simpler types (no deeply recursive or conditional types) and send it again.`,
    );
    expect(result.diagnostics).toEqual([]);
    expect(result.calls).toEqual([]);
    expect(ran.get_order).toBe(0);
    expect(renderCodeRunResult(result, 10_000)).toContain("took longer than its budget");
    // A new checker took the old one's place: the next run is checked and runs.
    const next = await mode.run(`const o = await tools.get_order({ order_id: "A1" });\nreturn o.amout;`);
    expect(next.diagnostics?.[0]).toMatchObject({ line: 2, fix: "amount" });
    const good = await mode.run(`const o = await tools.get_order({ order_id: "A1" });\nreturn o.amount;`);
    expect(good.value).toBe(40);
  });

  it('"report": runs it unchecked, with a note that says why', async () => {
    const { mode, ran } = shopMode("report");
    const { value: result, ticks } = await whileTicking(() => mode.run(EXPONENTIAL));
    expect(ticks).toBeGreaterThan(0);
    expect(result.status).toBe("ok");
    expect(result.value).toBe(40);
    expect(ran.get_order).toBe(1);
    expect(result.diagnostics).toBeUndefined();
    expect(result.logs[0]).toEqual({
      level: "warn",
      text: `Type check: the type check took longer than its budget of ${BUDGET_MS} ms and was stopped; the code ran unchecked.`,
    });
  });

  it("over the memory cap: the worker is ended by its own heap limit and the run refused", async () => {
    const shop = countingShop();
    const mode = codeMode({
      tools: shop.tools,
      environment: isolateEnvironment(),
      typecheck: { mode: "block", limits: { memoryMb: 128, timeMs: 60_000 } },
    });
    opened.push(mode);
    // A 10,000 by 10,000 grid of properties, compared one by one: far more symbols than the cap holds.
    const hungry = `type D = "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9";
type A = \`\${D}\${D}\${D}\${D}\`;
type M = { [K in A]: { [J in A]: K } };
const m = null as unknown as M;
const y: { [K in A]: { [J in A]: string } } = m;`;
    const result = await mode.run(hungry);
    expect(result.error?.name).toBe("TypeCheckError");
    expect(result.error?.message).toContain("needed more than its memory cap of 128 MB and was stopped");
    expect(shop.ran.get_order).toBe(0);
  });
});
