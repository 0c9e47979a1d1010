/**
 * What the QuickJS environment does that the conformance suite does not ask of every environment: a
 * trap of its WebAssembly instance or QuickJS's out-of-memory ends the run and leaves the agent's
 * process running (seen from a harness process), its memory limit holds for values that really take
 * memory, the guest sees only the prelude's globals, and QuickJS's words for a missing name get the
 * same explanations as V8's.
 */

import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { QUICKJS_ISOLATION, quickjsEnvironment } from "../../environments/quickjs/index.js";
import { type CodeMode, codeMode, tool } from "../../src/index.js";
import { type HarnessReport, runPayloadHarness } from "../security/payload-harness.js";

const HARNESS = fileURLToPath(new URL("./fixtures/trap.ts", import.meta.url));

interface Outcome {
  name: string;
  status: string;
  error?: { name: string; message: string };
  next: { status: string; value: unknown };
}

const payloads = [
  // QuickJS parses nested arrays recursively without its stack check: the host thread's stack runs out
  // inside the WebAssembly instance, a trap.
  { name: "deep JSON nesting", code: 'JSON.parse("[".repeat(1_000_000)).length' },
  { name: "out of memory", code: "const k = []; for (;;) k.push(new Array(100_000).fill(k.length));" },
  {
    name: "out of memory, caught",
    code: "try { const k = []; for (;;) k.push(new Array(100_000).fill(1)); } catch { return 'caught'; }",
  },
  { name: "a huge string", code: '"x".repeat(2**28).split("").length' },
];

describe("quickjs: traps and out of memory stay inside the sandbox", () => {
  let report: HarnessReport<Outcome> | undefined;
  beforeAll(async () => {
    report = await runPayloadHarness<Outcome>(HARNESS, payloads, { timeoutMs: 240_000 });
  }, 260_000);
  /** The harness's report of one payload; the harness must have survived it. */
  const outcomeOf = (name: string): Outcome => {
    if (report === undefined) throw new Error("the harness did not run");
    return report.outcomeOf(name);
  };

  it("the harness ran every payload and exited cleanly", () => {
    expect(report?.error).toBeUndefined();
    expect([...(report?.outcomes.keys() ?? [])]).toEqual(payloads.map((payload) => payload.name));
  });

  it("a trap inside the WebAssembly instance ends the run as a crash of the sandbox, and the next run works", () => {
    const outcome = outcomeOf("deep JSON nesting");
    expect(outcome.status).toBe("error");
    expect(outcome.error?.name).toBe("SandboxCrashed");
    expect(outcome.error?.message).toMatch(
      /WebAssembly instance stopped unexpectedly .*the agent's process is fine/,
    );
    expect(outcome.next).toEqual({ status: "ok", value: 2 });
  });

  it("an allocation past the memory limit ends the run as out of memory, and the next run works", () => {
    for (const name of ["out of memory", "a huge string"]) {
      const outcome = outcomeOf(name);
      expect(outcome.status, name).toBe("limit");
      expect(outcome.error?.name, name).toBe("MemoryLimit");
      expect(outcome.error?.message, name).toMatch(
        /limited to 32 MB \(memoryMb\).*the agent's process is fine/,
      );
      expect(outcome.next, name).toEqual({ status: "ok", value: 2 });
    }
  });

  it("code that catches QuickJS's out-of-memory error goes on within the limit", () => {
    expect(outcomeOf("out of memory, caught")).toMatchObject({
      status: "ok",
      next: { status: "ok", value: 2 },
    });
  });
});

describe("quickjs: the guest", () => {
  const environment = quickjsEnvironment();
  let cm: CodeMode;
  beforeAll(() => {
    const echo = tool({
      name: "echo",
      description: "Echo.",
      input: z.object({}).passthrough(),
      run: (args) => args,
    });
    cm = codeMode({ tools: [echo], environment });
  });
  afterAll(async () => {
    await cm.close();
    await environment.close();
  });

  it("sees no host link among the globals: only the language's own, QuickJS's and the prelude's", async () => {
    const result = await cm.run(`
      const names = Object.getOwnPropertyNames(globalThis);
      const fns = names.filter((n) => typeof globalThis[n] === "function" && /send|apply|host|cordon/i.test(n));
      return { fns, hasSend: typeof send, tools: typeof tools, echoed: await tools.echo({ a: 1 }) };`);
    expect(result.value).toEqual({ fns: [], hasSend: "undefined", tools: "object", echoed: { a: 1 } });
  });

  it("explains a name QuickJS says is not defined as V8's is: a blocked global says why", async () => {
    const blocked = await cm.run("setTimeout(() => 1, 10)");
    expect(blocked.error?.message).toMatch(
      /^setTimeout is not available in run_code: timers could outlive the run/,
    );
    const typo = await cm.run("const first = 1; frist");
    expect(typo.error?.message).toMatch(/^frist is not defined\. Did you mean `first`\?/);
  });

  it("says what it is in the model's instructions: an interpreter in WebAssembly, in the agent's process", () => {
    expect(cm.instructions).toContain(QUICKJS_ISOLATION);
  });
});

describe("quickjs: options", () => {
  it("refuses a warm other than 0 or 1, saying what it takes", () => {
    expect(() => quickjsEnvironment({ warm: 2 as 1 })).toThrow(/warm must be 0 or 1; got 2/);
  });

  it("runs without a spare when warm is 0", async () => {
    const environment = quickjsEnvironment({ warm: 0 });
    const cm = codeMode({ tools: [], environment });
    try {
      expect((await cm.run("6 * 7")).value).toBe(42);
    } finally {
      await cm.close();
      await environment.close();
    }
  });
});
