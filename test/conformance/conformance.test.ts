/**
 * One suite, every environment: the in-process isolate, the default sandbox host, Docker and a remote
 * server. From the model's point of view (through codeMode) they behave the same: results, errors with
 * their lines, console output, tool calls and their failures, concurrent fan-out, limits, timeouts,
 * cancellation, no effect after the end, sessions, and the hostile-code regressions that apply. After
 * the suite no container or sandbox process is left.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { dockerEnvironment } from "../../environments/docker/index.js";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import { quickjsEnvironment } from "../../environments/quickjs/index.js";
import { remoteEnvironment, type SandboxServer, serveSandboxes } from "../../environments/remote/index.js";
import { sandboxHostEnvironment } from "../../environments/sandbox-host/index.js";
import { checkpointKeyBytes, openCheckpoint, sealCheckpoint } from "../../src/codemode/pause/checkpoint.js";
import type { PackedJournal } from "../../src/codemode/pause/journal.js";
import { REPLAY_DIVERGED } from "../../src/codemode/run.js";
import { type CodeMode, type CodeModeOptions, codeMode, type Environment, tool } from "../../src/index.js";
import { observing } from "../codemode/observing-environment.js";
import { DOCKER_SUITES, engine } from "../docker/helpers.js";
import { sandboxChildren } from "../sandbox-host/children.js";

const TOKEN = "conformance-token-0123456789";
const CHECKPOINT_KEY = "conformance checkpoint key, 32 bytes";

interface Subject {
  name: string;
  /** False for the in-process isolate: a V8 fatal error there ends the agent's process too. */
  containsCrashes: boolean;
  create(): Promise<Environment> | Environment;
}

const servers: SandboxServer[] = [];
const subjects: Subject[] = [
  { name: "in-process isolate", containsCrashes: false, create: () => isolateEnvironment() },
  { name: "quickjs", containsCrashes: true, create: () => quickjsEnvironment() },
  { name: "sandbox host", containsCrashes: true, create: () => sandboxHostEnvironment({ processes: 1 }) },
  {
    name: "remote (cordon serve)",
    containsCrashes: true,
    create: async () => {
      const server = await serveSandboxes({
        environment: sandboxHostEnvironment({ processes: 1 }),
        token: TOKEN,
      });
      servers.push(server);
      return remoteEnvironment({ url: server.url, token: TOKEN });
    },
  },
];
if (DOCKER_SUITES)
  subjects.push({ name: "docker", containsCrashes: true, create: () => dockerEnvironment({ warm: 2 }) });

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

for (const subject of subjects) {
  describe(`conformance: ${subject.name}`, () => {
    let environment: Environment;
    const modes: CodeMode[] = [];
    beforeAll(async () => {
      environment = await subject.create();
    }, 60_000);
    afterAll(async () => {
      await environment.close();
    }, 60_000);

    /** A code mode over the shared environment (not closed per test: the environment is the suite's). */
    function make(options: Partial<CodeModeOptions> = {}) {
      const w = world();
      const cm = codeMode({ tools: w.tools, environment, ...options });
      modes.push(cm);
      return { cm, ...w };
    }

    it("returns the last expression, or a top-level return, as the result", async () => {
      const { cm } = make();
      expect((await cm.run("const x: number = 20;\nx + 22")).value).toBe(42);
      expect((await cm.run("return { ok: true };")).value).toEqual({ ok: true });
    });

    it("reports a thrown error with its line in the model's TypeScript", async () => {
      const { cm } = make();
      const result = await cm.run(
        "type T = { a: number };\nconst t: T = { a: 1 };\nthrow new Error('bad ' + t.a);",
      );
      expect(result.status).toBe("error");
      expect(result.error).toMatchObject({ name: "Error", message: "bad 1", line: 3 });
    });

    it("captures console output with its levels", async () => {
      const { cm } = make();
      const result = await cm.run("console.log('a', 1); console.warn('b'); console.error({ c: 2 });");
      expect(result.logs).toEqual([
        { level: "log", text: "a 1" },
        { level: "warn", text: "b" },
        { level: "error", text: "{ c: 2 }" },
      ]);
    });

    it("calls tools through the host, and a failed call rejects with a catchable error", async () => {
      const { cm } = make();
      const result = await cm.run(
        "const s = await tools.add({ a: 1, b: 2 }); try { await tools.fail({}); } catch (e) { return [s, e.name, e.tool, e.kind]; }",
      );
      expect(result.value).toEqual([3, "ToolCallError", "fail", "error"]);
      expect(result.calls.map((call) => [call.tool, call.status])).toEqual([
        ["add", "ok"],
        ["fail", "error"],
      ]);
    });

    it("runs a Promise.all fan-out concurrently", async () => {
      const { cm, peak } = make();
      const result = await cm.run(
        "(await Promise.all([1, 2, 3, 4, 5, 6].map(() => tools.wait({ ms: 100 })))).length",
      );
      expect(result.value).toBe(6);
      expect(peak()).toBeGreaterThan(1);
    });

    it("ends a CPU loop at the CPU limit", async () => {
      const { cm } = make({ limits: { cpuTimeMs: 300 } });
      const result = await cm.run("for (;;) {}");
      expect(result.status).toBe("limit");
      expect(result.error?.name).toBe("CpuTimeLimit");
    });

    it("ends runaway memory at the memory limit", async () => {
      const { cm } = make({ limits: { memoryMb: 32 } });
      const result = await cm.run("const k = []; for (;;) k.push('x'.repeat(1000) + k.length);");
      expect(result.status).toBe("limit");
    });

    it("refuses a result over maxResultChars and caps console output at maxLogChars", async () => {
      const { cm } = make({ limits: { maxResultChars: 100, maxLogChars: 50 } });
      expect((await cm.run("'x'.repeat(1000)")).error?.name).toBe("ResultTooLarge");
      const logged = await cm.run("for (let i = 0; i < 100; i++) console.log('line ' + i); 1");
      expect(
        logged.logs.filter((entry) => entry.level === "log").reduce((n, e) => n + e.text.length + 1, 0),
      ).toBeLessThanOrEqual(50);
    });

    it("ends a run that never finishes at its timeout", async () => {
      const { cm } = make({ limits: { timeoutMs: 300 } });
      const result = await cm.run("await new Promise(() => {});");
      expect(result.status).toBe("timeout");
    });

    it("ends a cancelled run as cancelled", async () => {
      const { cm } = make();
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      const result = await cm.run("await tools.wait({ ms: 20000 });", { signal: controller.signal });
      expect(result.status).toBe("cancelled");
    });

    it("returns only once a tool it started has finished, even one that ignores its signal", async () => {
      const { cm, writes } = make({ limits: { timeoutMs: 150 } });
      const result = await cm.run("await tools.late_write({ ms: 400 });");
      expect(result.status).toBe("timeout");
      expect(writes).toEqual(["written"]);
    });

    it("pauses at a gated call and resumes by replay in another code mode: each effect once, the same time and randomness", async () => {
      const pausing = { approval: "pause" as const, pause: { key: CHECKPOINT_KEY } };
      const { cm, writes, tools } = make(pausing);
      const code = `
        const before = [Date.now(), Math.random()];
        console.log(JSON.stringify(before));
        await tools.note({ text: "one" });
        const [two, three] = await Promise.all([tools.gated_note({ text: "two" }), tools.gated_note({ text: "three" })]);
        await tools.note({ text: "four" });
        return { before, two, three };`;
      const paused = await cm.run(code);
      expect(paused.status).toBe("paused");
      expect(paused.pending?.map((call) => call.args)).toEqual([{ text: "two" }, { text: "three" }]);
      expect(writes).toEqual(["one"]);
      const elsewhere = codeMode({ tools, environment, ...pausing });
      modes.push(elsewhere);
      const [two, three] = paused.pending!;
      const resumed = await elsewhere.resume(paused.checkpoint!, {
        decisions: { [two!.id]: true, [three!.id]: true },
      });
      expect(resumed.status).toBe("ok");
      expect(writes.sort()).toEqual(["four", "one", "three", "two"]);
      const value = resumed.value as { before: number[] };
      expect(JSON.stringify(value.before)).toBe(paused.logs[0]?.text);
      expect(resumed.logs.map((entry) => entry.text)).toEqual([paused.logs[0]?.text]);
    });

    it("a resume's recorded calls are answered inside the sandbox, in the order they ended: only the decided call and later ones reach the host", async () => {
      const pausing = { approval: "pause" as const, pause: { key: CHECKPOINT_KEY } };
      const { cm, writes, tools } = make(pausing);
      // The slower call is made first: a replay that answered in the order calls were made would let it win.
      const code = `
        const first = await Promise.race([tools.wait({ ms: 300 }), tools.wait({ ms: 5 })]);
        await tools.note({ text: "one" });
        const [two, done] = await Promise.all([tools.gated_note({ text: "two" }), tools.wait({ ms: 1 })]);
        await tools.note({ text: "three" });
        return { first, two, done };`;
      const paused = await cm.run(code);
      expect(paused.status).toBe("paused");
      const observed = observing(environment);
      const elsewhere = codeMode({ tools, environment: observed.environment, ...pausing });
      modes.push(elsewhere);
      const resumed = await elsewhere.resume(paused.checkpoint!, {
        decisions: { [paused.pending![0]!.id]: true },
      });
      expect(resumed.status).toBe("ok");
      expect(resumed.value).toEqual({ first: 5, two: 2, done: 1 });
      expect(writes).toEqual(["one", "two", "three"]);
      // Every call that ended before the pause (wait 300, wait 5, note one, and wait 1 when it was not
      // held back) was answered in the sandbox; only the others crossed to the host.
      const recorded = paused.calls.filter((call) => call.status !== "paused");
      expect(recorded.length).toBeGreaterThanOrEqual(3);
      expect(observed.crossings.replayed.reduce((sum, count) => sum + count, 0)).toBe(recorded.length);
      expect(observed.crossings.calls).toHaveLength(6 - recorded.length);
      expect(observed.crossings.calls).toContain("gated_note");
      expect(observed.crossings.calls.at(-1)).toBe("note");
      expect(resumed.calls).toHaveLength(6);
    });

    for (const [attack, code] of Object.entries(BLIND_SPOTS)) {
      it(`a resume of code that depends on ${attack} diverges safely (ReplayDiverged, 0 live calls) or replays what it saw`, async () => {
        const pausing = { approval: "pause" as const, pause: { key: CHECKPOINT_KEY } };
        const { cm, writes, tools, ran } = make(pausing);
        const paused = await cm.run(code);
        expect(paused.status).toBe("paused");
        const recorded = [...writes];
        const before = ran();
        const elsewhere = codeMode({ tools, environment, ...pausing });
        modes.push(elsewhere);
        const resumed = await elsewhere.resume(paused.checkpoint!, {
          decisions: { [paused.pending![0]!.id]: true },
        });
        // The difference is likely, not certain (a resume may happen to count the same ticks): either way
        // no recorded effect runs again, and only the approved call may run live.
        if (resumed.status === "ok") {
          expect(ran() - before).toBe(1);
          expect(writes).toEqual([...recorded, "after"]);
          return;
        }
        expect(resumed.status).toBe("error");
        expect(resumed.error?.name).toBe(REPLAY_DIVERGED);
        expect(resumed.error?.message).toMatch(
          /differs from the journal \(other arguments\): the code called note/,
        );
        expect(ran() - before).toBe(0);
        expect(writes).toEqual(recorded);
      });
    }

    it("a resume where the sandbox sees another time zone than the paused run's diverges safely, naming both: 0 live calls", async () => {
      // The checkpoint says its run was paused where the zone was Pacific/Kiritimati (re-sealed with the
      // host's key, as a pause on a machine there would have made it); no sandbox here is in that zone.
      const pausing = { approval: "pause" as const, pause: { key: CHECKPOINT_KEY } };
      const { cm, writes, tools, ran } = make(pausing);
      const paused = await cm.run(`
        await tools.note({ text: "at " + new Date(0).getHours() + " o'clock" });
        return await tools.gated_note({ text: "after" });`);
      expect(paused.status).toBe("paused");
      const key = checkpointKeyBytes(CHECKPOINT_KEY);
      const body = openCheckpoint<{ journal: PackedJournal }>(paused.checkpoint!, key, {});
      const seen = body.state.journal.zone;
      expect(seen).toEqual({ timeZone: expect.any(String), locale: expect.any(String) });
      body.state.journal.zone = { timeZone: "Pacific/Kiritimati", locale: seen!.locale };
      const before = ran();
      const elsewhere = codeMode({ tools, environment, ...pausing });
      modes.push(elsewhere);
      const resumed = await elsewhere.resume(sealCheckpoint(body, key).text, {
        decisions: { [paused.pending![0]!.id]: true },
      });
      expect(resumed.status).toBe("error");
      expect(resumed.error?.name).toBe(REPLAY_DIVERGED);
      expect(resumed.error?.message).toContain(
        `the paused run's code saw the time zone Pacific/Kiritimati and the locale ${seen!.locale}, and this sandbox's code sees ${seen!.timeZone} and ${seen!.locale}`,
      );
      expect(ran() - before).toBe(0);
      expect(writes).toHaveLength(1);
    });

    it("finds tools with tools.$search and tools.$describe, which are not tool calls", async () => {
      const { cm } = make({ discovery: "search", limits: { maxToolCalls: 1 } });
      const result = await cm.run(`
        const found = await tools.$search("write a note", { limit: 2 });
        const declared = await tools.$describe("add");
        let unknown;
        try { await tools.$describe("addd"); } catch (e) { unknown = [e.kind, e.message]; }
        let bad;
        try { await tools.$search("note", { limit: 0 }); } catch (e) { bad = e.kind; }
        const sum = await tools.add({ a: 1, b: 2 });
        return { names: found.map((m) => m.name), declared, unknown, bad, sum };`);
      expect(result.status).toBe("ok");
      expect(result.value).toEqual({
        names: ["note", "gated_note"],
        declared: "/** Add. */\nadd(args: { a: number; b: number }): Promise<unknown>;",
        unknown: [
          "invalid_arguments",
          expect.stringMatching(/^There is no tool named "addd"\. Close names: add/),
        ],
        bad: "invalid_arguments",
        sum: 3,
      });
      expect(result.calls.map((call) => call.tool)).toEqual(["add"]);
      expect(result.discovery?.map((record) => record.kind)).toEqual(["search", "describe", "describe"]);
    });

    it("a run that searched before a gated call pauses and resumes by replay", async () => {
      const pausing = {
        approval: "pause" as const,
        pause: { key: CHECKPOINT_KEY },
        discovery: "search" as const,
      };
      const { cm, writes, tools } = make(pausing);
      const code = `
        await tools.note({ text: "one" });
        const [found] = await tools.$search("note once approved", { limit: 1 });
        const two = await tools[found.name]({ text: "two" });
        return { found: found.name, two };`;
      const paused = await cm.run(code);
      expect(paused.status).toBe("paused");
      expect(paused.pending?.map((call) => call.tool)).toEqual(["gated_note"]);
      const elsewhere = codeMode({ tools, environment, ...pausing });
      modes.push(elsewhere);
      const resumed = await elsewhere.resume(paused.checkpoint!, {
        decisions: { [paused.pending![0]!.id]: true },
      });
      expect(resumed).toMatchObject({ status: "ok", value: { found: "gated_note", two: 2 } });
      expect(writes).toEqual(["one", "two"]);
    });

    it("a thrown object that is not an Error reaches the caller as what it is", async () => {
      const { cm } = make();
      const result = await cm.run("throw { weird: true };");
      expect(result.status).toBe("error");
      expect(result.error?.message).toContain("the code threw a value that is not an Error: { weird: true }");
    });

    it("keeps variables within a session, and restart starts it over", async () => {
      const { cm } = make({ state: "session" });
      await cm.run("var count = 41;", { session: "s" });
      expect((await cm.run("count + 1", { session: "s" })).value).toBe(42);
      expect((await cm.run("typeof count", { session: "s", restart: true })).value).toBe("undefined");
    });

    it("refuses resizable buffers and caps tool arguments inside the sandbox", async () => {
      const { cm } = make();
      const resizable = await cm.run("new ArrayBuffer(0, { maxByteLength: 2**30 })");
      expect(resizable.error?.message).toMatch(/Resizable ArrayBuffers/);
      const big = await cm.run(
        'try { await tools.add({ a: 1, b: 2, pad: "x".repeat(2_000_000) }); } catch (e) { return e.kind; }',
      );
      expect(big.value).toBe("invalid_arguments");
    });

    it("restarts a session whose earlier run changed what the plumbing relies on", async () => {
      const { cm } = make({ state: "session" });
      await cm.run(
        "Object.defineProperty(Object.prototype, 'then', { get() { return undefined; }, configurable: true }); 1",
        { session: "t" },
      );
      const next = await cm.run("await tools.add({ a: 2, b: 2 })", { session: "t" });
      expect(next.value).toBe(4);
      expect(next.logs[0]?.text).toMatch(/started afresh/);
    });

    // Not asked of the in-process isolate: there the agent's process would die with it (as documented).
    if (subject.containsCrashes)
      it("contains a V8 fatal error: the run ends as out of memory, the next works", async () => {
        const { cm } = make();
        // A 2 GB array: past V8's largest, so V8 ends its process on every Node.
        const result = await cm.run('"x".repeat(2**28).split("").length');
        expect(result.status).toBe("limit");
        expect(result.error?.message).toMatch(/agent's process is fine/);
        expect((await cm.run("1 + 1")).value).toBe(2);
      });
  });
}

describe("conformance: nothing is left behind", () => {
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  it("no sandbox process of this process and no sandbox container outlive the suites", async () => {
    await Promise.all(servers.map((server) => server.close()));
    await expect.poll(() => sandboxChildren().length, { timeout: 10_000 }).toBe(0);
    if (DOCKER_SUITES) {
      const labelled = await engine().listContainers({
        all: true,
        filters: { label: [`cordon.owner.pid=${process.pid}`] },
      });
      expect(labelled).toEqual([]);
    }
  });
});
