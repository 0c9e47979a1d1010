/**
 * A call the code awaits with nothing else in flight is offered to the host synchronously (isolated-vm's
 * applySync), and a tool that answers at once answers within it: one crossing instead of two. These tests hold the promise that made
 * that safe: every pattern that could run calls together still does, failures still name the line that
 * awaited them, and the promise a call returns gives the code nothing new to reach.
 */

import { describe, expect, it } from "vitest";
import { type CallRecord, resultOf, runOnce } from "./helpers.js";

/** The most calls that were in flight at one moment. */
function maxOverlap(calls: CallRecord[]): number {
  const edges = calls.flatMap((call) => [
    { at: call.start, step: 1 },
    { at: call.end ?? Number.POSITIVE_INFINITY, step: -1 },
  ]);
  edges.sort((a, b) => a.at - b.at || a.step - b.step);
  let now = 0;
  let most = 0;
  for (const edge of edges) {
    now += edge.step;
    most = Math.max(most, now);
  }
  return most;
}

describe("isolate environment: calls the code waits for", () => {
  it("answers calls awaited one after another, in order, with their values", async () => {
    const code = "let s = 0; for (let i = 0; i < 20; i++) s = await tools.add({ a: s, b: i }); return s;";
    const { outcome, bridge } = await runOnce(code);
    expect(outcome.status).toBe("ok");
    expect(resultOf(outcome)).toBe(190);
    expect(bridge.calls).toHaveLength(20);
    expect(maxOverlap(bridge.calls)).toBe(1);
  });

  it("answers calls awaited one after another whose tool answers on a later turn, a thousand times", async () => {
    const code =
      "let s = 0; for (let i = 0; i < 1000; i++) s = (await tools.later({ v: s + 1 })).v; return s;";
    const { outcome, bridge } = await runOnce(code, {
      tools: { later: (args) => new Promise((resolve) => setImmediate(() => resolve(args))) },
      limits: { maxToolCalls: 1000 },
    });
    expect(outcome.status).toBe("ok");
    expect(resultOf(outcome)).toBe(1000);
    expect(bridge.calls).toHaveLength(1000);
  });

  it("keeps calls mapped through async helpers running together", async () => {
    const code = `
      const one = async (i) => (await tools.sleep({ ms: 100, i })).slept;
      return await Promise.all([1, 2, 3, 4].map(one));`;
    const { outcome, bridge } = await runOnce(code);
    expect(resultOf(outcome)).toEqual([100, 100, 100, 100]);
    expect(maxOverlap(bridge.calls)).toBe(4);
  });

  it("keeps calls chained with .then in one expression running together", async () => {
    const code =
      "return await Promise.all([1, 2, 3].map((i) => tools.sleep({ ms: 100, i }).then((r) => r.slept + i)));";
    const { outcome, bridge } = await runOnce(code);
    expect(resultOf(outcome)).toEqual([101, 102, 103]);
    expect(maxOverlap(bridge.calls)).toBe(3);
  });

  it("keeps a call started earlier running while later calls are awaited one by one", async () => {
    const code = `
      const slow = tools.sleep({ ms: 400, which: "slow" });
      await null;
      for (let i = 0; i < 3; i++) await tools.sleep({ ms: 10, which: "fast" });
      return (await slow).slept;`;
    const { outcome, bridge } = await runOnce(code);
    expect(resultOf(outcome)).toBe(400);
    const slow = bridge.calls.find((call) => call.argsJson.includes("slow"))!;
    const fast = bridge.calls.filter((call) => call.argsJson.includes("fast"));
    expect(fast).toHaveLength(3);
    // All three quick calls ran while the slow one was in flight.
    for (const call of fast) expect(call.end!).toBeLessThan(slow.end!);
  });

  it("keeps workers that each await calls in a loop running together, round after round", async () => {
    const code = `
      const done = [];
      const worker = async (w) => { for (let i = 0; i < 3; i++) done.push((await tools.sleep({ ms: 100, w, i })).slept); };
      await Promise.all([worker(1), worker(2), worker(3)]);
      return done.length;`;
    const { outcome, bridge } = await runOnce(code);
    expect(resultOf(outcome)).toBe(9);
    // Each round's three calls were in flight together: no worker waited for another's later calls.
    for (const round of [0, 1, 2]) {
      const calls = bridge.calls.filter((call) => (JSON.parse(call.argsJson) as { i: number }).i === round);
      expect(calls).toHaveLength(3);
      expect(maxOverlap(calls)).toBe(3);
    }
  });

  it("names the line of the model's code that awaited a failed call, alone or among others", async () => {
    const alone = await runOnce("const x = 1;\nawait tools.fail({ message: 'alone' });");
    expect(alone.outcome.error?.stack).toMatch(/^ToolCallError: alone\n\s+at .*run_code\.js:2:\d+/);
    const together = await runOnce(
      "const x = 1;\n\nawait Promise.all([tools.sleep({ ms: 5 }), tools.fail({ message: 'together' })]);",
    );
    expect(together.outcome.error?.stack).toMatch(/^ToolCallError: together\n\s+at .*run_code\.js:3:\d+/);
  });

  it("still makes a call the code never awaited before the run ends", async () => {
    const { outcome, bridge } = await runOnce("tools.echo({ note: 'fire and forget' }); return 1;");
    expect(resultOf(outcome)).toBe(1);
    expect(bridge.calls.map((call) => call.argsJson)).toEqual(['{"note":"fire and forget"}']);
  });

  it("gives the code a plain promise: frozen prototype, constructor Promise, then on other promises as usual", async () => {
    const code = `
      const p = tools.echo({ v: 1 });
      const proto = Object.getPrototypeOf(p);
      const getter = Object.getOwnPropertyDescriptor(proto, "constructor").get;
      let getterConstructed = "no";
      try { new getter(); getterConstructed = "yes"; } catch (e) { getterConstructed = e.name; }
      const other = await proto.then.call(Promise.resolve(7), (v) => v * 2);
      const chained = p.then((v) => v);
      return {
        isPromise: p instanceof Promise,
        frozen: Object.isFrozen(proto),
        constructorIsPromise: p.constructor === Promise && getter.call({}) === Promise,
        getterConstructed, other,
        chainedIsPlain: Object.getPrototypeOf(chained) === Promise.prototype,
        value: await p,
      };`;
    const { outcome } = await runOnce(code);
    expect(resultOf(outcome)).toEqual({
      isPromise: true,
      frozen: true,
      constructorIsPromise: true,
      getterConstructed: "TypeError",
      other: 14,
      chainedIsPlain: true,
      value: { v: 1 },
    });
  });
});
