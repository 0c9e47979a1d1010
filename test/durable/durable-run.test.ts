/**
 * Durable runs in one process, on the memory store: what a run journals, a run abandoned halfway and
 * recovered by another code mode sharing the store, unknown outcomes, claims, and refusals.
 */

import { afterAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import type { Environment, ExecutionRequest, LogEntry, SandboxBridge } from "../../sandbox/contract/index.js";
import { RecoveryRefused } from "../../src/codemode/durable/journaled-run.js";
import { memoryJournal } from "../../src/codemode/durable/memory-journal.js";
import { openRecord, type RunRecord, sealRecord } from "../../src/codemode/durable/records.js";
import type { JournalRecord, RunJournal } from "../../src/codemode/durable/run-journal.js";
import { checkpointKeyBytes } from "../../src/codemode/pause/checkpoint.js";
import { type CodeMode, type CodeModeOptions, codeMode, Toolset, tool, UserError } from "../../src/index.js";
import type { RunContext } from "../../src/tools/types.js";
import { crashable, effectWorld, FORTY_CALLS, FORTY_CALLS_VALUE, KEY, recordsIn } from "./helpers.js";

const opened: CodeMode[] = [];
afterAll(() => Promise.all(opened.map((cm) => cm.close())));

function make(tools: CodeModeOptions["tools"], journal: RunJournal, more: Partial<CodeModeOptions> = {}) {
  const cm = codeMode({
    tools,
    environment: isolateEnvironment(),
    pause: { key: KEY },
    journal: { store: journal, leaseMs: 300 },
    ...more,
  });
  opened.push(cm);
  return cm;
}

/** Runs FORTY_CALLS until `effects` has `at` effects, then crashes its store handle. */
async function crashedRun(idempotent: boolean, at: number) {
  const store = memoryJournal();
  const { journal, crash } = crashable(store);
  const world = effectWorld({ idempotent, onEffect: (n) => n === at && crash() });
  const first = make([world.effect], journal);
  let runId = "";
  const result = await first.run(FORTY_CALLS, { onRunStart: (run) => (runId = run.runId) });
  return { store, world, result, runId };
}

describe("a durable run", () => {
  it("journals every call ahead and ends its journal; the result carries its run id", async () => {
    const store = memoryJournal();
    const world = effectWorld({ idempotent: false });
    const cm = make([world.effect], store);
    const told: string[] = [];
    const result = await cm.run(FORTY_CALLS, {
      runId: "order-7",
      onRunStart: ({ runId }) => told.push(runId),
    });
    expect(result).toMatchObject({ status: "ok", value: FORTY_CALLS_VALUE, runId: "order-7" });
    expect(told).toEqual(["order-7"]);
    expect(world.effects).toEqual(world.invocations);
    expect(new Set(world.effects)).toEqual(new Set(Array.from({ length: 40 }, (_, i) => `order-7:${i}`)));
    const stored = await store.read("order-7");
    expect(stored?.ended).toBe(true);
    // A header, 40 starts, 40 outcomes, the recorded values, and the end.
    const records = recordsIn(stored!.records);
    expect(records[0]?.t).toBe("header");
    expect(records.filter((r) => r.t === "start")).toHaveLength(40);
    expect(records.filter((r) => r.t === "outcome")).toHaveLength(40);
    expect(records.at(-1)).toMatchObject({ t: "end", status: "ok" });
  });

  it("refuses a run id the journal has already, before any call of the second run starts (told or not)", async () => {
    const store = memoryJournal();
    const world = effectWorld({ idempotent: false });
    const cm = make([world.effect], store);
    await cm.run("return 1", { runId: "once" });
    const second = cm.run("return await tools.effect({ n: 1 })", { runId: "once" });
    await expect(second).rejects.toBeInstanceOf(UserError);
    await expect(second).rejects.toThrow(/is in the journal already/);
    const told: string[] = [];
    const third = cm.run("return await tools.effect({ n: 1 })", {
      runId: "once",
      onRunStart: ({ runId }) => told.push(runId),
    });
    await expect(third).rejects.toBeInstanceOf(UserError);
    expect(told).toEqual([]);
    expect(world.invocations).toEqual([]);
    expect(recordsIn((await store.read("once"))!.records).at(-1)).toMatchObject({ t: "end", status: "ok" });
  });

  it("starts the code while its run is created in the store; its first call waits until the run is there", async () => {
    const store = memoryJournal();
    const events: string[] = [];
    // The creation finishes only once the code has run its first line (or after 2 s: then this fails).
    const slow: RunJournal = {
      ...store,
      create: async (...args) => {
        await vi.waitFor(() => expect(events).toContain("log"), { timeout: 2_000 }).catch(() => {});
        const created = await store.create(...args);
        events.push("created");
        return created;
      },
    };
    const world = effectWorld({ idempotent: false, onEffect: () => events.push("effect") });
    const cm = make([world.effect], slow, { environment: watchingLogs(isolateEnvironment(), events) });
    const result = await cm.run("console.log('started'); return await tools.effect({ n: 2 })", {
      runId: "slow",
    });
    expect(result).toMatchObject({ status: "ok", value: 4 });
    expect(events).toEqual(["log", "created", "effect"]);
  });

  it("a store that fails to create the run: the run fails with JournalFailed, and no call starts", async () => {
    const store = memoryJournal();
    const failing: RunJournal = {
      ...store,
      create: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new Error("the database is down");
      },
    };
    const world = effectWorld({ idempotent: false });
    for (const onRunStart of [undefined, () => {}]) {
      const result = await make([world.effect], failing).run("return await tools.effect({ n: 2 })", {
        ...(onRunStart ? { onRunStart } : {}),
      });
      expect(result.status).toBe("error");
      expect(result.error).toMatchObject({ name: "JournalFailed" });
      expect(result.error?.message).toContain("the database is down");
    }
    expect(world.invocations).toEqual([]);
  });

  it("needs pause.key", () => {
    expect(() =>
      codeMode({ tools: [], environment: isolateEnvironment(), journal: memoryJournal() }),
    ).toThrow(/pause\.key/);
  });

  it("is recovered by another code mode after its process died: each effect once, the same value", async () => {
    const { store, world, result, runId } = await crashedRun(true, 17);
    expect(result.status).toBe("error");
    expect(result.error?.name).toBe("JournalFailed");
    const second = make([world.effect], store);
    await vi.waitFor(async () =>
      expect((await second.incompleteRuns()).map((r) => r.runId)).toContain(runId),
    );
    const recovered = await second.recover(runId);
    expect(recovered).toMatchObject({ status: "ok", value: FORTY_CALLS_VALUE, runId });
    expect([...world.effects].sort()).toEqual(Array.from({ length: 40 }, (_, i) => `${runId}:${i}`).sort());
    // Only calls in flight at the crash ran twice (with the same key).
    const twice = world.invocations.filter((key, i) => world.invocations.indexOf(key) !== i);
    expect(twice.length).toBeLessThanOrEqual(20);
    expect((await store.read(runId))?.ended).toBe(true);
  });

  it("a call in flight that is not idempotent pauses the recovery as unknown-outcome; a decision finishes it", async () => {
    const { store, world, runId } = await crashedRun(false, 4);
    const second = make([world.effect], store);
    await vi.waitFor(async () =>
      expect((await second.incompleteRuns()).map((r) => r.runId)).toContain(runId),
    );
    const before = world.invocations.length;
    const paused = await second.recover(runId);
    expect(paused.status).toBe("paused");
    expect(world.invocations.length).toBe(before);
    const unknown = paused.pending ?? [];
    expect(unknown.length).toBeGreaterThan(0);
    expect(unknown[0]).toMatchObject({ kind: "unknown-outcome", tool: "effect" });
    expect(unknown[0]?.idempotencyKey).toMatch(new RegExp(`^${runId}:\\d+$`));
    // The person looks each one up by its key: done ones get their result, others run again.
    const decisions = Object.fromEntries(
      unknown.map((call) => {
        const done = world.effects.includes(call.idempotencyKey!);
        const n = (call.args as { n: number }).n;
        return [call.id, done ? { result: n * 2 } : { rerun: true as const }];
      }),
    );
    const finished = await second.recover(runId, { decisions });
    expect(finished).toMatchObject({ status: "ok", value: FORTY_CALLS_VALUE });
    expect([...world.effects].sort()).toEqual(Array.from({ length: 40 }, (_, i) => `${runId}:${i}`).sort());
  });

  it("of two recoverers at once, exactly one wins", async () => {
    const { store, world, runId } = await crashedRun(true, 12);
    const [a, b] = [make([world.effect], store), make([world.effect], store)];
    await vi.waitFor(async () => expect((await a.incompleteRuns()).map((r) => r.runId)).toContain(runId));
    const outcomes = await Promise.allSettled([a.recover(runId), b.recover(runId)]);
    const won = outcomes.filter((o) => o.status === "fulfilled");
    const lost = outcomes.filter((o) => o.status === "rejected");
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect((lost[0] as PromiseRejectedResult).reason).toMatchObject({ problem: "claimed" });
    expect((won[0] as PromiseFulfilledResult<unknown>).value).toMatchObject({ status: "ok" });
    expect(new Set(world.effects).size).toBe(40);
    expect(world.effects).toHaveLength(40);
  });

  it("refuses a run whose lease is live", async () => {
    const store = memoryJournal();
    let release: (() => void) | undefined;
    const slow = tool({
      name: "slow",
      description: "Waits.",
      input: z.object({}),
      run: () => new Promise<number>((resolve) => (release = () => resolve(1))),
    });
    const cm = make([slow], store);
    let runId = "";
    const running = cm.run("return await tools.slow({})", { onRunStart: (run) => (runId = run.runId) });
    await vi.waitFor(() => expect(runId).not.toBe(""));
    await expect(make([slow], store).recover(runId)).rejects.toMatchObject({ problem: "live" });
    // Released once the call has started (the run may not have reached it when recover answered).
    await vi.waitFor(() => expect(release).toBeDefined());
    release!();
    expect((await running).status).toBe("ok");
  });
});

describe("a durable run that ended", () => {
  it("is answered by recover with its result, replayed from its journal: no call runs again, nothing is written", async () => {
    const store = memoryJournal();
    const world = effectWorld({ idempotent: false });
    const first = await make([world.effect], store).run(`console.log("counting"); ${FORTY_CALLS}`, {
      runId: "done-1",
    });
    expect(first).toMatchObject({ status: "ok", value: FORTY_CALLS_VALUE });
    const records = (await store.read("done-1"))!.records.length;
    const again = await make([world.effect], store).recover("done-1");
    expect(again).toMatchObject({ status: "ok", value: FORTY_CALLS_VALUE, runId: "done-1" });
    expect(again.logs).toEqual(first.logs);
    expect(again.calls.map((c) => c.callId).sort()).toEqual(first.calls.map((c) => c.callId).sort());
    expect(world.invocations).toHaveLength(40);
    expect((await store.read("done-1"))!.records).toHaveLength(records);
  });

  it("that failed answers with its failure; one whose replay ends otherwise answers with the failure its journal keeps", async () => {
    const store = memoryJournal();
    const world = effectWorld({ idempotent: false });
    const cm = make([world.effect], store);
    const thrown = await cm.run('await tools.effect({ n: 1 }); throw new RangeError("too far")', {
      runId: "threw",
    });
    expect(thrown.error).toMatchObject({ name: "RangeError", message: "too far" });
    expect(await cm.recover("threw")).toMatchObject({ status: "error", error: thrown.error });
    // The call in flight when the run timed out has "cancelled" as its outcome: the replay catches it
    // and returns, where the run timed out.
    const hangs = tool({
      name: "hangs",
      description: "Waits until its call is aborted.",
      input: z.object({}),
      run: (_args, ctx: RunContext) =>
        new Promise((_resolve, reject) =>
          ctx.signal.addEventListener("abort", () => reject(new Error("aborted"))),
        ),
    });
    const timing = make([hangs], memoryJournal(), { limits: { timeoutMs: 300 } });
    const timedOut = await timing.run('return await tools.hangs({}).catch(() => "caught")', {
      runId: "slow",
    });
    expect(timedOut.status).toBe("timeout");
    const answered = await timing.recover("slow");
    expect(answered).toMatchObject({ status: "timeout", value: undefined, error: timedOut.error });
  });

  it("never goes live in its replay: a call its journal has no outcome for stops it as diverged, and does not run", async () => {
    const store = memoryJournal();
    const world = effectWorld({ idempotent: false });
    await make([world.effect], store).run(FORTY_CALLS, { runId: "cut" });
    // The journal as it would be had the last batch's calls not been there: sealed again with the key.
    const cut = memoryJournal();
    await copy(
      cut,
      "cut",
      resealed("cut", (await store.read("cut"))!.records, (r) => !("i" in r) || r.i < 35),
    );
    await cut.end("cut", [], "copy");
    const replayed = await make([world.effect], cut).recover("cut");
    expect(replayed.status).toBe("error");
    expect(replayed.error?.name).toBe("ReplayDiverged");
    expect(replayed.error?.message).toContain(
      "the code made call 36 (effect), which the journal of the ended run does not have",
    );
    expect(world.invocations).toHaveLength(40);
  });
});

describe("writing ahead", () => {
  it("records that come while an append is under way go in the next: a Promise.all of 100 calls is a few appends, not 200", async () => {
    const store = memoryJournal();
    let appends = 0;
    // A store that takes a few ms to make a write durable, as a disk or a database does.
    const counted: RunJournal = {
      ...store,
      append: async (...args) => {
        appends++;
        await new Promise((resolve) => setTimeout(resolve, 5));
        return store.append(...args);
      },
    };
    const world = effectWorld({ idempotent: false });
    const cm = make([world.effect], counted, { limits: { maxToolCalls: 100, maxConcurrentCalls: 100 } });
    const result = await cm.run(
      "return (await Promise.all(Array.from({ length: 100 }, (_, n) => tools.effect({ n })))).length",
    );
    expect(result).toMatchObject({ status: "ok", value: 100 });
    expect(world.effects).toHaveLength(100);
    expect(appends).toBeLessThan(20);
  });

  it("a run claimed by another process stops at once with LeaseLost, and no call starts after", async () => {
    const store = memoryJournal();
    let claimed = false;
    const world = effectWorld({ idempotent: false });
    const thief = tool({
      name: "thief",
      description: "Claims the run from elsewhere, as a recoverer would once its lease ran out.",
      input: z.object({}),
      run: async (_args, ctx: RunContext) => {
        const later = Date.now() + 60_000;
        claimed = await store.claim(ctx.runId, { owner: "elsewhere", until: later + 60_000 }, later);
        return claimed;
      },
    });
    const cm = make([world.effect, thief], store);
    const result = await cm.run(
      "await tools.effect({ n: 1 }); await tools.thief({}); for (let n = 2; n < 10; n++) await tools.effect({ n }); return 1",
    );
    expect(claimed).toBe(true);
    expect(result.status).toBe("error");
    expect(result.error?.name).toBe("LeaseLost");
    expect(world.invocations).toHaveLength(1);
  });

  it("tells onRunStart the run id before the first call, and gives each call <runId>:<index> as its key", async () => {
    const store = memoryJournal();
    const order: string[] = [];
    const world = effectWorld({ idempotent: false, onEffect: () => order.push("effect") });
    const cm = make([world.effect], store);
    const result = await cm.run("await tools.effect({ n: 1 }); return await tools.effect({ n: 2 })", {
      onRunStart: ({ runId }) => order.push(`start ${runId}`),
    });
    expect(order).toEqual([`start ${result.runId}`, "effect", "effect"]);
    expect(world.invocations).toEqual([`${result.runId}:0`, `${result.runId}:1`]);
  });
});

describe("a journaled run that pauses", () => {
  const gated = (sent: string[]) =>
    tool({
      name: "send",
      description: "Sends, once approved.",
      input: z.object({ to: z.string() }),
      needsApproval: true,
      run: ({ to }) => {
        sent.push(to);
        return `sent to ${to}`;
      },
    });

  it("is continued by recover with the decisions; without any, recover runs nothing and says what it waits for", async () => {
    const store = memoryJournal();
    const sent: string[] = [];
    const world = effectWorld({ idempotent: false });
    const cm = make([world.effect, gated(sent)], store, { approval: "pause" });
    const code =
      'await tools.effect({ n: 1 }); const s = await tools.send({ to: "ops" }); await tools.effect({ n: 2 }); return s';
    const paused = await cm.run(code);
    expect(paused.status).toBe("paused");
    const [call] = paused.pending!;
    const waiting = await make([world.effect, gated(sent)], store, { approval: "pause" }).recover(
      paused.runId!,
    );
    expect(waiting).toMatchObject({ status: "paused", pending: [{ id: call!.id, kind: "approval" }] });
    expect(world.invocations).toHaveLength(1);
    const other = make([world.effect, gated(sent)], store, { approval: "pause" });
    const done = await other.recover(paused.runId!, { decisions: { [call!.id]: true } });
    expect(done).toMatchObject({ status: "ok", value: "sent to ops" });
    expect(sent).toEqual(["ops"]);
    expect(world.invocations).toEqual([`${paused.runId}:0`, `${paused.runId}:2`]);
  });

  it("its checkpoint resumes through the journal, once; a code mode without the journal refuses it", async () => {
    const store = memoryJournal();
    const sent: string[] = [];
    const cm = make([gated(sent)], store, { approval: "pause" });
    const paused = await cm.run('return await tools.send({ to: "ops" })');
    const decisions = { [paused.pending![0]!.id]: true };
    const plain = codeMode({
      tools: [gated(sent)],
      environment: isolateEnvironment(),
      approval: "pause",
      pause: { key: KEY },
    });
    opened.push(plain);
    await expect(plain.resume(paused.checkpoint!, { decisions })).rejects.toMatchObject({ problem: "store" });
    expect(await cm.resume(paused.checkpoint!, { decisions })).toMatchObject({
      status: "ok",
      value: "sent to ops",
    });
    expect(await cm.recover(paused.runId!, { decisions })).toMatchObject({
      status: "ok",
      value: "sent to ops",
    });
    expect(sent).toEqual(["ops"]);
  });
});

describe("a journal that is not this run's, or not intact, is refused before anything runs", () => {
  async function abandoned() {
    const { store, world, runId } = await crashedRun(true, 10);
    return { store, world, runId };
  }

  const refusedAs = async (
    cm: CodeMode,
    runId: string,
    problem: string,
    world: { invocations: string[] },
  ) => {
    const before = world.invocations.length;
    const refusal = await cm.recover(runId).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(RecoveryRefused);
    expect(refusal).toMatchObject({ problem });
    expect(world.invocations.length).toBe(before);
  };

  it("a record changed", async () => {
    const { store, world, runId } = await abandoned();
    const run = (await store.read(runId))!;
    const tampered = memoryJournal();
    const records = run.records.map((r) => (r.seq === 5 ? { ...r, text: `${r.text.slice(0, -1)} }` } : r));
    await copy(tampered, runId, records);
    await refusedAs(make([world.effect], tampered), runId, "altered", world);
  });

  it("a record left out in the middle, or two swapped", async () => {
    const { store, world, runId } = await abandoned();
    const { records } = (await store.read(runId))!;
    const missing = memoryJournal();
    await copy(
      missing,
      runId,
      records.filter((r) => r.seq !== 3).map((r, seq) => ({ ...r, seq })),
    );
    await refusedAs(make([world.effect], missing), runId, "altered", world);
    const swapped = memoryJournal();
    const order = records.map((r) => r.text);
    [order[2], order[3]] = [order[3]!, order[2]!];
    await copy(
      swapped,
      runId,
      order.map((text, seq) => ({ seq, text })),
    );
    await refusedAs(make([world.effect], swapped), runId, "altered", world);
  });

  it("another run's journal under this id, and another run's record spliced in", async () => {
    const one = await abandoned();
    const two = await abandoned();
    const other = memoryJournal();
    await copy(other, one.runId, (await two.store.read(two.runId))!.records);
    await refusedAs(make([one.world.effect], other), one.runId, "another-run", one.world);
    const spliced = memoryJournal();
    const mine = (await one.store.read(one.runId))!.records;
    const theirs = (await two.store.read(two.runId))!.records;
    await copy(
      spliced,
      one.runId,
      mine.map((r) => (r.seq === 4 ? theirs[4]! : r)),
    );
    await refusedAs(make([one.world.effect], spliced), one.runId, "altered", one.world);
  });

  it("a journal written in another journal format (a cordon before batches were sealed together)", async () => {
    const { store, world, runId } = await abandoned();
    const [header, ...rest] = (await store.read(runId))!.records;
    const { text } = header!;
    // Format 1 sealed each record alone: its header is an object, not a batch of one.
    const [old] = JSON.parse(text.slice(text.indexOf(".") + 1)) as object[];
    const older = memoryJournal();
    await copy(older, runId, [
      { seq: 0, text: `${text.slice(0, text.indexOf("."))}.${JSON.stringify({ ...old, format: 1 })}` },
      ...rest,
    ]);
    const refusal = await make([world.effect], older)
      .recover(runId)
      .catch((error: unknown) => error);
    expect(refusal).toMatchObject({ problem: "malformed" });
    expect(String((refusal as Error).message)).toContain("another journal format (1; this one reads 2)");
    await refusedAs(make([world.effect], older), runId, "malformed", world);
  });

  it("another key, and another tool set", async () => {
    const { store, world, runId } = await abandoned();
    await refusedAs(
      make([world.effect], store, { pause: { key: "another secret, 32 bytes at least" } }),
      runId,
      "another-key",
      world,
    );
    const extra = tool({ name: "extra", description: "Another tool.", input: z.object({}), run: () => 1 });
    await refusedAs(make(new Toolset([world.effect, extra]), store), runId, "tools", world);
  });
});

/** `environment` whose sandboxes push "log" to `events` as the code logs a line (as it runs). */
function watchingLogs(environment: Environment, events: string[]): Environment {
  const bound = <T extends object>(target: T, override: Partial<Record<keyof T, unknown>>): T =>
    new Proxy(target, {
      get: (object, name) => {
        if (name in override) return override[name as keyof T];
        const value = Reflect.get(object, name, object) as unknown;
        return typeof value === "function" ? value.bind(object) : value;
      },
    });
  return bound(environment, {
    open: async (...args: Parameters<Environment["open"]>) => {
      const sandbox = await environment.open(...args);
      return bound(sandbox, {
        execute: (request: ExecutionRequest, bridge: SandboxBridge, signal: AbortSignal) =>
          sandbox.execute(
            request,
            bound(bridge, {
              log: (entry: LogEntry) => {
                events.push("log");
                bridge.log(entry);
              },
            }),
            signal,
          ),
      });
    },
  });
}

/** `records` of run `runId` opened, those `keep` keeps sealed again in a new chain (as a key holder could). */
function resealed(runId: string, records: JournalRecord[], keep: (record: RunRecord) => boolean) {
  const key = checkpointKeyBytes(KEY);
  const chain = { seq: 0, mac: "" };
  let previous = "";
  const kept: JournalRecord[] = [];
  for (const [seq, record] of records.entries()) {
    const opened = openRecord(key, runId, previous, record, seq);
    if ("problem" in opened) throw new Error(`record ${seq}: ${opened.problem}`);
    previous = opened.mac;
    for (const body of opened.records) if (keep(body)) kept.push(sealRecord(key, runId, chain, body));
  }
  return kept;
}

/** Puts `records` into `store` as run `runId`, with a lease that has run out. */
async function copy(store: RunJournal, runId: string, records: { seq: number; text: string }[]) {
  const [header, ...rest] = records;
  await store.create(runId, header!, { owner: "copy", until: 0 });
  if (rest.length > 0) await store.append(runId, rest, "copy");
}

describe("a run's own journal (cm.run(code, { journal }))", () => {
  /** A code mode with the key that seals journals, and no journal of its own. */
  function plain(tools: CodeModeOptions["tools"], more: Partial<CodeModeOptions> = {}) {
    const cm = codeMode({ tools, environment: isolateEnvironment(), pause: { key: KEY }, ...more });
    opened.push(cm);
    return cm;
  }

  it("journals the run to the store it gives, and recover({ journal }) continues it there after a crash", async () => {
    const store = memoryJournal();
    const { journal, crash } = crashable(store);
    const world = effectWorld({ idempotent: true, onEffect: (n) => n === 15 && crash() });
    const first = plain([world.effect]);
    const crashed = await first.run(FORTY_CALLS, {
      runId: "own-1",
      journal: { store: journal, leaseMs: 300 },
    });
    expect(crashed.error?.name).toBe("JournalFailed");
    expect((await store.read("own-1"))?.records.length).toBeGreaterThan(1);
    const second = plain([world.effect]);
    await expect(second.incompleteRuns()).rejects.toThrow(/codeMode\({ journal }\)/);
    await vi.waitFor(async () => expect(await store.incomplete(Date.now())).toHaveLength(1));
    await expect(second.recover("own-1")).rejects.toThrow(/codeMode\({ journal }\)/);
    const recovered = await second.recover("own-1", { journal: store });
    expect(recovered).toMatchObject({ status: "ok", value: FORTY_CALLS_VALUE, runId: "own-1" });
    expect([...world.effects].sort()).toEqual(Array.from({ length: 40 }, (_, i) => `own-1:${i}`).sort());
    expect((await store.read("own-1"))?.ended).toBe(true);
  });

  it("takes the place of the code mode's journal for that run alone", async () => {
    const mine = memoryJournal();
    const shared = memoryJournal();
    const world = effectWorld({ idempotent: false });
    const cm = make([world.effect], shared);
    await cm.run("return await tools.effect({ n: 1 })", { runId: "in-mine", journal: mine });
    await cm.run("return await tools.effect({ n: 2 })", { runId: "in-shared" });
    expect((await mine.read("in-mine"))?.ended).toBe(true);
    expect(await mine.read("in-shared")).toBeUndefined();
    expect(await shared.read("in-mine")).toBeUndefined();
    expect((await shared.read("in-shared"))?.ended).toBe(true);
  });

  it("is refused, before anything runs, without pause.key, with sessions, or when it is not a store", async () => {
    const world = effectWorld({ idempotent: false });
    const code = "return await tools.effect({ n: 1 })";
    const keyless = codeMode({ tools: [world.effect], environment: isolateEnvironment() });
    opened.push(keyless);
    await expect(keyless.run(code, { journal: memoryJournal() })).rejects.toThrow(
      /^run: journal needs the code mode's pause\.key/,
    );
    await expect(keyless.recover("any", { journal: memoryJournal() })).rejects.toThrow(
      /^recover: journal needs the code mode's pause\.key/,
    );
    const sessions = plain([world.effect], { state: "session" });
    await expect(sessions.run(code, { journal: memoryJournal() })).rejects.toThrow(
      /^run: journal does not work with state "session"/,
    );
    const cm = plain([world.effect]);
    await expect(cm.run(code, { journal: { append: () => true } as unknown as RunJournal })).rejects.toThrow(
      /^run: journal: unknown option "append"/,
    );
    await expect(cm.run(code, { journal: { store: {} as RunJournal } })).rejects.toThrow(
      /^run: journal must be a RunJournal store/,
    );
    await expect(cm.recover("any", { journal: { store: memoryJournal(), leaseMs: 1 } })).rejects.toThrow(
      /^recover: journal\.leaseMs must be a whole number, at least 3/,
    );
    expect(world.invocations).toEqual([]);
  });
});
