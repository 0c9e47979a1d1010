/**
 * The checks the runtime matrix (scripts/runtime-matrix.sh) runs on Bun, on Deno and in a workerd
 * Worker: code mode with tools on the QuickJS environment, each run checked for its value. Written for
 * every runtime at once: no vitest (it runs on Node only), no Node API, only what `cordon` exports; each
 * program that runs them says how it gets its environment and what its runtime cannot do.
 */

import {
  type CodeMode,
  type CodeModeOptions,
  codeMode,
  type Environment,
  sandboxHostEnvironment,
  tool,
} from "cordon";
import { z } from "zod";

/** One check's outcome: what it checked, and what was wrong when it failed. */
export interface CheckResult {
  name: string;
  ok: boolean;
  detail?: string;
  ms: number;
}

/** How a runtime gets what the checks need, and what it cannot do. */
export interface CheckSetup {
  /** A new QuickJS environment (in workerd, built on a WebAssembly module that was imported). */
  environment(): Environment;
  /** Whether esbuild can strip TypeScript here (it runs as a process of its own: not in workerd). */
  typescript: boolean;
  /** Whether a tool may take a plain JSON Schema (Ajv generates code: not in workerd). */
  jsonSchemaTools: boolean;
  /**
   * Whether `codeMode()` without an environment runs code here, or (workerd) refuses to start, saying how
   * to give QuickJS its wasm as a module.
   */
  defaultEnvironment: "runs" | "asks for the wasm module";
  /** Lines the runtime wrote with console.warn while the checks ran (the default environment's notice). */
  warnings(): string[];
}

/** What a check returns: undefined when it holds, else what was wrong. */
type Verdict = string | undefined;

interface Check {
  name(setup: CheckSetup): string;
  run(setup: CheckSetup): Promise<Verdict>;
}

/** Runs every check, one after another, and returns each outcome (never throws). */
export async function runChecks(setup: CheckSetup): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const check of CHECKS) {
    const started = Date.now();
    let detail: Verdict;
    try {
      detail = await check.run(setup);
    } catch (error) {
      detail = `threw ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
    }
    results.push({
      name: check.name(setup),
      ok: detail === undefined,
      ...(detail ? { detail } : {}),
      ms: Date.now() - started,
    });
  }
  return results;
}

/** The report lines: one per check, then a summary. */
export function report(runtime: string, results: CheckResult[], ms: number): string[] {
  const lines = results.map(
    (result) =>
      `${result.ok ? "pass" : "FAIL"} ${runtime}: ${result.name} (${result.ms} ms)${result.detail ? `: ${result.detail}` : ""}`,
  );
  const failed = results.filter((result) => !result.ok).length;
  lines.push(`${runtime}: ${results.length - failed} passed, ${failed} failed, in ${ms} ms`);
  return lines;
}

/** The tools the runs call, and the most `wait` calls that were running at once. */
function world() {
  let active = 0;
  let peak = 0;
  const add = tool({
    name: "add",
    description: "Adds two numbers.",
    input: z.object({ a: z.number(), b: z.number() }),
    run: ({ a, b }) => a + b,
  });
  const fail = tool({
    name: "fail",
    description: "Always fails.",
    input: z.object({}),
    run: () => {
      throw new Error("it broke");
    },
  });
  const wait = tool({
    name: "wait",
    description: "Waits, counting how many calls wait at once.",
    input: z.object({ ms: z.number() }),
    run: async ({ ms }) => {
      peak = Math.max(peak, ++active);
      await new Promise((resolve) => setTimeout(resolve, ms));
      active--;
      return ms;
    },
  });
  const gated = tool({
    name: "gated",
    description: "Runs once a person approves it.",
    input: z.object({}),
    needsApproval: true,
    run: () => "approved",
  });
  return { tools: [add, fail, wait, gated], peak: () => peak };
}

/** A tool whose input is a plain JSON Schema (validated by Ajv). */
const echo = () =>
  tool({
    name: "echo",
    description: "Echoes n.",
    input: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } as const,
    run: (args) => args,
  });

/** Same JSON, or what differs. */
function same(actual: unknown, expected: unknown): Verdict {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  return a === e ? undefined : `expected ${e}, got ${a}`;
}

/** The message of what `body` throws, or undefined when it throws nothing. */
function thrown(body: () => void): string | undefined {
  try {
    body();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Runs `body` in a code mode over the setup's environment, with the tools of {@link world}, then closes it. */
async function inCodeMode(
  setup: CheckSetup,
  body: (cm: CodeMode, peak: () => number) => Promise<Verdict>,
  options: Partial<CodeModeOptions> = {},
): Promise<Verdict> {
  const { tools, peak } = world();
  const cm = codeMode({ tools, environment: setup.environment(), ...options });
  try {
    return await body(cm, peak);
  } finally {
    await cm.close();
  }
}

/** A check of runs in a code mode (see {@link inCodeMode}). */
function runs(
  name: string,
  body: (cm: CodeMode, peak: () => number) => Promise<Verdict>,
  options: Partial<CodeModeOptions> = {},
): Check {
  return { name: () => name, run: (setup) => inCodeMode(setup, body, options) };
}

const CHECKS: Check[] = [
  runs("a run calls a tool and returns the last expression", async (cm) => {
    const result = await cm.run("const s = await tools.add({ a: 1, b: 2 });\ns * 14");
    return (
      same([result.status, result.value], ["ok", 42]) ??
      same(
        result.calls.map((call) => [call.tool, call.status]),
        [["add", "ok"]],
      )
    );
  }),

  runs("a Promise.all fan-out runs its calls concurrently", async (cm, peak) => {
    const result = await cm.run(
      "(await Promise.all([1, 2, 3, 4, 5, 6].map(() => tools.wait({ ms: 100 })))).length",
    );
    return same(result.value, 6) ?? (peak() > 1 ? undefined : `peak concurrency ${peak()}, expected > 1`);
  }),

  runs("a failed tool call rejects with a catchable ToolCallError", async (cm) => {
    const result = await cm.run(
      "const s = await tools.add({ a: 1, b: 2 });\ntry { await tools.fail({}); } catch (e) { return [s, e.name, e.tool, e.kind]; }",
    );
    return same(result.value, [3, "ToolCallError", "fail", "error"]);
  }),

  runs("a thrown error is reported on the model's own line", async (cm) => {
    const result = await cm.run("const t = { a: 1 };\n\nthrow new Error('bad ' + t.a);");
    return same(
      [result.status, result.error?.name, result.error?.message, result.error?.line],
      ["error", "Error", "bad 1", 3],
    );
  }),

  runs("console output comes back with its levels", async (cm) => {
    const result = await cm.run("console.log('a', 1); console.warn('b'); 0");
    return same(result.logs, [
      { level: "log", text: "a 1" },
      { level: "warn", text: "b" },
    ]);
  }),

  runs(
    "a run that never finishes ends at its timeout",
    async (cm) => {
      const result = await cm.run("await new Promise(() => {});");
      return same([result.status, result.error?.name], ["timeout", "Timeout"]);
    },
    { limits: { timeoutMs: 300 } },
  ),

  runs(
    "a CPU loop ends at the CPU limit",
    async (cm) => {
      const result = await cm.run("for (;;) {}");
      return same([result.status, result.error?.name], ["limit", "CpuTimeLimit"]);
    },
    { limits: { cpuTimeMs: 300 } },
  ),

  runs(
    "runaway allocation ends at the memory limit",
    async (cm) => {
      const result = await cm.run("const a = []; for (;;) a.push({ n: a.length });");
      return same([result.status, result.error?.name], ["limit", "MemoryLimit"]);
    },
    { limits: { memoryMb: 32 } },
  ),

  runs(
    "a run pauses at a gated call, and its checkpoint resumes by replay",
    async (cm) => {
      const paused = await cm.run(
        "const a = await tools.add({ a: 1, b: 2 });\nconst b = await tools.gated({});\n[a, b]",
      );
      const pending = paused.pending?.[0];
      if (paused.status !== "paused" || !paused.checkpoint || !pending)
        return `expected a paused run, got ${JSON.stringify([paused.status, paused.error])}`;
      const resumed = await cm.resume(paused.checkpoint, { decisions: { [pending.id]: true } });
      return same([resumed.status, resumed.value], ["ok", [3, "approved"]]);
    },
    { approval: "pause", pause: { key: "runtime matrix checkpoint key, 32 bytes" } },
  ),

  {
    name: (setup) =>
      setup.typescript
        ? "TypeScript's types are stripped and errors keep the TypeScript line"
        : "TypeScript is refused with a message saying to write plain JavaScript",
    run: (setup) =>
      inCodeMode(setup, async (cm) => {
        if (!setup.typescript) {
          const result = await cm.run("const n: number = 1;\nn");
          return result.status === "error" && result.error?.message.includes("Write plain JavaScript")
            ? undefined
            : `expected an error saying to write plain JavaScript, got ${JSON.stringify(result.error)}`;
        }
        const ok = await cm.run("type N = number;\nconst n: N = await tools.add({ a: 20, b: 22 });\nn");
        const failed = await cm.run(
          "type T = { a: number };\nconst t: T = { a: 1 };\nthrow new Error('bad ' + t.a);",
        );
        return same([ok.value, failed.error?.message, failed.error?.line], [42, "bad 1", 3]);
      }),
  },

  {
    name: (setup) =>
      setup.jsonSchemaTools
        ? "a tool with a plain JSON Schema input validates its arguments"
        : "a tool with a plain JSON Schema input is refused at once, saying to use zod",
    run: async (setup) => {
      if (!setup.jsonSchemaTools) {
        const message = thrown(echo);
        return message?.includes("give the tool a zod schema") ? undefined : `got ${message ?? "no error"}`;
      }
      return inCodeMode(
        setup,
        async (cm) => {
          const result = await cm.run(
            "const ok = await tools.echo({ n: 2 });\ntry { await tools.echo({ n: 'x' }); } catch (e) { return [ok.n, e.kind]; }",
          );
          return same(result.value, [2, "invalid_arguments"]);
        },
        { tools: [echo()] },
      );
    },
  },

  {
    name: () => "sandboxHostEnvironment() says at once that it needs Node, and what to use instead",
    run: async () => {
      const message = thrown(() => void sandboxHostEnvironment().close());
      return message && /cannot load on .+: use quickjsEnvironment\(\) from cordon\/quickjs/.test(message)
        ? undefined
        : `expected a message naming quickjsEnvironment(), got ${message ?? "an environment"}`;
    },
  },

  {
    name: (setup) =>
      setup.defaultEnvironment === "runs"
        ? "codeMode() without an environment runs in QuickJS and says so in one line"
        : "codeMode() without an environment says so in one line, and how to give QuickJS its wasm module",
    run: async (setup) => {
      const before = setup.warnings().length;
      const cm = codeMode({ tools: world().tools });
      try {
        const said = setup.warnings().slice(before);
        const result = await cm.run("await tools.add({ a: 40, b: 2 })");
        const outcome =
          setup.defaultEnvironment === "runs"
            ? same(result.value, 42)
            : result.error?.message.includes("newVariant(releaseSync, { wasmModule })")
              ? undefined
              : `expected an error saying how to pass the wasm module, got ${JSON.stringify(result.error)}`;
        const notice = /^cordon: isolated-vm cannot load on .+; code runs in quickjsEnvironment\(\)/;
        return (
          outcome ??
          (said.length === 1 && notice.test(said[0]!)
            ? undefined
            : `expected one notice, got ${JSON.stringify(said)}`) ??
          (cm.instructions.includes("QuickJS")
            ? undefined
            : "the instructions do not say the code runs in QuickJS")
        );
      } finally {
        await cm.close();
      }
    },
  },
];
