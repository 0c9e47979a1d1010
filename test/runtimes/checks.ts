/**
 * The checks the runtime matrix (scripts/runtime-matrix.sh) runs on Bun, on Deno and in a workerd
 * Worker beside the environment conformance cases (./conformance.ts): what the cases do not ask, or ask
 * only where TypeScript can be stripped (the model's error line in plain JavaScript, the memory limit's
 * name, TypeScript or its refusal and what the model is told about it, JSON Schema tools, the Node-only
 * sandbox host, the default environment). Written for every runtime at once: no vitest (it runs on Node
 * only), no Node API, only what `cordon` exports; each program that runs them says how it gets its
 * environment and what its runtime cannot do.
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

/** The report lines: one per check, one per case that does not apply here (with why), then a summary. */
export function report(
  runtime: string,
  results: CheckResult[],
  ms: number,
  notApplicable: readonly { name: string; reason: string }[] = [],
): string[] {
  const lines = results.map(
    (result) =>
      `${result.ok ? "pass" : "FAIL"} ${runtime}: ${result.name} (${result.ms} ms)${result.detail ? `: ${result.detail}` : ""}`,
  );
  for (const each of notApplicable) lines.push(`n/a  ${runtime}: ${each.name}: ${each.reason}`);
  const failed = results.filter((result) => !result.ok).length;
  lines.push(
    `${runtime}: ${results.length - failed} passed, ${failed} failed, ${notApplicable.length} not applicable, in ${ms} ms`,
  );
  return lines;
}

/** The tool the runs call. */
function world() {
  const add = tool({
    name: "add",
    description: "Adds two numbers.",
    input: z.object({ a: z.number(), b: z.number() }),
    run: ({ a, b }) => a + b,
  });
  return { tools: [add] };
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
  body: (cm: CodeMode) => Promise<Verdict>,
  options: Partial<CodeModeOptions> = {},
): Promise<Verdict> {
  const cm = codeMode({ tools: world().tools, environment: setup.environment(), ...options });
  try {
    return await body(cm);
  } finally {
    await cm.close();
  }
}

/** A check of runs in a code mode (see {@link inCodeMode}). */
function runs(
  name: string,
  body: (cm: CodeMode) => Promise<Verdict>,
  options: Partial<CodeModeOptions> = {},
): Check {
  return { name: () => name, run: (setup) => inCodeMode(setup, body, options) };
}

const CHECKS: Check[] = [
  runs("a thrown error is reported on the model's own line", async (cm) => {
    const result = await cm.run("const t = { a: 1 };\n\nthrow new Error('bad ' + t.a);");
    return same(
      [result.status, result.error?.name, result.error?.message, result.error?.line],
      ["error", "Error", "bad 1", 3],
    );
  }),

  runs(
    "runaway allocation ends at the memory limit",
    async (cm) => {
      const result = await cm.run("const a = []; for (;;) a.push({ n: a.length });");
      return same([result.status, result.error?.name], ["limit", "MemoryLimit"]);
    },
    { limits: { memoryMb: 32 } },
  ),

  {
    name: (setup) =>
      setup.typescript
        ? "TypeScript's types are stripped and errors keep the TypeScript line"
        : "TypeScript is refused with a message saying to write plain JavaScript",
    run: (setup) =>
      inCodeMode(setup, async (cm) => {
        if (!setup.typescript) {
          const result = await cm.run("const n = 1;\nconst m: number = n;\nm");
          return result.status === "error" &&
            result.error?.message.includes("Write plain JavaScript") &&
            result.error.line === 2
            ? undefined
            : `expected an error on line 2 saying to write plain JavaScript, got ${JSON.stringify(result.error)}`;
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
      setup.typescript
        ? "the model is told to write TypeScript (instructions, run_code's description and its code argument)"
        : "the model is told to write plain JavaScript, never TypeScript (instructions, run_code's description and its code argument)",
    run: (setup) =>
      inCodeMode(setup, async (cm) => {
        const texts = {
          "the instructions": cm.instructions,
          "run_code's description": cm.tool.description,
          "run_code's code argument": JSON.stringify(cm.tool.parameters),
        };
        const promise = /\b(It is|Run|write) TypeScript\b|TypeScript to run|types are stripped/;
        for (const [where, text] of Object.entries(texts)) {
          const said = promise.exec(text)?.[0];
          if (setup.typescript && !said) return `${where} does not say the code is TypeScript`;
          if (!setup.typescript && said)
            return `${where} says "${said}", and TypeScript cannot be stripped here`;
          if (!setup.typescript && !text.includes("JavaScript"))
            return `${where} does not say to write JavaScript`;
        }
        return undefined;
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
