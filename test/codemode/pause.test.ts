/**
 * Runs that pause at a call that needs a person and resume by replay: every effect happens exactly once,
 * the code sees the same time and random numbers, the people's decisions and answers reach the calls
 * that waited, and a run may pause again. (The two-process version is pause-two-processes.test.ts; every
 * environment is in the conformance suite.)
 */

import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import { checkpointKeyBytes, openCheckpoint, sealCheckpoint } from "../../src/codemode/pause/checkpoint.js";
import type { PackedJournal } from "../../src/codemode/pause/journal.js";
import { REPLAY_DIVERGED } from "../../src/codemode/run.js";
import { askHuman, HumanChannel } from "../../src/entries/builtins.js";
import {
  type CodeMode,
  type CodeModeOptions,
  codeMode,
  Dispatcher,
  fileCheckpointStore,
  memoryCheckpointStore,
  ToolError,
  Toolset,
  tool,
  UserError,
} from "../../src/index.js";
import { TEST_ENVIRONMENTS } from "../isolate/helpers.js";
import { observing } from "./observing-environment.js";

const KEY = "a host secret, 32 bytes at least!";

const opened: CodeMode[] = [];
afterAll(() => Promise.all(opened.map((cm) => cm.close())));

/** Tools with effects: `append` adds a line to `effects`; `send` does too, after approval. */
function world(options: Partial<CodeModeOptions> & { create?: () => CodeModeOptions["environment"] } = {}) {
  const effects: string[] = [];
  const append = tool({
    name: "append",
    description: "Appends a line.",
    input: z.object({ line: z.string() }),
    run: async ({ line }) => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      if (line === "refused") throw new ToolError("this line is refused", { hint: "write another" });
      effects.push(line);
      return effects.length;
    },
  });
  const send = tool({
    name: "send",
    description: "Sends a message, once approved.",
    input: z.object({ to: z.string() }),
    needsApproval: true,
    run: ({ to }) => {
      effects.push(`sent to ${to}`);
      return `sent to ${to}`;
    },
  });
  const channel = new HumanChannel();
  const tools = new Toolset([append, send, askHuman(channel)]);
  const { create, ...rest } = options;
  const make = (more: Partial<CodeModeOptions> = {}) => {
    const cm = codeMode({
      tools,
      environment: create ? create() : isolateEnvironment(),
      approval: "pause",
      pause: { key: KEY },
      ...rest,
      ...more,
    });
    opened.push(cm);
    return cm;
  };
  return { effects, tools, make, cm: make() };
}

const AROUND_A_GATED_CALL = `
  const seen = { t: Date.now(), r: Math.random(), d: new Date().toISOString() };
  await tools.append({ line: "before" });
  const [sent, count] = await Promise.all([tools.send({ to: "ann" }), tools.append({ line: "beside" })]);
  await tools.append({ line: "after" });
  return { seen, sent, count, later: { t: Date.now(), r: Math.random() } };
`;

for (const { name, create } of TEST_ENVIRONMENTS) {
  describe(`[${name}] pausing at an approval and resuming by replay`, () => {
    it("every effect happens once, and the clock and Math.random give what they gave before the pause", async () => {
      const { effects, cm } = world({ create });
      const paused = await cm.run(AROUND_A_GATED_CALL);
      expect(paused.status).toBe("paused");
      expect(paused.pending).toEqual([
        { id: expect.any(String), tool: "send", args: { to: "ann" }, kind: "approval" },
      ]);
      expect(typeof paused.checkpoint).toBe("string");
      // "beside" may have started before the approval paused (then it finished and was recorded).
      expect(effects[0]).toBe("before");
      expect(effects).not.toContain("sent to ann");
      expect(effects).not.toContain("after");
      const seenBefore = await cm.run(
        "return { t: Date.now(), r: Math.random() }", // a run of its own: other values
      );
      const resumed = await cm.resume(paused.checkpoint!, { decisions: { [paused.pending![0]!.id]: true } });
      expect(resumed.status).toBe("ok");
      const value = resumed.value as { seen: { t: number; r: number }; sent: string };
      expect(value.sent).toBe("sent to ann");
      expect(effects.filter((line) => line === "before")).toHaveLength(1);
      expect(effects.filter((line) => line === "beside")).toHaveLength(1);
      expect(effects.filter((line) => line === "after")).toHaveLength(1);
      expect(effects.filter((line) => line === "sent to ann")).toHaveLength(1);
      expect(effects.at(-1)).toBe("after");
      // What the code saw before the pause is what it sees in the replay.
      const journal = openCheckpoint<{ journal: { values: { now: number[]; random: number[] } } }>(
        paused.checkpoint!,
        checkpointKeyBytes(KEY),
        {},
      );
      expect(value.seen.t).toBe(journal.state.journal.values.now[0]);
      expect(value.seen.r).toBe(journal.state.journal.values.random[0]);
      expect(value.seen.r).not.toBe((seenBefore.value as { r: number }).r);
    });

    it("a denial rejects the call in the code with kind denied, and the run goes on", async () => {
      const { effects, cm } = world({ create });
      const paused = await cm.run(`
        await tools.append({ line: "before" });
        try { await tools.send({ to: "bo" }); } catch (error) { await tools.append({ line: "denied: " + error.kind }); }
        return "done";`);
      expect(paused.status).toBe("paused");
      const resumed = await cm.resume(paused.checkpoint!, {
        decisions: { [paused.pending![0]!.id]: { approved: false, reason: "not to bo" } },
      });
      expect(resumed).toMatchObject({ status: "ok", value: "done" });
      expect(effects).toEqual(["before", "denied: denied"]);
    });

    it("two gated calls in one Promise.all are both pending, and both decisions apply", async () => {
      const { effects, cm } = world({ create });
      const paused = await cm.run(`
        const results = await Promise.allSettled([tools.send({ to: "cy" }), tools.send({ to: "di" })]);
        return results.map((r) => r.status === "fulfilled" ? r.value : r.reason.kind);`);
      expect(paused.status).toBe("paused");
      expect(paused.pending?.map((call) => call.args)).toEqual([{ to: "cy" }, { to: "di" }]);
      const [cy, di] = paused.pending!;
      const resumed = await cm.resume(paused.checkpoint!, { decisions: { [cy!.id]: true, [di!.id]: false } });
      expect(resumed).toMatchObject({ status: "ok", value: ["sent to cy", "denied"] });
      expect(effects).toEqual(["sent to cy"]);
    });

    it("an ask_human question pauses, and its answer is the call's value on resume", async () => {
      const { effects, cm } = world({ create });
      const paused = await cm.run(`
        const colour = await tools.ask_human({ question: "Which colour?", multi_select: false });
        await tools.append({ line: "colour " + colour });
        return colour;`);
      expect(paused.status).toBe("paused");
      expect(paused.pending).toEqual([
        {
          id: expect.any(String),
          tool: "ask_human",
          args: expect.objectContaining({ question: "Which colour?" }),
          kind: "question",
        },
      ]);
      const resumed = await cm.resume(paused.checkpoint!, { answers: { [paused.pending![0]!.id]: "blue" } });
      expect(resumed).toMatchObject({ status: "ok", value: "blue" });
      expect(effects).toEqual(["colour blue"]);
    });

    it("a resumed run may pause again, and the second resume replays both parts", async () => {
      const { effects, cm } = world({ create });
      const code = `
        await tools.append({ line: "one" });
        await tools.send({ to: "first" });
        await tools.append({ line: "two" });
        await tools.send({ to: "second" });
        await tools.append({ line: "three" });
        return Math.random();`;
      const first = await cm.run(code);
      const second = await cm.resume(first.checkpoint!, { decisions: { [first.pending![0]!.id]: true } });
      expect(second.status).toBe("paused");
      expect(second.pending?.[0]?.args).toEqual({ to: "second" });
      expect(second.checkpointId).not.toBe(first.checkpointId);
      const third = await cm.resume(second.checkpoint!, { decisions: { [second.pending![0]!.id]: true } });
      expect(third.status).toBe("ok");
      expect(effects).toEqual(["one", "sent to first", "two", "sent to second", "three"]);
      expect(third.calls.map((call) => call.status)).toEqual(["ok", "ok", "ok", "ok", "ok"]);
    });

    it("the calls in flight when the run pauses finish and are recorded, not repeated", async () => {
      const { effects, cm } = world({ create });
      const paused = await cm.run(`
        const slow = tools.append({ line: "in flight" });
        const sent = tools.send({ to: "ed" });
        return [await slow, await sent];`);
      expect(paused.status).toBe("paused");
      expect(effects).toEqual(["in flight"]);
      const resumed = await cm.resume(paused.checkpoint!, { decisions: { [paused.pending![0]!.id]: true } });
      expect(resumed).toMatchObject({ status: "ok", value: [1, "sent to ed"] });
      expect(effects).toEqual(["in flight", "sent to ed"]);
    });

    it("a call that failed before the pause fails again on resume with the same kind and message, without running", async () => {
      const { effects, cm } = world({ create });
      const code = `
        let caught;
        try { await tools.append({ line: "refused" }); } catch (error) { caught = [error.kind, error.message]; }
        await tools.send({ to: "kim" });
        return caught;`;
      const paused = await cm.run(code);
      expect(paused.status).toBe("paused");
      const resumed = await cm.resume(paused.checkpoint!, { decisions: { [paused.pending![0]!.id]: true } });
      expect(resumed.status).toBe("ok");
      expect(resumed.value).toEqual(["error", "this line is refused Hint: write another"]);
      expect(resumed.calls.map((call) => call.status)).toEqual(["error", "ok"]);
      expect(effects).toEqual(["sent to kim"]);
    });

    it("a sandbox that is not sent the journal (one too large to send) is answered by the host from it: the same effects and values", async () => {
      const observed = observing(create(), { withoutJournal: true });
      const { effects, cm, make } = world({ create });
      const paused = await cm.run(AROUND_A_GATED_CALL);
      expect(paused.status).toBe("paused");
      const hostReplayed = make({ environment: observed.environment });
      const before = [...effects];
      const resumed = await hostReplayed.resume(paused.checkpoint!, {
        decisions: { [paused.pending![0]!.id]: true },
      });
      expect(resumed.status).toBe("ok");
      // Every call crossed to the host, and the sandbox replayed none itself; only send and "after" ran.
      expect(observed.crossings.replayed).toEqual([]);
      expect(observed.crossings.calls).toEqual(["append", "send", "append", "append"]);
      expect(effects.slice(before.length).sort()).toEqual(
        ["after", "sent to ann", ...(before.includes("beside") ? [] : ["beside"])].sort(),
      );
      const value = resumed.value as { seen: { t: number; r: number }; sent: string };
      expect(value.sent).toBe("sent to ann");
      const journal = openCheckpoint<{ journal: { values: { now: number[]; random: number[] } } }>(
        paused.checkpoint!,
        checkpointKeyBytes(KEY),
        {},
      );
      expect(value.seen.t).toBe(journal.state.journal.values.now[0]);
      expect(value.seen.r).toBe(journal.state.journal.values.random[0]);
      await observed.environment.close();
    });

    it("a resume whose code ends before making every recorded call again is ReplayDiverged, naming the first call it did not make", async () => {
      // The journal is edited (and re-sealed with the host's key) so that the first call's recorded result
      // sends the code down a shorter path: the sandbox replays that call itself, and must tell the host
      // so before the run's end, or the host would name the wrong call.
      const { effects, cm } = world({ create });
      const paused = await cm.run(`
        const n = await tools.append({ line: "one" });
        if (n !== 1) return "a shorter path";
        await tools.append({ line: "two" });
        await tools.send({ to: "pam" });`);
      expect(paused.status).toBe("paused");
      const key = checkpointKeyBytes(KEY);
      const body = openCheckpoint<{ journal: PackedJournal }>(paused.checkpoint!, key, {});
      // Call 1's outcome (the third field of its row): the value 2 instead of 1.
      body.state.journal.calls[0]![2] = "o2";
      const resumed = await cm.resume(sealCheckpoint(body, key).text, {
        decisions: { [paused.pending![0]!.id]: true },
      });
      expect(resumed.status).toBe("error");
      expect(resumed.error?.name).toBe(REPLAY_DIVERGED);
      expect(resumed.error?.message).toContain("ended before it made call 2 (append) again");
      expect(effects).toEqual(["one", "two"]);
    });
  });
}

describe("pausing and resuming: what the resumed run shows and counts", () => {
  it("console output of the replayed part is not written again, and the result keeps the whole run's output once", async () => {
    const { cm } = world();
    const paused = await cm.run(`
      console.log("before the pause");
      await tools.send({ to: "fay" });
      console.log("after the pause");`);
    expect(paused.logs.map((entry) => entry.text)).toEqual(["before the pause"]);
    const resumed = await cm.resume(paused.checkpoint!, { decisions: { [paused.pending![0]!.id]: true } });
    expect(resumed.logs.map((entry) => entry.text)).toEqual(["before the pause", "after the pause"]);
  });

  it("time spent paused does not count against the run's time limit", async () => {
    const { cm } = world({ limits: { timeoutMs: 1_000 } });
    const paused = await cm.run(`await tools.send({ to: "gus" }); return "in time";`);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const resumed = await cm.resume(paused.checkpoint!, { decisions: { [paused.pending![0]!.id]: true } });
    expect(resumed).toMatchObject({ status: "ok", value: "in time" });
  });

  it("a pending call left without a decision waits again: the run pauses again with it", async () => {
    const { effects, cm } = world();
    const paused = await cm.run(`
      return await Promise.all([tools.send({ to: "hal" }), tools.send({ to: "ida" })]);`);
    const [hal, ida] = paused.pending!;
    const again = await cm.resume(paused.checkpoint!, { decisions: { [hal!.id]: true } });
    expect(again.status).toBe("paused");
    expect(again.pending).toEqual([{ ...ida, id: ida!.id }]);
    const done = await cm.resume(again.checkpoint!, { decisions: { [ida!.id]: true } });
    expect(done).toMatchObject({ status: "ok", value: ["sent to hal", "sent to ida"] });
    expect(effects).toEqual(["sent to hal", "sent to ida"]);
  });

  it("an approval handler that decides on the spot decides; only what it asks about pauses", async () => {
    const { effects, tools } = world();
    const cm = codeMode({
      dispatcher: new Dispatcher(tools, {
        approvalHandler: ({ args }) => ((args as { to: string }).to === "jo" ? "allow" : "ask"),
      }),
      environment: isolateEnvironment(),
      approval: "pause",
      pause: { key: KEY },
    });
    opened.push(cm);
    const paused = await cm.run(`
      await tools.send({ to: "jo" });
      await tools.send({ to: "kim" });`);
    expect(paused.status).toBe("paused");
    expect(paused.pending?.map((call) => call.args)).toEqual([{ to: "kim" }]);
    expect(effects).toEqual(["sent to jo"]);
  });

  it("a run with approval pause whose code never waits on the gated call ends as it would have", async () => {
    const { effects, cm } = world();
    const result = await cm.run(`tools.send({ to: "lu" }).catch(() => {}); return "not waiting";`);
    expect(result).toMatchObject({ status: "ok", value: "not waiting" });
    expect(result.checkpoint).toBeUndefined();
    expect(effects).toEqual([]);
  });

  it("approval can be chosen per run: pause for one, wait (with a handler) for another", async () => {
    const { tools } = world();
    const cm = codeMode({
      dispatcher: new Dispatcher(tools, { approvalHandler: () => "deny" }),
      environment: isolateEnvironment(),
      pause: { key: KEY },
    });
    opened.push(cm);
    const waited = await cm.run(`try { await tools.send({ to: "max" }); } catch (e) { return e.kind; }`);
    expect(waited).toMatchObject({ status: "ok", value: "denied" });
  });
});

describe("resuming refuses what it cannot honour, before anything runs", () => {
  it("a decision naming a call that does not wait, or of the wrong kind, is a UserError", async () => {
    const { cm } = world();
    const paused = await cm.run(`await tools.send({ to: "ned" });`);
    await expect(cm.resume(paused.checkpoint!, { decisions: { "no-such-call": true } })).rejects.toThrow(
      /does not wait in this checkpoint/,
    );
    await expect(
      cm.resume(paused.checkpoint!, { answers: { [paused.pending![0]!.id]: "yes" } }),
    ).rejects.toBeInstanceOf(UserError);
  });

  it("pause.onCheckpointUsed can refuse what the claim lets through: a host that allows no forks records the ids it used", async () => {
    const used = new Set<string>();
    const { effects, cm } = world({
      pause: {
        key: KEY,
        onCheckpointUsed: ({ id }) => {
          if (used.has(id)) return false;
          used.add(id);
          return true;
        },
      },
    });
    const paused = await cm.run(`await tools.send({ to: "oz" });`);
    const decisions = { [paused.pending![0]!.id]: true };
    expect((await cm.resume(paused.checkpoint!, { decisions })).status).toBe("ok");
    await expect(cm.resume(paused.checkpoint!, { decisions, fork: true })).rejects.toMatchObject({
      name: "CheckpointRefused",
      problem: "reused",
      message: expect.stringContaining("onCheckpointUsed refused"),
    });
    expect(effects).toEqual(["sent to oz"]);
  });

  it("a resume whose code asks for other calls than its journal stops before any call runs: ReplayDiverged", async () => {
    // The host's own key re-seals a journal edited to disagree with the code, as a non-deterministic
    // dependency would make it: the resume must notice at the first call that differs.
    const { effects, cm } = world();
    const paused = await cm.run(`
      await tools.append({ line: "recorded" });
      await tools.send({ to: "pam" });`);
    const { openCheckpoint, sealCheckpoint, checkpointKeyBytes } = await import(
      "../../src/codemode/pause/checkpoint.js"
    );
    const key = checkpointKeyBytes(KEY);
    const body = openCheckpoint<{ journal: PackedJournal }>(paused.checkpoint!, key, {});
    body.state.journal.calls[0]![1] = '{"line":"something else"}';
    const { text } = sealCheckpoint(body, key);
    const resumed = await cm.resume(text, { decisions: { [paused.pending![0]!.id]: true } });
    expect(resumed.status).toBe("error");
    expect(resumed.error?.name).toBe(REPLAY_DIVERGED);
    expect(resumed.error?.message).toContain('append({"line":"recorded"})');
    expect(effects).toEqual(["recorded"]);
  });
});

describe("a resume in a process whose time zone is not the paused run's", () => {
  it("stops before any call, naming both zones and what to do: ReplayDiverged, 0 live calls, no silent other local time", async () => {
    // The zone reaches the code only after the approved call: without the check, the resume would send
    // the approved message and return another local time than the paused run would have.
    const saved = process.env.TZ;
    try {
      process.env.TZ = "Asia/Tokyo";
      const { effects, cm, make } = world();
      const paused = await cm.run(`
        await tools.append({ line: "before" });
        await tools.send({ to: "pam" });
        return { hour: new Date(0).getHours(), zone: Intl.DateTimeFormat().resolvedOptions().timeZone };`);
      expect(paused.status).toBe("paused");
      // The agent restarts elsewhere: its process, and with it the in-process sandbox, has another zone.
      process.env.TZ = "America/New_York";
      const resumed = await make().resume(paused.checkpoint!, {
        decisions: { [paused.pending![0]!.id]: true },
      });
      expect(resumed.status).toBe("error");
      expect(resumed.error?.name).toBe(REPLAY_DIVERGED);
      expect(resumed.error?.message).toMatch(
        /the paused run's code saw the time zone Asia\/Tokyo and the locale (\S+), and this sandbox's code sees America\/New_York and \1\. It was stopped before any call ran again/,
      );
      expect(resumed.error?.message).toContain("the agent's TZ and LANG environment variables");
      expect(effects).toEqual(["before"]);
      // Back in the zone it paused in, the same checkpoint resumes.
      process.env.TZ = "Asia/Tokyo";
      const again = await make().resume(paused.checkpoint!, {
        decisions: { [paused.pending![0]!.id]: true },
      });
      expect(again).toMatchObject({ status: "ok", value: { hour: 9, zone: "Asia/Tokyo" } });
      expect(effects).toEqual(["before", "sent to pam"]);
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });
});

describe("a checkpoint is refused before anything runs", () => {
  /** A paused run whose resume would append "resumed" (and send) if it ran. */
  async function pausedRun(options: Partial<CodeModeOptions> = {}) {
    const w = world(options);
    const paused = await w.cm.run(
      `await tools.send({ to: "sam" }); await tools.append({ line: "resumed" });`,
    );
    expect(paused.status).toBe("paused");
    return { ...w, paused, decisions: { [paused.pending![0]!.id]: true } };
  }

  it("tampering with any byte of a checkpoint is refused", async () => {
    const { cm, paused, decisions, effects } = await pausedRun();
    const text = paused.checkpoint!;
    for (let i = 0; i < text.length; i++) {
      const tampered = text.slice(0, i) + (text[i] === "A" ? "B" : "A") + text.slice(i + 1);
      if (tampered === text) continue;
      await expect(cm.resume(tampered, { decisions })).rejects.toMatchObject({ name: "CheckpointRefused" });
    }
    expect(effects).toEqual([]);
  });

  it("a checkpoint made with another key is refused", async () => {
    const { paused, decisions, effects, tools } = await pausedRun();
    const other = codeMode({
      tools,
      environment: isolateEnvironment(),
      pause: { key: "another host's 32-byte secret!!" },
    });
    opened.push(other);
    await expect(other.resume(paused.checkpoint!, { decisions })).rejects.toMatchObject({
      problem: "another-key",
    });
    expect(effects).toEqual([]);
  });

  it("an expired checkpoint is refused", async () => {
    const { cm, paused, decisions, effects } = await pausedRun({ pause: { key: KEY, ttlMs: 50 } });
    await new Promise((resolve) => setTimeout(resolve, 80));
    await expect(cm.resume(paused.checkpoint!, { decisions })).rejects.toMatchObject({ problem: "expired" });
    expect(effects).toEqual([]);
  });

  it("a checkpoint made before a tool's schema changed is refused", async () => {
    const { paused, decisions, effects, tools } = await pausedRun();
    const changedSend = tool({
      name: "send",
      description: "Sends a message, once approved.",
      input: z.object({ to: z.string(), cc: z.string().optional() }),
      needsApproval: true,
      run: () => "sent",
    });
    const changed = codeMode({
      tools: new Toolset([...tools.list().filter((t) => t.name !== "send"), changedSend]),
      environment: isolateEnvironment(),
      pause: { key: KEY },
    });
    opened.push(changed);
    await expect(changed.resume(paused.checkpoint!, { decisions })).rejects.toMatchObject({
      problem: "tools",
    });
    expect(effects).toEqual([]);
  });

  it("a checkpoint made before a limit changed is refused", async () => {
    const { paused, decisions, effects, tools } = await pausedRun();
    const changed = codeMode({
      tools,
      environment: isolateEnvironment(),
      pause: { key: KEY },
      limits: { maxToolCalls: 99 },
    });
    opened.push(changed);
    await expect(changed.resume(paused.checkpoint!, { decisions })).rejects.toMatchObject({
      problem: "limits",
    });
    expect(effects).toEqual([]);
  });
});

describe("pause settings", () => {
  it("approval pause without a pause.key, or with sessions, is a UserError at creation", () => {
    const { tools } = world();
    expect(() => codeMode({ tools, environment: isolateEnvironment(), approval: "pause" })).toThrow(
      /needs pause.key/,
    );
    expect(() =>
      codeMode({
        tools,
        environment: isolateEnvironment(),
        approval: "pause",
        pause: { key: KEY },
        state: "session",
      }),
    ).toThrow(/does not work with state "session"/);
  });

  it("large recorded values can live in a store: the checkpoint keeps their digests, and resuming reads them back", async () => {
    const store = memoryCheckpointStore();
    const big = tool({
      name: "big",
      description: "A large value.",
      input: z.object({}),
      run: () => "x".repeat(50_000),
    });
    const { tools } = world();
    const make = () =>
      codeMode({
        tools: new Toolset([...tools.list(), big]),
        environment: isolateEnvironment(),
        approval: "pause",
        pause: { key: KEY, store },
      });
    const cm = make();
    opened.push(cm);
    const paused = await cm.run(
      `const v = await tools.big({}); await tools.send({ to: "quin" }); return v.length;`,
    );
    expect(paused.status).toBe("paused");
    expect(paused.checkpoint!.length).toBeLessThan(10_000);
    expect(store.size).toBe(1);
    const resumed = await cm.resume(paused.checkpoint!, { decisions: { [paused.pending![0]!.id]: true } });
    expect(resumed).toMatchObject({ status: "ok", value: 50_000 });
    const withoutStore = codeMode({
      tools: new Toolset([...tools.list(), big]),
      environment: isolateEnvironment(),
      pause: { key: KEY },
    });
    opened.push(withoutStore);
    await expect(withoutStore.resume(paused.checkpoint!)).rejects.toMatchObject({ problem: "store" });
  });

  it("the file store keeps values as files only their owner can read, and a changed file is refused", async () => {
    const directory = await mkdtemp(join(tmpdir(), "cordon-store-"));
    try {
      const store = fileCheckpointStore(directory);
      const big = tool({
        name: "big",
        description: "Large.",
        input: z.object({}),
        run: () => "y".repeat(5_000),
      });
      const { tools } = world();
      const cm = codeMode({
        tools: new Toolset([...tools.list(), big]),
        environment: isolateEnvironment(),
        approval: "pause",
        pause: { key: KEY, store },
      });
      opened.push(cm);
      const paused = await cm.run(
        `const v = await tools.big({}); await tools.send({ to: "rex" }); return v.length;`,
      );
      const [file] = await readdir(directory);
      const { stat, writeFile } = await import("node:fs/promises");
      expect((await stat(join(directory, file!))).mode & 0o777).toBe(0o600);
      await writeFile(join(directory, file!), "z".repeat(5_000));
      await expect(cm.resume(paused.checkpoint!)).rejects.toMatchObject({ problem: "store" });
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describe("run_code with approval pause, dispatched as a tool call", () => {
  it("a paused run is a failed call of kind paused carrying the checkpoint, and resumeCall answers that same call", async () => {
    const { effects, tools } = world();
    const cm = codeMode({ tools, environment: isolateEnvironment(), approval: "pause", pause: { key: KEY } });
    opened.push(cm);
    const dispatcher = new Dispatcher(new Toolset([cm.tool]));
    const handle = dispatcher.dispatch([
      { id: "call_1", name: "run_code", arguments: { code: `return await tools.send({ to: "tia" });` } },
    ]);
    const [result] = (await handle.outcome()).results;
    expect(result).toMatchObject({ ok: false, attempts: 1, error: { kind: "paused" } });
    const paused = result!.error!.paused!;
    expect(paused.pending).toEqual([
      { id: expect.any(String), tool: "send", args: { to: "tia" }, kind: "approval" },
    ]);
    const final = await cm.resumeCall(
      { callId: result!.callId, paused },
      { decisions: { [paused.pending[0]!.id]: true } },
    );
    expect(final).toMatchObject({ callId: "call_1", name: "run_code", ok: true });
    expect(final.output).toContain('"sent to tia"');
    expect(effects).toEqual(["sent to tia"]);
  });

  it("resumed with approval wait, a later gated call is decided by the approval handler instead of pausing again", async () => {
    const { effects, tools } = world();
    const cm = codeMode({
      dispatcher: new Dispatcher(tools, { approvalHandler: () => "allow" }),
      environment: isolateEnvironment(),
      approval: "pause",
      pause: { key: KEY },
    });
    opened.push(cm);
    // The handler allows everything, so pausing needs a call it does not see: a question.
    const paused = await cm.run(`
      const answer = await tools.ask_human({ question: "Go on?", multi_select: false });
      await tools.send({ to: "uma" });
      return answer;`);
    expect(paused.pending?.[0]?.kind).toBe("question");
    const resumed = await cm.resume(paused.checkpoint!, {
      answers: { [paused.pending![0]!.id]: "yes" },
      approval: "wait",
    });
    expect(resumed).toMatchObject({ status: "ok", value: "yes" });
    expect(effects).toEqual(["sent to uma"]);
  });
});
