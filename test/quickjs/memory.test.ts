/**
 * The QuickJS environment's memory limit holds in bytes: each payload goes after it in a way QuickJS's
 * own accounting (about 8 bytes per allocation in quickjs-emscripten's builds, whatever its size) let
 * through, and runs in a harness process, so that the agent's process peak memory can be read. Each
 * ends as MemoryLimit (not ok, not a timeout, not an empty error), the next run in the same
 * environment works, and the process's peak grows by no more than the sandbox's cap.
 */

import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { quickjsEnvironment } from "../../environments/quickjs/index.js";
import { codeMode, tool } from "../../src/index.js";
import { type HarnessReport, runPayloadHarness } from "../security/payload-harness.js";

const HARNESS = fileURLToPath(new URL("./fixtures/memory.ts", import.meta.url));

/** The harness's memoryMb. */
const MEMORY_MB = 32;
/** A QuickJS instance's memory before the code runs (the default build's initial memory, prelude in). */
const BASELINE_MB = 16;
/** Room for what the host's own heap does meanwhile (code mode, the JSON of each line). */
const HOST_MB = 16;

interface Outcome {
  name: string;
  status: string;
  value?: unknown;
  error?: { name: string; message: string };
  next: { status: string; value: unknown };
  peakRssMb: number;
}

const payloads = [
  {
    name: "many 1 KB strings past the limit",
    code: "const k = []; for (let i = 0; i < 100_000; i++) k.push('x'.repeat(1000) + i); k.length",
  },
  {
    name: "ArrayBuffers each under the limit, together past it",
    code: "const k = []; for (let i = 0; i < 8; i++) k.push(new ArrayBuffer(30 * 2**20)); k.length",
  },
  { name: "one huge ArrayBuffer", code: "new ArrayBuffer(2**30).byteLength" },
  { name: "one huge string", code: "'x'.repeat(2**29).length" },
  { name: "a string grown by concatenation without end", code: "let s = ''; for (;;) s += 'x'.repeat(32);" },
  {
    name: "a Map filled until not even the out-of-memory error fits",
    code: "const m = new Map(); for (let i = 0; ; i++) m.set(i, 'v' + i);",
  },
];

describe("quickjs: the memory limit holds in bytes of the sandbox's WebAssembly memory", () => {
  let report: HarnessReport<Outcome> | undefined;
  beforeAll(async () => {
    report = await runPayloadHarness<Outcome>(HARNESS, payloads, {
      nodeFlags: ["--expose-gc"],
      timeoutMs: 300_000,
    });
  }, 320_000);
  /** The harness's report of one payload; the harness must have survived it. */
  const outcomeOf = (name: string): Outcome => {
    if (report === undefined) throw new Error("the harness did not run");
    return report.outcomeOf(name);
  };

  it("the harness ran every payload and exited cleanly", () => {
    expect(report?.error).toBeUndefined();
    expect([...(report?.outcomes.keys() ?? [])]).toEqual([
      "control",
      ...payloads.map((payload) => payload.name),
    ]);
  });

  for (const { name } of payloads) {
    it(`${name}: ends the run as MemoryLimit, and the next run in the same environment works`, () => {
      const outcome = outcomeOf(name);
      expect(outcome.status).toBe("limit");
      expect(outcome.error?.name).toBe("MemoryLimit");
      expect(outcome.error?.message).toMatch(
        new RegExp(`limited to ${MEMORY_MB} MB \\(memoryMb\\).*the agent's process is fine`),
      );
      expect(outcome.next).toEqual({ status: "ok", value: 2 });
    });
  }

  it("the agent's process peak memory grows by no more than a sandbox's cap (its baseline plus memoryMb)", () => {
    const control = outcomeOf("control").peakRssMb;
    for (const { name } of payloads) {
      expect(outcomeOf(name).peakRssMb - control, name).toBeLessThanOrEqual(
        BASELINE_MB + MEMORY_MB + HOST_MB,
      );
    }
  });
});

describe("quickjs: a heap full to its cap", () => {
  const environment = quickjsEnvironment();
  const big = tool({
    name: "big",
    description: "A 2 MB string.",
    input: z.object({}),
    run: () => "y".repeat(2_000_000),
  });
  const cm = codeMode({ tools: [big], environment, limits: { memoryMb: 8 } });
  const fill = "const k = []; try { for (;;) k.push('x'.repeat(1000) + k.length); } catch {}";
  afterAll(async () => {
    await cm.close();
    await environment.close();
  });

  it("a tool result with no room left in the sandbox ends the run as MemoryLimit, not a crash", async () => {
    const result = await cm.run(`${fill}\nconst s = await tools.big({}); s.length`);
    expect(result.status).toBe("limit");
    expect(result.error?.name).toBe("MemoryLimit");
    expect((await cm.run("1 + 1")).value).toBe(2);
  });

  it("code that catches the out-of-memory error and frees what it held goes on", async () => {
    const result = await cm.run(`${fill}\nk.length = 0; (await tools.big({})).length`);
    expect(result).toMatchObject({ status: "ok", value: 2_000_000 });
  });
});
