/**
 * Payloads that kill, hang or exhaust a process that hosts V8 isolates in-process (Node 20, isolated-vm
 * 5). Each runs through code mode with the default environment inside a harness process, so that if
 * containment ever fails, this test sees the harness die instead of dying with it. For each: the run
 * ends with the right status and a message the model can act on, the next run works, and no sandbox
 * process is left burning a core.
 */

import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { type HarnessReport, runPayloadHarness } from "./payload-harness.js";

const HARNESS = fileURLToPath(new URL("./fixtures/survive.ts", import.meta.url));

interface Outcome {
  name: string;
  status: string;
  error?: { name: string; message: string; length: number };
  next: { status: string; value: unknown };
  burning: number[];
}

/** Limits for a payload about memory that takes seconds of CPU first. */
const SLOW = { cpuTimeMs: 60_000, timeoutMs: 60_000 };

const payloads = [
  // A 2 GB array, past the largest V8 makes: V8 ends its process, on every Node.
  { name: "huge split", code: '"x".repeat(2**28).split("").length' },
  // One value past the 128 MB heap limit that is garbage before isolated-vm checks the heap again: each
  // passes the heap limit (isolated-vm grants a grace), and only the process's peak memory sees it. The
  // memory check is what these are about: CPU and wall-clock limits high enough not to race it (the
  // split takes about 5 s of CPU, Array.from 3 s, more on a loaded machine).
  { name: "split garbage at once", code: '"x".repeat(2**26).split("").length', limits: SLOW },
  { name: "fill garbage at once", code: "new Array(2**25).fill(0).length", limits: SLOW },
  { name: "Array.from garbage at once", code: "Array.from({ length: 2**25 }).length", limits: SLOW },
  { name: "flattened repeat garbage at once", code: '"x".repeat(2**29 - 24).indexOf("y")', limits: SLOW },
  // A 1 GB array from Node 24 on; past the largest V8 makes (a fatal error) on Node 20 and 22.
  { name: "1 GB split garbage at once", code: '"x".repeat(2**27).split("").length', limits: SLOW },
  {
    name: "200 MB of tool traffic",
    code: "let n = 0; for (let i = 0; i < 100; i++) n += (await tools.echo({ s: 'x'.repeat(999_000) })).s.length; n",
    // About memory: its 100 round trips of 1 MB took 2-4 s of the sandbox's CPU on a busy machine and
    // passed the default 10 s CPU limit once under heavier load, which is not what this payload tests.
    limits: { memoryMb: 16, maxToolCalls: 100, ...SLOW },
  },
  {
    name: "heap used up to its limit",
    code: "const a = []; for (let i = 0; i < 128 * 9000; i++) a.push({ i, s: 'item ' + i }); a.length",
  },
  // The memory limit is what this payload is about (see SLOW).
  { name: "huge fill", code: "new Array(2**30).fill(0).length", limits: SLOW },
  {
    name: "sparse sort",
    code: "const a = []; a[2**31] = 1; a[0] = 2; a.sort(); 1",
    limits: { cpuTimeMs: 500 },
  },
  {
    name: "huge toLocaleString",
    code: "new Array(2**24).fill(1234.5).toLocaleString().length",
    limits: { cpuTimeMs: 500 },
  },
  {
    name: "resizable buffer",
    code: "const b = new ArrayBuffer(0, { maxByteLength: 3 << 30 }); b.resize(3 << 30); new Uint8Array(b).fill(1); 1",
    limits: { memoryMb: 16 },
  },
  {
    name: "address-space reservation",
    code: "const k = []; for (let i = 0; i < 32700; i++) k.push(new ArrayBuffer(0, { maxByteLength: 2**32 })); k.length",
  },
  {
    name: "segmenter hoard",
    code: 'globalThis.k = []; const s = "a b ".repeat(250000); for (let i = 0; i < 400; i++) k.push(new Intl.Segmenter("en", { granularity: "word" }).segment(s)); k.length',
  },
  {
    name: "heap within its limit, process over its memory budget",
    code: "const k = []; for (let i = 0; i < 60; i++) k.push(new Float64Array(1_250_000).fill(i)); k.length",
    limits: { memoryMb: 1024 },
    environment: { maxRssMb: 400 },
  },
  { name: "huge unhandled rejection", code: 'Promise.reject(new Error("x".repeat(2e8))); await null; 1' },
  {
    name: "huge error message",
    code: 'throw new Error("x".repeat(20 << 20))',
    limits: { maxResultChars: 1_000 },
  },
];

let report: HarnessReport<Outcome> | undefined;
beforeAll(async () => {
  report = await runPayloadHarness<Outcome>(HARNESS, payloads, {
    timeoutMs: 240_000,
    maxBuffer: 16 * 1024 * 1024,
  });
}, 260_000);
/** The harness's report of one payload; the harness must have survived it. */
const outcomeOf = (name: string): Outcome => {
  if (report === undefined) throw new Error("the harness did not run");
  return report.outcomeOf(name);
};

describe("security: the agent's process survives what kills an isolate's host process", () => {
  it("the harness itself ran every payload and exited cleanly", () => {
    expect(report?.error).toBeUndefined();
    expect([...(report?.outcomes.keys() ?? [])]).toEqual(payloads.map((payload) => payload.name));
  });

  it("a V8 fatal error (a huge split) ends the run as out of memory, contained to the sandbox process", () => {
    const outcome = outcomeOf("huge split");
    expect(outcome.status).toBe("limit");
    expect(outcome.error?.name).toBe("MemoryLimit");
    expect(outcome.error?.message).toMatch(/sandbox process ran out of memory .*invalid size error/);
    expect(outcome.error?.message).toMatch(/the agent's process is fine/);
    expect(outcome.next).toEqual({ status: "ok", value: 2 });
  });

  for (const name of [
    "split garbage at once",
    "fill garbage at once",
    "Array.from garbage at once",
    "flattened repeat garbage at once",
    "1 GB split garbage at once",
  ]) {
    it(`a value past the heap limit that is garbage at once (${name.replace(" garbage at once", "")}) ends the run as out of memory`, () => {
      const outcome = outcomeOf(name);
      expect(outcome.status).toBe("limit");
      expect(outcome.error?.name).toBe("MemoryLimit");
      expect(outcome.error?.message).toMatch(/ran out of memory/);
      expect(outcome.next).toEqual({ status: "ok", value: 2 });
    });
  }

  it("a run whose tool calls carry 200 MB through its process is not taken for a spike", () => {
    const outcome = outcomeOf("200 MB of tool traffic");
    expect(outcome.status).toBe("ok");
    expect(outcome.next).toEqual({ status: "ok", value: 2 });
  });

  it("a run that fills its heap up to its limit and keeps it is not taken for a spike", () => {
    const outcome = outcomeOf("heap used up to its limit");
    expect(outcome.status).toBe("ok");
    expect(outcome.next).toEqual({ status: "ok", value: 2 });
  });

  it("a 2^30 fill ends as out of memory and leaves no stuck process behind", () => {
    const outcome = outcomeOf("huge fill");
    expect(outcome.status).toBe("limit");
    expect(outcome.error?.name).toBe("MemoryLimit");
    expect(outcome.next).toEqual({ status: "ok", value: 2 });
    expect(outcome.burning).toEqual([]);
  });

  it("a sparse sort that ignores termination ends at the CPU limit, and its process stops burning", () => {
    const outcome = outcomeOf("sparse sort");
    expect(outcome.status).toBe("limit");
    expect(outcome.error?.name).toBe("CpuTimeLimit");
    expect(outcome.next).toEqual({ status: "ok", value: 2 });
    expect(outcome.burning).toEqual([]);
  });

  it("toLocaleString on a huge array ends at the CPU limit, and its process stops burning", () => {
    const outcome = outcomeOf("huge toLocaleString");
    expect(outcome.status).toBe("limit");
    expect(outcome.next).toEqual({ status: "ok", value: 2 });
    expect(outcome.burning).toEqual([]);
  });

  it("a resizable ArrayBuffer is refused: its memory is outside the heap limit", () => {
    const outcome = outcomeOf("resizable buffer");
    expect(outcome.status).toBe("error");
    expect(outcome.error).toMatchObject({ name: "RangeError" });
    expect(outcome.error?.message).toMatch(/Resizable ArrayBuffers .* are not available in run_code/);
    expect(outcome.next).toEqual({ status: "ok", value: 2 });
  });

  it("reserving address space with maxByteLength is refused at the first buffer", () => {
    const outcome = outcomeOf("address-space reservation");
    expect(outcome.status).toBe("error");
    expect(outcome.error?.message).toMatch(/maxByteLength/);
  });

  it("Intl.Segmenter over more text than the sandbox's ICU budget is refused", () => {
    const outcome = outcomeOf("segmenter hoard");
    expect(outcome.status).toBe("error");
    expect(outcome.error?.message).toMatch(
      /Intl\.Segmenter was given \d+ characters in this sandbox, more than the \d+ it allows/,
    );
    expect(outcome.next).toEqual({ status: "ok", value: 2 });
  });

  it("a process over its memory budget is stopped and the run says so", () => {
    const outcome = outcomeOf("heap within its limit, process over its memory budget");
    expect(outcome.status).toBe("limit");
    expect(outcome.error?.name).toBe("MemoryLimit");
    expect(outcome.error?.message).toMatch(/over its budget of 400 MB/);
    expect(outcome.next).toEqual({ status: "ok", value: 2 });
  });

  it("an unhandled rejection with a 200M-character message never reaches the agent's process", () => {
    const outcome = outcomeOf("huge unhandled rejection");
    expect(["limit", "error"]).toContain(outcome.status);
    expect(outcome.next).toEqual({ status: "ok", value: 2 });
  });

  it("an error message of 20M characters is cut in the sandbox", () => {
    const outcome = outcomeOf("huge error message");
    expect(outcome.status).toBe("error");
    expect(outcome.error?.length).toBeLessThanOrEqual(20_000 + 40);
    expect(outcome.error?.message).toMatch(/^x+/);
    expect(outcome.next).toEqual({ status: "ok", value: 2 });
  });
});

/**
 * The same payloads on quickjsEnvironment(), whose sandboxes are WebAssembly instances in the harness
 * process itself, on its thread: a payload that got out would take the harness down or hold it. Plus
 * one only QuickJS needs: its heap limit is all the memory an instance takes from the agent's process.
 */
describe("[quickjs] security: the agent's process survives the same payloads, run in its own thread", () => {
  const quickjsPayloads = [
    ...payloads,
    {
      // QuickJS's objects take more room than V8's: the V8 payload's count does not fit its 128 MB.
      name: "QuickJS heap used up to its limit",
      code: "const a = []; for (let i = 0; i < 128 * 5000; i++) a.push({ i, s: 'item ' + i }); a.length",
    },
    {
      name: "typed arrays past the heap limit",
      code: "const k = []; for (let i = 0; i < 60; i++) k.push(new Float64Array(1_250_000).fill(i)); k.length",
      limits: { memoryMb: 400 },
    },
  ];
  let quickjsReport: HarnessReport<Outcome> | undefined;
  beforeAll(async () => {
    quickjsReport = await runPayloadHarness<Outcome>(HARNESS, quickjsPayloads, {
      timeoutMs: 240_000,
      maxBuffer: 16 * 1024 * 1024,
      args: ["quickjs"],
    });
  }, 260_000);
  const quickjsOutcomeOf = (name: string): Outcome => {
    if (quickjsReport === undefined) throw new Error("the harness did not run");
    return quickjsReport.outcomeOf(name);
  };

  it("the harness itself ran every payload and exited cleanly", () => {
    expect(quickjsReport?.error).toBeUndefined();
    expect([...(quickjsReport?.outcomes.keys() ?? [])]).toEqual(
      quickjsPayloads.map((payload) => payload.name),
    );
  });

  for (const name of [
    "huge split",
    "split garbage at once",
    "fill garbage at once",
    "Array.from garbage at once",
    "flattened repeat garbage at once",
    "1 GB split garbage at once",
    "huge fill",
    "typed arrays past the heap limit",
  ]) {
    // No fatal error and no grace: QuickJS checks its limit at every allocation, in its own heap.
    it(`${name} ends the run at QuickJS's heap limit, and the next run works`, () => {
      const outcome = quickjsOutcomeOf(name);
      expect(outcome.status).toBe("limit");
      expect(outcome.error?.name).toBe("MemoryLimit");
      expect(outcome.error?.message).toMatch(/heap is limited to \d+ MB .*the agent's process is fine/);
      expect(outcome.next).toEqual({ status: "ok", value: 2 });
    });
  }

  it("the V8 payload that keeps its heap near the limit is over QuickJS's: it ends at the heap limit", () => {
    const outcome = quickjsOutcomeOf("heap used up to its limit");
    expect(outcome).toMatchObject({ status: "limit", error: { name: "MemoryLimit" } });
    expect(outcome.next).toEqual({ status: "ok", value: 2 });
  });

  for (const name of ["200 MB of tool traffic", "QuickJS heap used up to its limit"]) {
    it(`${name} within the heap limit runs to its end`, () => {
      expect(quickjsOutcomeOf(name)).toMatchObject({ status: "ok", next: { status: "ok", value: 2 } });
    });
  }

  it("a sparse sort, which QuickJS loops over in C, ends at the CPU limit instead of holding the thread", () => {
    const outcome = quickjsOutcomeOf("sparse sort");
    expect(outcome.status).toBe("limit");
    expect(outcome.error?.name).toBe("CpuTimeLimit");
    expect(outcome.next).toEqual({ status: "ok", value: 2 });
  });

  it("toLocaleString on a huge array ends at a limit (QuickJS's heap cannot hold the array)", () => {
    const outcome = quickjsOutcomeOf("huge toLocaleString");
    expect(outcome.status).toBe("limit");
    expect(outcome.next).toEqual({ status: "ok", value: 2 });
  });

  it("resizable ArrayBuffers and maxByteLength reservations are refused", () => {
    expect(quickjsOutcomeOf("resizable buffer").error?.message).toMatch(
      /Resizable ArrayBuffers .* are not available in run_code/,
    );
    expect(quickjsOutcomeOf("address-space reservation").error?.message).toMatch(/maxByteLength/);
  });

  it("Intl.Segmenter cannot hoard memory outside the heap: QuickJS has no Intl", () => {
    const outcome = quickjsOutcomeOf("segmenter hoard");
    expect(outcome.status).toBe("error");
    expect(outcome.error?.message).toMatch(/^Intl is not defined/);
    expect(outcome.next).toEqual({ status: "ok", value: 2 });
  });

  it("600 MB within a heap limit of 1024 MB is the configured heap, not a spike: it runs, and the instance's memory goes with its sandbox", () => {
    // A sandbox host has a process to budget; a QuickJS sandbox is its heap: memoryMb is the whole of it.
    const outcome = quickjsOutcomeOf("heap within its limit, process over its memory budget");
    expect(outcome).toMatchObject({ status: "ok", next: { status: "ok", value: 2 } });
  });

  it("an unhandled rejection with a 200M-character message and a 20M-character error stay in the sandbox", () => {
    expect(["limit", "error"]).toContain(quickjsOutcomeOf("huge unhandled rejection").status);
    const huge = quickjsOutcomeOf("huge error message");
    expect(huge.status).toBe("error");
    expect(huge.error?.length).toBeLessThanOrEqual(20_000 + 40);
    expect(huge.next).toEqual({ status: "ok", value: 2 });
  });
});
