/**
 * Attacks aimed at what only the QuickJS environment has: the model's code runs on the agent's own
 * thread, where only QuickJS's interrupt handler can end it, and the guest reaches the host through
 * two host functions the prelude holds. Each test is named after the attack it tries.
 */

import { describe, expect, it } from "vitest";
import { MAX_NATIVE_LENGTH } from "../../environments/quickjs/array-guard.js";
import { quickjsEnvironment } from "../../environments/quickjs/index.js";
import type { BridgeCallOutcome, SandboxBridge } from "../../sandbox/contract/index.js";
import { LIMITS, openSandbox, resultOf, runOnce, sleep, useEnvironment } from "../isolate/helpers.js";
import { guardHost } from "./host-guard.js";

guardHost();

/** A bridge whose one tool `x` answers with `answer`, at once (synchronously) and asynchronously. */
function answering(answer: () => BridgeCallOutcome, logs: string[] = []): SandboxBridge {
  return {
    callTool: async () => answer(),
    callToolNow: () => answer(),
    log: (entry) => logs.push(entry.text),
  };
}

describe("[quickjs] security: attacks on an interpreter that runs on the agent's thread", () => {
  useEnvironment(() => quickjsEnvironment());

  describe("interrupt-handler bypass: built-ins that loop in C", () => {
    // Each loops over a length that has no memory behind it; QuickJS's C loop asks no interrupt handler.
    const loops: [string, string][] = [
      ["indexOf on a sparse array", "const a = []; a.length = 2 ** 32 - 1; a.indexOf(1);"],
      ["lastIndexOf on an array-like", "Array.prototype.lastIndexOf.call({ length: 2 ** 53 - 1 }, 1);"],
      ["includes on an array-like", "Array.prototype.includes.call({ length: 2 ** 40 }, 1);"],
      ["join with no separator", 'Array.prototype.join.call({ length: 2 ** 40 }, "");'],
      ["String() of a sparse array", "String(new Array(2 ** 30));"],
      ["copyWithin", "Array.prototype.copyWithin.call({ length: 2 ** 40 }, 0, 1);"],
      ["forEach over missing elements", "Array.prototype.forEach.call({ length: 2 ** 40 }, () => {});"],
      ["every", "Array.prototype.every.call({ length: 2 ** 40 }, () => false);"],
      ["reduce", "Array.prototype.reduce.call({ length: 2 ** 40, 0: 1 }, (a) => a);"],
      ["reverse", "Array.prototype.reverse.call({ length: 2 ** 40 });"],
      ["unshift", "Array.prototype.unshift.call({ length: 2 ** 40 }, 1);"],
      ["shift", "Array.prototype.shift.call({ length: 2 ** 40 });"],
      [
        "concat of a spreadable array-like",
        "[].concat({ length: 2 ** 40, [Symbol.isConcatSpreadable]: true });",
      ],
      ["flat", "Array.prototype.flat.call({ length: 2 ** 40 });"],
      ["flat of a sparse array inside", "const a = []; a.length = 2 ** 32 - 1; [a].flat();"],
      ["the sort of a sparse array", "const a = []; a[2 ** 31] = 1; a[0] = 2; a.sort();"],
      [
        "an iterator helper over a sparse array",
        "const a = []; a.length = 2 ** 32 - 1; a.values().drop(2 ** 32 - 2).next();",
      ],
    ];
    for (const [attack, code] of loops) {
      it(`${attack} ends at the CPU limit instead of holding the agent's thread`, async () => {
        const { outcome, elapsed } = await runOnce(code, { limits: { cpuTimeMs: 200, timeoutMs: 10_000 } });
        expect(outcome.status, attack).toBe("limit");
        expect(outcome.error?.name, attack).toBe("CpuTimeLimit");
        expect(elapsed).toBeLessThan(200 * 5 + 1_000);
      });
    }

    it("the wrapped Array methods over arrays longer than the C loop's bound give QuickJS's own results", async () => {
      const n = MAX_NATIVE_LENGTH + 10;
      const { outcome } = await runOnce(
        `
        const n = ${n};
        const sparse = []; sparse.length = n; sparse[3] = "a"; sparse[n - 2] = "b";
        const reversed = sparse.slice().reverse();
        const dense = Array.from({ length: n }, (_, i) => i);
        const like = { length: n, 5: "x" };
        return {
          reversed: [reversed === reversed.reverse().reverse(), reversed[1], reversed[n - 4], reversed.length],
          found: [sparse.indexOf("b"), sparse.lastIndexOf("a"), sparse.includes("b"), Array.prototype.indexOf.call(like, "x")],
          joined: sparse.join("").length,
          mapped: dense.map((x) => x * 2)[n - 1],
          filtered: dense.filter((x) => x % 1000 === 0).length,
          sorted: dense.slice().sort((a, b) => b - a)[0],
          flat: [[1, [2, [3]]], sparse].flat(2).length,
          flatMap: [1, 2].flatMap((x) => [x, [x]]),
          concat: [0].concat(sparse).length,
          spliced: dense.slice().splice(1, 2),
          same: Object.getPrototypeOf(dense.filter(() => true)) === Array.prototype,
          shapes: ["indexOf", "lastIndexOf", "join", "concat", "flat", "flatMap", "splice"].map((name) => [
            Array.prototype[name].name,
            Array.prototype[name].length,
          ]),
        };`,
        // Each element through the Proxy's traps: several times slower than QuickJS's C loop.
        { limits: { cpuTimeMs: 30_000, timeoutMs: 60_000 } },
      );
      expect(resultOf(outcome)).toEqual({
        reversed: [true, "b", "a", n],
        found: [n - 2, 3, true, 5],
        joined: 2,
        mapped: (n - 1) * 2,
        filtered: Math.ceil(n / 1000),
        sorted: n - 1,
        flat: 5,
        flatMap: [1, [1], 2, [2]],
        concat: n + 1,
        spliced: [1, 2],
        same: true,
        shapes: [
          ["indexOf", 1],
          ["lastIndexOf", 1],
          ["join", 1],
          ["concat", 1],
          ["flat", 0],
          ["flatMap", 1],
          ["splice", 2],
        ],
      });
    });

    it("a sort comparator that never returns ends at the CPU limit", async () => {
      const { outcome } = await runOnce("[3, 2, 1].sort(() => { for (;;) {} });", {
        limits: { cpuTimeMs: 200, timeoutMs: 10_000 },
      });
      expect(outcome.error?.name).toBe("CpuTimeLimit");
    });

    it("a string padded or repeated past the heap ends at the memory limit, not in the host", async () => {
      for (const code of ['"ab".padEnd(2 ** 29).length', '"abc".repeat(2 ** 27).length']) {
        const { outcome } = await runOnce(`return ${code};`, { limits: { memoryMb: 32 } });
        expect(["limit", "error"], code).toContain(outcome.status);
        expect(outcome.valueJson, code).toBeUndefined();
      }
    });
  });

  describe("memory: the heap limit holds for the sum of allocations, each under it", () => {
    // quickjs-emscripten's own limit refused only a single allocation over it: these reached 2 GB.
    const hoards: [string, string][] = [
      ["ArrayBuffers of 10 MB", "new ArrayBuffer(10_000_000)"],
      ["Float64Arrays of 10 MB", "new Float64Array(1_250_000).fill(1)"],
      ["strings of 10 MB", '"x".repeat(10_000_000) + k.length'],
      ["arrays of a million numbers", "new Array(1_000_000).fill(k.length)"],
      ["objects", "{ n: k.length, s: 'item ' + k.length }"],
    ];
    for (const [hoard, item] of hoards) {
      it(`${hoard}, kept, end the run at the memory limit`, async () => {
        const { outcome } = await runOnce(
          `const k = []; for (let i = 0; i < 1e8; i++) k.push(${item}); return k.length;`,
          {
            limits: { memoryMb: 32, cpuTimeMs: 20_000, timeoutMs: 30_000 },
          },
        );
        expect(outcome.status, hoard).toBe("limit");
        expect(outcome.error?.name, hoard).toBe("MemoryLimit");
        expect(outcome.error?.message, hoard).toMatch(/limited to 32 MB/);
      });
    }

    it("code that catches the out-of-memory error of its buffers goes on, within the limit", async () => {
      const { outcome } = await runOnce(
        "let k = []; try { for (;;) k.push(new ArrayBuffer(1_000_000)); } catch (e) { const n = k.length; k = null; return [e.message, n > 10, n < 32 + 16]; }",
        { limits: { memoryMb: 32 } },
      );
      // The limit is what the instance's memory may grow by: the free part of its first 16 MB comes on top.
      expect(resultOf(outcome)).toEqual(["out of memory", true, true]);
    });
  });

  describe("the host functions in the guest", () => {
    it("no host function (the prelude's send and applySync) is reachable by walking the global", async () => {
      const { outcome } = await runOnce(`
        const seen = new Set();
        const found = [];
        const queue = [globalThis];
        while (queue.length > 0 && seen.size < 20000) {
          const value = queue.shift();
          if ((typeof value !== "object" && typeof value !== "function") || value === null || seen.has(value)) continue;
          seen.add(value);
          if (typeof value === "function" && /send|applySync/.test(value.name)) found.push(value.name);
          queue.push(Object.getPrototypeOf(value));
          for (const key of Reflect.ownKeys(value)) {
            const descriptor = Object.getOwnPropertyDescriptor(value, key);
            if (descriptor) queue.push(descriptor.value, descriptor.get, descriptor.set);
          }
        }
        return { found, walked: seen.size };`);
      const value = resultOf(outcome) as { found: string[]; walked: number };
      expect(value.found).toEqual([]);
      expect(value.walked).toBeGreaterThan(100);
    });
  });

  describe("re-entrancy from a tool's answer", () => {
    for (const [way, end] of [
      ["cancels its run", (controller: AbortController) => controller.abort()],
      ["disposes the sandbox", (_controller: AbortController, dispose: () => void) => dispose()],
    ] as const) {
      it(`a tool that ${way} while it answers a call synchronously: the code reaches the host no more`, async () => {
        const sandbox = await openSandbox();
        const controller = new AbortController();
        const logs: string[] = [];
        let calls = 0;
        const bridge = answering(() => {
          calls++;
          if (calls === 1) end(controller, () => void sandbox.dispose());
          return { ok: true, valueJson: "1" };
        }, logs);
        const outcome = await sandbox.execute(
          {
            code: "await tools.x({}); console.log('after the end'); tools.x({}); await tools.x({});",
            toolNames: { x: "x" },
            limits: LIMITS,
          },
          bridge,
          controller.signal,
        );
        expect(outcome.status).toBe("cancelled");
        expect(logs).toEqual([]);
        expect(calls).toBe(1);
        expect(sandbox.alive).toBe(false);
      });
    }

    it("a tool that starts another run on the same sandbox as it answers is refused, and its own run goes on", async () => {
      const sandbox = await openSandbox();
      let inner: Promise<string> | undefined;
      const bridge = answering(() => {
        inner = sandbox
          .execute(
            { code: "return 5;", toolNames: {}, limits: LIMITS },
            answering(() => ({ ok: true, valueJson: "1" })),
            new AbortController().signal,
          )
          .then(
            () => "ran",
            (error: Error) => error.message,
          );
        return { ok: true, valueJson: "2" };
      });
      const outcome = await sandbox.execute(
        { code: "return await tools.x({});", toolNames: { x: "x" }, limits: LIMITS },
        bridge,
        new AbortController().signal,
      );
      expect(resultOf(outcome)).toBe(2);
      expect(await inner).toMatch(/already running code/);
      await sandbox.dispose();
    });

    it("a tool result nested 100,000 deep ends the run as a crash of the sandbox alone, and the next run works", async () => {
      const nested = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
      const sandbox = await openSandbox();
      const outcome = await sandbox.execute(
        { code: "const v = await tools.x({}); return typeof v;", toolNames: { x: "x" }, limits: LIMITS },
        answering(() => ({ ok: true, valueJson: nested })),
        new AbortController().signal,
      );
      expect(outcome.status).toBe("error");
      expect(outcome.error?.name).toBe("SandboxCrashed");
      expect(outcome.error?.message).toMatch(/the agent's process is fine/);
      expect(sandbox.alive).toBe(false);
      const next = await runOnce("return 2;");
      expect(resultOf(next.outcome)).toBe(2);
    });

    it("a tool that answers after its run timed out reaches no code: no log, no further call", async () => {
      const { outcome, bridge } = await runOnce(
        "await tools.sleep({ ms: 300 }); console.log('after'); await tools.add({ a: 1, b: 1 });",
        { limits: { timeoutMs: 100 } },
      );
      expect(outcome.status).toBe("timeout");
      await sleep(400);
      expect(bridge.logs).toEqual([]);
      expect(bridge.calls.map((call) => call.name)).toEqual(["sleep"]);
    });
  });
});
