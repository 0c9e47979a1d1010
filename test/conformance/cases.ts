/**
 * The environment conformance cases, written once for every runtime: the vitest suite
 * (conformance.test.ts) runs them on Node against each environment, and the runtime matrix
 * (scripts/runtime-matrix.sh, test/runtimes/) runs them against QuickJS on Bun, Deno and in a workerd
 * Worker, so the two cannot drift. No vitest and no Node API here: the assertions are ./assert.ts, and
 * `cordon` is the sources under vitest and the built package in the matrix.
 *
 * From the model's point of view (through codeMode) every environment behaves the same: results, errors
 * with their lines, console output, tool calls and their failures, concurrent fan-out, limits, timeouts,
 * cancellation, no effect after the end, pause and resume by replay, discovery, sessions, and the
 * hostile-code regressions that apply.
 */

import { type CodeMode, type CodeModeOptions, codeMode, type Environment, tool } from "cordon";
import { z } from "zod";
import type { CodeModeErrorName } from "../../common/failures.js";
// The checkpoint's format (not in the package's surface): one case re-seals a checkpoint with the host's
// key, as a pause on a machine in another time zone would have made it. In the matrix this module is
// bundled from the sources beside the built package; the format is the same checkout's.
import { checkpointKeyBytes, openCheckpoint, sealCheckpoint } from "../../src/codemode/pause/checkpoint.js";
import type { PackedJournal } from "../../src/codemode/pause/journal.js";
import { observing } from "../codemode/observing-environment.js";
import {
  above,
  anyString,
  atLeast,
  atMost,
  contains,
  equal,
  lengthOf,
  like,
  match,
  matching,
} from "./assert.js";

const CHECKPOINT_KEY = "conformance checkpoint key, 32 bytes";
const REPLAY_DIVERGED = "ReplayDiverged" satisfies CodeModeErrorName;

/** What a subject may lack, so that the cases needing it do not apply there. */
export type Capability =
  /** Stripping TypeScript (esbuild, a process of its own: not in workerd). */
  | "typescript"
  /** Surviving a V8 fatal error in the sandbox (not the in-process isolate: the agent's process dies too). */
  | "crash containment";

/** An environment under test, shared by every case, and what it cannot do. */
export interface ConformanceSubject {
  environment: Environment;
  /** Each capability this subject lacks, with why: the cases that need it do not apply. */
  lacks: Partial<Record<Capability, string>>;
}

/** One conformance case: its name (the vitest test's), what it needs, and its body. */
export interface ConformanceCase {
  name: string;
  needs: Capability[];
  run(subject: ConformanceSubject): Promise<void>;
}

/** A case that does not apply to a subject, and why. */
export interface NotApplicable {
  name: string;
  reason: string;
}

/** The cases that apply to `subject`, and those that do not with the reason. */
export function casesFor(subject: Pick<ConformanceSubject, "lacks">): {
  cases: ConformanceCase[];
  notApplicable: NotApplicable[];
} {
  const cases: ConformanceCase[] = [];
  const notApplicable: NotApplicable[] = [];
  for (const each of CASES) {
    const missing = each.needs.find((need) => subject.lacks[need] !== undefined);
    if (missing === undefined) cases.push(each);
    else notApplicable.push({ name: each.name, reason: `needs ${missing}: ${subject.lacks[missing]}` });
  }
  return { cases, notApplicable };
}

/**
 * Code whose calls depend on what a resume cannot reproduce (docs/pausing.md, "What a resume does not
 * replay"): each pauses at a gated call after a call whose arguments carry what it saw.
 */
const BLIND_SPOTS: Record<string, string> = {
  "microtask ticks counted while a call is in flight": `
    let settled = false;
    tools.add({ a: 1, b: 2 }).then(() => { settled = true; });
    let ticks = 0;
    while (!settled && ticks < 10000) { await null; ticks++; }
    await tools.note({ text: "ticks " + ticks });
    return await tools.gated_note({ text: "after" });`,
  "Promise.all raced against a microtask loop": `
    const loop = (async () => { for (let i = 0; i < 1000; i++) await null; return "the loop"; })();
    const calls = Promise.all([tools.add({ a: 1, b: 1 }), tools.add({ a: 2, b: 2 })]).then(() => "the calls");
    await tools.note({ text: "won: " + (await Promise.race([calls, loop])) });
    return await tools.gated_note({ text: "after" });`,
  "recursion depth at a stack overflow": `
    await Promise.all([tools.wait({ ms: 20 }), tools.wait({ ms: 30 })]);
    const depth = (n) => { try { return depth(n + 1); } catch { return n; } };
    await tools.note({ text: "depth " + depth(0) });
    return await tools.gated_note({ text: "after" });`,
  "a WeakRef cleared by the garbage collector": `
    const ref = new WeakRef({ payload: [1, 2, 3] });
    await Promise.all([tools.wait({ ms: 20 }), tools.wait({ ms: 30 })]);
    let garbage = [];
    for (let n = 0; n < 500; n++) { garbage.push(new Array(10000).fill(n)); if (garbage.length > 100) garbage = []; }
    await tools.note({ text: ref.deref() === undefined ? "collected" : "alive" });
    return await tools.gated_note({ text: "after" });`,
};

function world() {
  const writes: string[] = [];
  let active = 0;
  let peak = 0;
  /** Tool invocations, of every tool: a resume that diverges safely makes none. */
  let ran = 0;
  const add = tool({
    name: "add",
    description: "Add.",
    input: z.object({ a: z.number(), b: z.number() }),
    run: ({ a, b }) => {
      ran++;
      return a + b;
    },
  });
  const fail = tool({
    name: "fail",
    description: "Fails.",
    input: z.object({}),
    run: () => {
      ran++;
      throw new Error("it broke");
    },
  });
  const wait = tool({
    name: "wait",
    description: "Waits, counting how many wait at once.",
    input: z.object({ ms: z.number() }),
    run: async ({ ms }) => {
      ran++;
      peak = Math.max(peak, ++active);
      await new Promise((resolve) => setTimeout(resolve, ms));
      active--;
      return ms;
    },
  });
  const lateWrite = tool({
    name: "late_write",
    description: "Writes after a delay, ignoring its signal.",
    input: z.object({ ms: z.number() }),
    run: async ({ ms }) => {
      ran++;
      await new Promise((resolve) => setTimeout(resolve, ms));
      writes.push("written");
    },
  });
  const note = tool({
    name: "note",
    description: "Writes a note.",
    input: z.object({ text: z.string() }),
    run: ({ text }) => {
      ran++;
      writes.push(text);
      return writes.length;
    },
  });
  const gatedNote = tool({
    name: "gated_note",
    description: "Writes a note, once approved.",
    input: z.object({ text: z.string() }),
    needsApproval: true,
    run: ({ text }) => {
      ran++;
      writes.push(text);
      return writes.length;
    },
  });
  return {
    tools: [add, fail, wait, lateWrite, note, gatedNote],
    writes,
    peak: () => peak,
    ran: () => ran,
  };
}

/** A code mode over the subject's shared environment (not closed per case: the environment is the runner's). */
function make(subject: ConformanceSubject, options: Partial<CodeModeOptions> = {}) {
  const w = world();
  const cm: CodeMode = codeMode({ tools: w.tools, environment: subject.environment, ...options });
  return { cm, ...w };
}

const PAUSING = { approval: "pause" as const, pause: { key: CHECKPOINT_KEY } };

/** A case every subject runs. */
function always(name: string, run: (subject: ConformanceSubject) => Promise<void>): ConformanceCase {
  return { name, needs: [], run };
}

const CASES: ConformanceCase[] = [
  always("returns the last expression, or a top-level return, as the result", async (subject) => {
    const { cm } = make(subject);
    // With TypeScript where it can be stripped; the same in plain JavaScript where it cannot.
    const typed = subject.lacks.typescript === undefined ? ": number" : "";
    equal((await cm.run(`const x${typed} = 20;\nx + 22`)).value, 42, "the last expression");
    equal((await cm.run("return { ok: true };")).value, { ok: true }, "the returned value");
  }),

  {
    name: "reports a thrown error with its line in the model's TypeScript",
    needs: ["typescript"],
    run: async (subject) => {
      const { cm } = make(subject);
      const result = await cm.run(
        "type T = { a: number };\nconst t: T = { a: 1 };\nthrow new Error('bad ' + t.a);",
      );
      equal(result.status, "error", "status");
      like(result.error, { name: "Error", message: "bad 1", line: 3 }, "error");
    },
  },

  always("captures console output with its levels", async (subject) => {
    const { cm } = make(subject);
    const result = await cm.run("console.log('a', 1); console.warn('b'); console.error({ c: 2 });");
    equal(
      result.logs,
      [
        { level: "log", text: "a 1" },
        { level: "warn", text: "b" },
        { level: "error", text: "{ c: 2 }" },
      ],
      "logs",
    );
  }),

  always(
    "calls tools through the host, and a failed call rejects with a catchable error",
    async (subject) => {
      const { cm } = make(subject);
      const result = await cm.run(
        "const s = await tools.add({ a: 1, b: 2 }); try { await tools.fail({}); } catch (e) { return [s, e.name, e.tool, e.kind]; }",
      );
      equal(result.value, [3, "ToolCallError", "fail", "error"], "value");
      equal(
        result.calls.map((call) => [call.tool, call.status]),
        [
          ["add", "ok"],
          ["fail", "error"],
        ],
        "calls",
      );
    },
  ),

  always("runs a Promise.all fan-out concurrently", async (subject) => {
    const { cm, peak } = make(subject);
    const result = await cm.run(
      "(await Promise.all([1, 2, 3, 4, 5, 6].map(() => tools.wait({ ms: 100 })))).length",
    );
    equal(result.value, 6, "value");
    above(peak(), 1, "calls waiting at once");
  }),

  always("ends a CPU loop at the CPU limit", async (subject) => {
    const { cm } = make(subject, { limits: { cpuTimeMs: 300 } });
    const result = await cm.run("for (;;) {}");
    equal(result.status, "limit", "status");
    equal(result.error?.name, "CpuTimeLimit", "error name");
  }),

  always("ends runaway memory at the memory limit", async (subject) => {
    const { cm } = make(subject, { limits: { memoryMb: 32 } });
    const result = await cm.run("const k = []; for (;;) k.push('x'.repeat(1000) + k.length);");
    equal(result.status, "limit", "status");
    equal(result.error?.name, "MemoryLimit", "error name");
  }),

  always("refuses a result over maxResultChars and caps console output at maxLogChars", async (subject) => {
    const { cm } = make(subject, { limits: { maxResultChars: 100, maxLogChars: 50 } });
    equal((await cm.run("'x'.repeat(1000)")).error?.name, "ResultTooLarge", "error name");
    const logged = await cm.run("for (let i = 0; i < 100; i++) console.log('line ' + i); 1");
    atMost(
      logged.logs.filter((entry) => entry.level === "log").reduce((n, e) => n + e.text.length + 1, 0),
      50,
      "characters logged",
    );
  }),

  always("ends a run that never finishes at its timeout", async (subject) => {
    const { cm } = make(subject, { limits: { timeoutMs: 300 } });
    const result = await cm.run("await new Promise(() => {});");
    equal(result.status, "timeout", "status");
  }),

  always("ends a cancelled run as cancelled", async (subject) => {
    const { cm } = make(subject);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const result = await cm.run("await tools.wait({ ms: 20000 });", { signal: controller.signal });
    equal(result.status, "cancelled", "status");
  }),

  always(
    "returns only once a tool it started has finished, even one that ignores its signal",
    async (subject) => {
      const { cm, writes } = make(subject, { limits: { timeoutMs: 150 } });
      const result = await cm.run("await tools.late_write({ ms: 400 });");
      equal(result.status, "timeout", "status");
      equal(writes, ["written"], "writes");
    },
  ),

  always(
    "pauses at a gated call and resumes by replay in another code mode: each effect once, the same time and randomness",
    async (subject) => {
      const { cm, writes, tools } = make(subject, PAUSING);
      const code = `
        const before = [Date.now(), Math.random()];
        console.log(JSON.stringify(before));
        await tools.note({ text: "one" });
        const [two, three] = await Promise.all([tools.gated_note({ text: "two" }), tools.gated_note({ text: "three" })]);
        await tools.note({ text: "four" });
        return { before, two, three };`;
      const paused = await cm.run(code);
      equal(paused.status, "paused", "status");
      equal(
        paused.pending?.map((call) => call.args),
        [{ text: "two" }, { text: "three" }],
        "pending calls",
      );
      equal(writes, ["one"], "writes before the resume");
      const elsewhere = codeMode({ tools, environment: subject.environment, ...PAUSING });
      const [two, three] = paused.pending!;
      const resumed = await elsewhere.resume(paused.checkpoint!, {
        decisions: { [two!.id]: true, [three!.id]: true },
      });
      equal(resumed.status, "ok", "resumed status");
      equal(writes.sort(), ["four", "one", "three", "two"], "writes");
      const value = resumed.value as { before: number[] };
      equal(JSON.stringify(value.before), paused.logs[0]?.text, "time and randomness");
      equal(
        resumed.logs.map((entry) => entry.text),
        [paused.logs[0]?.text],
        "resumed logs",
      );
    },
  ),

  always(
    "a resume's recorded calls are answered inside the sandbox, in the order they ended: only the decided call and later ones reach the host",
    async (subject) => {
      const { cm, writes, tools } = make(subject, PAUSING);
      // The slower call is made first: a replay that answered in the order calls were made would let it win.
      const code = `
        const first = await Promise.race([tools.wait({ ms: 300 }), tools.wait({ ms: 5 })]);
        await tools.note({ text: "one" });
        const [two, done] = await Promise.all([tools.gated_note({ text: "two" }), tools.wait({ ms: 1 })]);
        await tools.note({ text: "three" });
        return { first, two, done };`;
      const paused = await cm.run(code);
      equal(paused.status, "paused", "status");
      const observed = observing(subject.environment);
      const elsewhere = codeMode({ tools, environment: observed.environment, ...PAUSING });
      const resumed = await elsewhere.resume(paused.checkpoint!, {
        decisions: { [paused.pending![0]!.id]: true },
      });
      equal(resumed.status, "ok", "resumed status");
      equal(resumed.value, { first: 5, two: 2, done: 1 }, "value");
      equal(writes, ["one", "two", "three"], "writes");
      // Every call that ended before the pause (wait 300, wait 5, note one, and wait 1 when it was not
      // held back) was answered in the sandbox; only the others crossed to the host.
      const recorded = paused.calls.filter((call) => call.status !== "paused");
      atLeast(recorded.length, 3, "calls recorded before the pause");
      equal(
        observed.crossings.replayed.reduce((sum, count) => sum + count, 0),
        recorded.length,
        "calls answered in the sandbox",
      );
      lengthOf(observed.crossings.calls, 6 - recorded.length, "calls that reached the host");
      contains(observed.crossings.calls, "gated_note", "calls that reached the host");
      equal(observed.crossings.calls.at(-1), "note", "the last call that reached the host");
      lengthOf(resumed.calls, 6, "the resumed run's calls");
    },
  ),

  ...Object.entries(BLIND_SPOTS).map(([attack, code]) =>
    always(
      `a resume of code that depends on ${attack} diverges safely (ReplayDiverged, 0 live calls) or replays what it saw`,
      async (subject) => {
        const { cm, writes, tools, ran } = make(subject, PAUSING);
        const paused = await cm.run(code);
        equal(paused.status, "paused", "status");
        const recorded = [...writes];
        const before = ran();
        const elsewhere = codeMode({ tools, environment: subject.environment, ...PAUSING });
        const resumed = await elsewhere.resume(paused.checkpoint!, {
          decisions: { [paused.pending![0]!.id]: true },
        });
        // The difference is likely, not certain (a resume may happen to count the same ticks): either way
        // no recorded effect runs again, and only the approved call may run live.
        if (resumed.status === "ok") {
          equal(ran() - before, 1, "live calls");
          equal(writes, [...recorded, "after"], "writes");
          return;
        }
        equal(resumed.status, "error", "resumed status");
        equal(resumed.error?.name, REPLAY_DIVERGED, "error name");
        match(
          resumed.error?.message,
          /differs from the journal \(other arguments\): the code called note/,
          "error message",
        );
        equal(ran() - before, 0, "live calls");
        equal(writes, recorded, "writes");
      },
    ),
  ),

  always(
    "a resume where the sandbox sees another time zone than the paused run's diverges safely, naming both: 0 live calls",
    async (subject) => {
      // The checkpoint says its run was paused where the zone was Pacific/Kiritimati (re-sealed with the
      // host's key, as a pause on a machine there would have made it); no sandbox here is in that zone.
      const { cm, writes, tools, ran } = make(subject, PAUSING);
      const paused = await cm.run(`
        await tools.note({ text: "at " + new Date(0).getHours() + " o'clock" });
        return await tools.gated_note({ text: "after" });`);
      equal(paused.status, "paused", "status");
      const key = checkpointKeyBytes(CHECKPOINT_KEY);
      const body = openCheckpoint<{ journal: PackedJournal }>(paused.checkpoint!, key, {});
      const seen = body.state.journal.zone;
      equal(seen, { timeZone: anyString, locale: anyString }, "the zone the checkpoint records");
      body.state.journal.zone = { timeZone: "Pacific/Kiritimati", locale: seen!.locale };
      const before = ran();
      const elsewhere = codeMode({ tools, environment: subject.environment, ...PAUSING });
      const resumed = await elsewhere.resume(sealCheckpoint(body, key).text, {
        decisions: { [paused.pending![0]!.id]: true },
      });
      equal(resumed.status, "error", "resumed status");
      equal(resumed.error?.name, REPLAY_DIVERGED, "error name");
      contains(
        resumed.error?.message,
        `the paused run's code saw the time zone Pacific/Kiritimati and the locale ${seen!.locale}, and this sandbox's code sees ${seen!.timeZone} and ${seen!.locale}`,
        "error message",
      );
      equal(ran() - before, 0, "live calls");
      lengthOf(writes, 1, "writes");
    },
  ),

  always("finds tools with tools.$search and tools.$describe, which are not tool calls", async (subject) => {
    const { cm } = make(subject, { discovery: "search", limits: { maxToolCalls: 1 } });
    const result = await cm.run(`
      const found = await tools.$search("write a note", { limit: 2 });
      const declared = await tools.$describe("add");
      let unknown;
      try { await tools.$describe("addd"); } catch (e) { unknown = [e.kind, e.message]; }
      let bad;
      try { await tools.$search("note", { limit: 0 }); } catch (e) { bad = e.kind; }
      const sum = await tools.add({ a: 1, b: 2 });
      return { names: found.map((m) => m.name), declared, unknown, bad, sum };`);
    equal(result.status, "ok", "status");
    equal(
      result.value,
      {
        names: ["note", "gated_note"],
        declared: "/** Add. */\nadd(args: { a: number; b: number }): Promise<unknown>;",
        unknown: ["invalid_arguments", matching(/^There is no tool named "addd"\. Close names: add/)],
        bad: "invalid_arguments",
        sum: 3,
      },
      "value",
    );
    equal(
      result.calls.map((call) => call.tool),
      ["add"],
      "tool calls",
    );
    equal(
      result.discovery?.map((record) => record.kind),
      ["search", "describe", "describe"],
      "discovery records",
    );
  }),

  always("a run that searched before a gated call pauses and resumes by replay", async (subject) => {
    const pausing = { ...PAUSING, discovery: "search" as const };
    const { cm, writes, tools } = make(subject, pausing);
    const code = `
      await tools.note({ text: "one" });
      const [found] = await tools.$search("note once approved", { limit: 1 });
      const two = await tools[found.name]({ text: "two" });
      return { found: found.name, two };`;
    const paused = await cm.run(code);
    equal(paused.status, "paused", "status");
    equal(
      paused.pending?.map((call) => call.tool),
      ["gated_note"],
      "pending calls",
    );
    const elsewhere = codeMode({ tools, environment: subject.environment, ...pausing });
    const resumed = await elsewhere.resume(paused.checkpoint!, {
      decisions: { [paused.pending![0]!.id]: true },
    });
    like(resumed, { status: "ok", value: { found: "gated_note", two: 2 } }, "resumed run");
    equal(writes, ["one", "two"], "writes");
  }),

  always("a thrown object that is not an Error reaches the caller as what it is", async (subject) => {
    const { cm } = make(subject);
    const result = await cm.run("throw { weird: true };");
    equal(result.status, "error", "status");
    contains(
      result.error?.message,
      "the code threw a value that is not an Error: { weird: true }",
      "error message",
    );
  }),

  always("keeps variables within a session, and restart starts it over", async (subject) => {
    const { cm } = make(subject, { state: "session" });
    await cm.run("var count = 41;", { session: "s" });
    equal((await cm.run("count + 1", { session: "s" })).value, 42, "the session's variable");
    equal(
      (await cm.run("typeof count", { session: "s", restart: true })).value,
      "undefined",
      "after a restart",
    );
  }),

  always("refuses resizable buffers and caps tool arguments inside the sandbox", async (subject) => {
    const { cm } = make(subject);
    const resizable = await cm.run("new ArrayBuffer(0, { maxByteLength: 2**30 })");
    match(resizable.error?.message, /Resizable ArrayBuffers/, "error message");
    const big = await cm.run(
      'try { await tools.add({ a: 1, b: 2, pad: "x".repeat(2_000_000) }); } catch (e) { return e.kind; }',
    );
    equal(big.value, "invalid_arguments", "the oversized call's kind");
  }),

  always("restarts a session whose earlier run changed what the plumbing relies on", async (subject) => {
    const { cm } = make(subject, { state: "session" });
    await cm.run(
      "Object.defineProperty(Object.prototype, 'then', { get() { return undefined; }, configurable: true }); 1",
      { session: "t" },
    );
    const next = await cm.run("await tools.add({ a: 2, b: 2 })", { session: "t" });
    equal(next.value, 4, "value");
    match(next.logs[0]?.text, /started afresh/, "the first log line");
  }),

  {
    name: "contains a V8 fatal error: the run ends as out of memory, the next works",
    needs: ["crash containment"],
    run: async (subject) => {
      const { cm } = make(subject);
      // A 2 GB array: past V8's largest, so V8 ends its process on every Node.
      const result = await cm.run('"x".repeat(2**28).split("").length');
      equal(result.status, "limit", "status");
      match(result.error?.message, /agent's process is fine/, "error message");
      equal((await cm.run("1 + 1")).value, 2, "the next run's value");
    },
  },
];
