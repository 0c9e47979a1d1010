import { describe, expect, it } from "vitest";
import type { SandboxLimits } from "../../sandbox/contract/index.js";
import {
  ENGINE_ENVIRONMENTS,
  type Engine,
  LIMITS,
  makeBridge,
  openSandbox,
  resultOf,
  runOnce,
  sleep,
  toolNames,
  useEnvironment,
} from "../isolate/helpers.js";
import { guardHost } from "./host-guard.js";

guardHost();

/**
 * Runs code while a host interval ticks, to show the host's event loop kept running during the run;
 * `longestPause` is the longest the host's timers waited (ms), start and end included.
 */
async function runWatched(code: string, limits: Partial<SandboxLimits>) {
  let ticks = 0;
  let last = performance.now();
  let longestPause = 0;
  const tick = () => {
    const now = performance.now();
    longestPause = Math.max(longestPause, now - last);
    last = now;
  };
  const interval = setInterval(() => {
    ticks++;
    tick();
  }, 10);
  try {
    const result = await runOnce(code, { limits });
    tick();
    return { ...result, ticks, longestPause };
  } finally {
    clearInterval(interval);
  }
}

/**
 * Whether the host's event loop kept running: on V8 the code runs on a thread of its own and the host's
 * timers tick meanwhile. QuickJS runs on the agent's thread, where a stretch of code holds the event loop
 * until it waits or its interrupt handler ends it at the run's limit: the timers wait at most that long.
 */
function expectHostKeptRunning(
  engine: Engine,
  watched: { ticks: number; longestPause: number },
  limitMs: number,
): void {
  if (engine === "v8") expect(watched.ticks).toBeGreaterThan(0);
  else expect(watched.longestPause).toBeLessThan(limitMs * 5);
}

for (const { name, engine, create } of ENGINE_ENVIRONMENTS) {
  describe(`[${name}]`, () => {
    useEnvironment(create);

    describe("security: exhaustion attempts end with the right status within their limit", () => {
      it("an infinite loop ends at the CPU limit while the host keeps running", async () => {
        const watched = await runWatched("for (;;) {}", {
          cpuTimeMs: 200,
          timeoutMs: 10_000,
        });
        expect(watched.outcome.status).toBe("limit");
        expect(watched.outcome.error?.message).toMatch(/CPU time/);
        expect(watched.elapsed).toBeLessThan(200 * 5 + 1_000);
        expectHostKeptRunning(engine, watched, 200);
      });

      it("a microtask loop ends at the wall-clock timeout", async () => {
        const code = "await new Promise(() => { (function spin() { Promise.resolve().then(spin); })(); });";
        const watched = await runWatched(code, { timeoutMs: 300, cpuTimeMs: 60_000 });
        expect(watched.outcome.status).toBe("timeout");
        expect(watched.elapsed).toBeLessThan(300 * 5);
        expectHostKeptRunning(engine, watched, 300);
      });

      it("a never-settling thenable returned as the result ends at the timeout", async () => {
        const { outcome, elapsed } = await runWatched("return { then() {} };", { timeoutMs: 200 });
        expect(outcome.status).toBe("timeout");
        expect(elapsed).toBeLessThan(200 * 5);
      });

      it("a synchronous tool-call flood is refused in the sandbox after maxToolCalls and ends at the CPU limit", async () => {
        const code = "for (;;) { tools.add({ a: 1, b: 2 }).catch(() => {}); }";
        const { outcome, bridge, elapsed } = await runWatched(code, {
          maxToolCalls: 50,
          cpuTimeMs: 300,
          timeoutMs: 10_000,
        });
        expect(outcome.status).toBe("limit");
        expect(bridge.calls.length).toBeLessThanOrEqual(50);
        expect(elapsed).toBeLessThan(300 * 5 + 1_000);
      });

      it("an awaited tool-call flood ends at the timeout and no call reaches the bridge afterwards", async () => {
        const code = "for (;;) { try { await tools.add({ a: 1, b: 2 }); } catch {} }";
        const { outcome, bridge } = await runWatched(code, {
          maxToolCalls: 200,
          timeoutMs: 300,
          cpuTimeMs: 60_000,
        });
        expect(["timeout", "limit"]).toContain(outcome.status);
        const calls = bridge.calls.length;
        expect(calls).toBeLessThanOrEqual(200);
        await sleep(100);
        expect(bridge.calls.length).toBe(calls);
      });

      it("a console flood is capped inside the sandbox and ends at the timeout", async () => {
        const code = "for (;;) console.log('x'.repeat(1000));";
        const { outcome, bridge } = await runWatched(code, {
          maxLogChars: 5_000,
          timeoutMs: 300,
          cpuTimeMs: 60_000,
        });
        expect(outcome.status).toBe("timeout");
        expect(bridge.logs.reduce((sum, l) => sum + l.text.length, 0)).toBeLessThanOrEqual(5_000);
        expect(bridge.logs.length).toBeLessThanOrEqual(6);
      });

      it("a flood of empty console lines is capped too, and the host's timers keep running", async () => {
        const code = "for (;;) console.log();";
        const watched = await runWatched(code, {
          maxLogChars: 5_000,
          timeoutMs: 300,
          cpuTimeMs: 60_000,
        });
        expect(watched.outcome.status).toBe("timeout");
        // Each line costs at least one character of the cap, plus one notice at the end.
        expect(watched.bridge.logs.length).toBeLessThanOrEqual(5_001);
        expectHostKeptRunning(engine, watched, 300);
      });

      it("a huge array allocation ends at the memory limit", async () => {
        const code = "const big = []; for (let i = 0; i < 1e9; i++) big.push({ i, s: 'item ' + i });";
        const { outcome, elapsed } = await runWatched(code, {
          memoryMb: 32,
          timeoutMs: 20_000,
          cpuTimeMs: 20_000,
        });
        expect(outcome.status).toBe("limit");
        expect(outcome.error?.message).toMatch(/32 MB/);
        expect(elapsed).toBeLessThan(20_000);
      });

      it("a buffer larger than the memory limit is refused inside the sandbox", async () => {
        const code = "const buffer = new ArrayBuffer(1024 * 1024 * 1024); return buffer.byteLength;";
        const { outcome } = await runWatched(code, { memoryMb: 32 });
        expect(["error", "limit"]).toContain(outcome.status);
        expect(outcome.valueJson).toBeUndefined();
      });

      it("string doubling stops with an error or at the memory limit", async () => {
        const { outcome } = await runWatched("let s = 'x'; for (;;) s += s;", {
          memoryMb: 32,
          timeoutMs: 10_000,
        });
        expect(["error", "limit"]).toContain(outcome.status);
      });

      it("deep recursion is a catchable RangeError and the sandbox stays usable", async () => {
        const sandbox = await openSandbox();
        const signal = new AbortController().signal;
        const first = await sandbox.execute(
          { code: "function f(n) { return f(n + 1) + 1; }\nf(0);", toolNames: toolNames(), limits: LIMITS },
          makeBridge(),
          signal,
        );
        expect(first.status).toBe("error");
        // V8 throws a RangeError; QuickJS an InternalError at its own stack limit, well before the
        // host thread's stack (which its frames share) runs out.
        expect(first.error).toMatchObject(
          engine === "v8"
            ? { name: "RangeError", message: "Maximum call stack size exceeded" }
            : { name: "InternalError", message: "stack overflow" },
        );
        expect(sandbox.alive).toBe(true);
        const second = await sandbox.execute(
          { code: "return 'still alive';", toolNames: {}, limits: LIMITS },
          makeBridge(),
          signal,
        );
        expect(resultOf(second)).toBe("still alive");
        await sandbox.dispose();
      });

      it("deep recursion can be caught by the code itself", async () => {
        const { outcome } = await runOnce(
          "function f(n) { return f(n + 1) + 1; }\ntry { f(0); } catch (e) { return [e.name, e instanceof Error]; }",
        );
        expect(resultOf(outcome)).toEqual([engine === "v8" ? "RangeError" : "InternalError", true]);
      });

      it("a catastrophic regular expression ends at the CPU limit", async () => {
        const code = "return /^(a+)+$/.test('a'.repeat(40) + 'b');";
        const { outcome, elapsed } = await runWatched(code, { cpuTimeMs: 200, timeoutMs: 10_000 });
        expect(outcome.status).toBe("limit");
        expect(elapsed).toBeLessThan(200 * 5 + 1_000);
      });

      it("Atomics.wait cannot block: there is no shared memory to wait on", async () => {
        const code = "Atomics.wait(new Int32Array(new ArrayBuffer(16)), 0, 0);";
        const { outcome, elapsed } = await runWatched(code, { timeoutMs: 2_000 });
        expect(outcome.status).toBe("error");
        if (engine === "v8") expect(outcome.error?.name).toBe("TypeError");
        else {
          // QuickJS is built without Atomics: there is nothing at all to wait with.
          expect(outcome.error?.name).toBe("ReferenceError");
          expect(outcome.error?.message).toMatch(/^Atomics is not defined/);
        }
        expect(elapsed).toBeLessThan(2_000);
      });

      it("WebAssembly memory cannot be grown outside the heap limit: WebAssembly is absent", async () => {
        const code = "const m = new WebAssembly.Memory({ initial: 1, maximum: 65536 }); m.grow(60000);";
        const { outcome } = await runWatched(code, {});
        expect(outcome.status).toBe("error");
        expect(outcome.error?.message).toMatch(/^WebAssembly is not available in run_code/);
      });

      it("FinalizationRegistry callbacks cannot be scheduled to run after the run", async () => {
        const { outcome } = await runWatched(
          "new FinalizationRegistry(() => { for (;;) {} }).register({}, 1);",
          {},
        );
        expect(outcome.status).toBe("error");
        expect(outcome.error?.message).toMatch(/^FinalizationRegistry is not available in run_code/);
      });

      it("a result far over maxResultChars is refused in the sandbox", async () => {
        const { outcome } = await runWatched("return 'x'.repeat(5_000_000);", { maxResultChars: 1_000 });
        expect(outcome.status).toBe("limit");
        expect(outcome.valueJson).toBeUndefined();
        expect(outcome.error?.message).toContain("5000002 characters");
      });

      it("many sandboxes opened and killed leave nothing running", async () => {
        const outcomes = await Promise.all(
          Array.from({ length: 8 }, () =>
            runOnce("for (;;) {}", { limits: { timeoutMs: 200, cpuTimeMs: 60_000 } }),
          ),
        );
        for (const { outcome, sandbox } of outcomes) {
          expect(outcome.status).toBe("timeout");
          expect(sandbox.alive).toBe(false);
        }
      });
    });
  });
}
