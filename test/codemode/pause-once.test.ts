/**
 * A checkpoint resumes once, by default: a resume claims it (in the code mode's checkpoint store, else in
 * this process's memory) after every check and before anything runs, so a second resume, later or at the
 * same moment, is refused and the approved call does not run again. A resume that ends before any call
 * went live gives its claim back; `fork: true` runs a paused run again on purpose. (Across processes with
 * a shared file store: pause-two-processes.test.ts.)
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
import {
  type CheckpointInfo,
  CheckpointRefused,
  type CheckpointStore,
  type CodeMode,
  type CodeModeOptions,
  codeMode,
  fileCheckpointStore,
  memoryCheckpointStore,
  tool,
  UserError,
} from "../../src/index.js";

const KEY = "a host secret, 32 bytes at least!";

const opened: CodeMode[] = [];
afterAll(() => Promise.all(opened.map((cm) => cm.close())));

/** A shop whose refund needs approval and whose e-mail goes out after it: each effect is a line. */
function shop(options: Partial<CodeModeOptions> = {}) {
  const effects: string[] = [];
  const refund = tool({
    name: "refund",
    description: "Refunds an order, once approved.",
    input: z.object({ order: z.string() }),
    needsApproval: true,
    run: ({ order }) => {
      effects.push(`refunded ${order}`);
      return `refunded ${order}`;
    },
  });
  const email = tool({
    name: "email",
    description: "Sends an e-mail.",
    input: z.object({ to: z.string() }),
    run: ({ to }) => {
      effects.push(`mailed ${to}`);
      return "sent";
    },
  });
  const make = (more: Partial<CodeModeOptions> = {}) => {
    const cm = codeMode({
      tools: [refund, email],
      environment: isolateEnvironment(),
      approval: "pause",
      pause: { key: KEY },
      ...options,
      ...more,
    });
    opened.push(cm);
    return cm;
  };
  return { effects, make, cm: make() };
}

const REFUND_THEN_MAIL = `
  const done = await tools.refund({ order: "A7" });
  await tools.email({ to: "ann@example.com" });
  return done;`;

/** A paused refund, and the decision that approves it. */
async function pausedRefund(cm: CodeMode) {
  const paused = await cm.run(REFUND_THEN_MAIL);
  expect(paused.status).toBe("paused");
  return { checkpoint: paused.checkpoint!, decisions: { [paused.pending![0]!.id]: true } };
}

async function refusal(resuming: Promise<unknown>): Promise<CheckpointRefused> {
  const error = await resuming.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(CheckpointRefused);
  return error as CheckpointRefused;
}

describe("a checkpoint resumes once", () => {
  it("a second cm.resume of the same checkpoint is refused: the refund and the e-mail go out once", async () => {
    const { effects, cm } = shop();
    const { checkpoint, decisions } = await pausedRefund(cm);
    expect(await cm.resume(checkpoint, { decisions })).toMatchObject({ status: "ok", value: "refunded A7" });
    const second = await refusal(cm.resume(checkpoint, { decisions }));
    expect(second.problem).toBe("reused");
    expect(second.message).toContain("was resumed already");
    expect(second.message).toContain("{ fork: true }");
    expect(effects).toEqual(["refunded A7", "mailed ann@example.com"]);
  });

  it("two resumes of one checkpoint at the same moment: one runs it, the other is refused before anything runs", async () => {
    const { effects, cm } = shop();
    const { checkpoint, decisions } = await pausedRefund(cm);
    const outcomes = await Promise.allSettled([
      cm.resume(checkpoint, { decisions }),
      cm.resume(checkpoint, { decisions }),
    ]);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    const [refused] = outcomes.filter((o) => o.status === "rejected");
    expect((refused as PromiseRejectedResult).reason).toMatchObject({ problem: "reused" });
    expect(effects).toEqual(["refunded A7", "mailed ann@example.com"]);
  });

  it("another code mode of the same process refuses a checkpoint resumed already", async () => {
    const { effects, cm, make } = shop();
    const { checkpoint, decisions } = await pausedRefund(cm);
    expect((await cm.resume(checkpoint, { decisions })).status).toBe("ok");
    const other = make();
    expect((await refusal(other.resume(checkpoint, { decisions }))).problem).toBe("reused");
    expect(effects).toEqual(["refunded A7", "mailed ann@example.com"]);
  });

  it("the code mode's checkpoint store holds the claim: code modes sharing it refuse a second resume", async () => {
    const store = memoryCheckpointStore();
    const { effects, cm, make } = shop({ pause: { key: KEY, store } });
    const { checkpoint, decisions } = await pausedRefund(cm);
    expect((await cm.resume(checkpoint, { decisions })).status).toBe("ok");
    expect((await refusal(make().resume(checkpoint, { decisions }))).problem).toBe("reused");
    expect(effects).toEqual(["refunded A7", "mailed ann@example.com"]);
  });

  it("fork: true resumes again on purpose, and claims nothing: a plain resume after a fork still runs", async () => {
    const { effects, cm } = shop();
    const { checkpoint, decisions } = await pausedRefund(cm);
    expect((await cm.resume(checkpoint, { decisions, fork: true })).status).toBe("ok");
    expect((await cm.resume(checkpoint, { decisions })).status).toBe("ok");
    expect((await cm.resume(checkpoint, { decisions, fork: true })).status).toBe("ok");
    expect(effects).toEqual(Array(3).fill(["refunded A7", "mailed ann@example.com"]).flat());
    await expect(cm.resume(checkpoint, { decisions, fork: "yes" as never })).rejects.toThrow(
      /fork must be true or false/,
    );
  });
});

describe("a claim is given back when nothing went live", () => {
  it("a resume cancelled before any call went live gives its claim back: the checkpoint resumes later, once", async () => {
    const { effects, cm } = shop();
    const { checkpoint, decisions } = await pausedRefund(cm);
    const cancelled = await cm.resume(checkpoint, { decisions, signal: AbortSignal.abort() });
    expect(cancelled.status).toBe("cancelled");
    expect(effects).toEqual([]);
    expect((await cm.resume(checkpoint, { decisions })).status).toBe("ok");
    expect((await refusal(cm.resume(checkpoint, { decisions }))).problem).toBe("reused");
    expect(effects).toEqual(["refunded A7", "mailed ann@example.com"]);
  });

  it("a resume refused by its checks (a decision for no waiting call, another key) claims nothing", async () => {
    const { effects, cm, make } = shop();
    const { checkpoint, decisions } = await pausedRefund(cm);
    await expect(cm.resume(checkpoint, { decisions: { "no-such-call": true } })).rejects.toBeInstanceOf(
      UserError,
    );
    const otherKey = make({ pause: { key: "another host's secret, 32 bytes!" } });
    expect((await refusal(otherKey.resume(checkpoint, { decisions }))).problem).toBe("another-key");
    expect((await cm.resume(checkpoint, { decisions })).status).toBe("ok");
    expect(effects).toEqual(["refunded A7", "mailed ann@example.com"]);
  });

  it("a diverged resume stops before any live call and gives the claim back", async () => {
    const { effects, cm } = shop();
    const paused = await cm.run(`
      await tools.email({ to: "recorded@example.com" });
      return await tools.refund({ order: "B2" });`);
    const key = checkpointKeyBytes(KEY);
    const body = openCheckpoint<{ journal: PackedJournal }>(paused.checkpoint!, key, {});
    body.state.journal.calls[0]![1] = '{"to":"someone-else@example.com"}';
    const { text } = sealCheckpoint(body, key);
    const decisions = { [paused.pending![0]!.id]: true };
    for (let i = 0; i < 2; i++) {
      const resumed = await cm.resume(text, { decisions });
      expect(resumed.error?.name).toBe(REPLAY_DIVERGED);
    }
    expect(effects).toEqual(["mailed recorded@example.com"]);
  });

  it("pause.onCheckpointUsed is asked after the claim: its refusal gives the claim back, and it is told of forks", async () => {
    const told: CheckpointInfo[] = [];
    let allow = false;
    const { effects, cm } = shop({
      pause: {
        key: KEY,
        onCheckpointUsed: (info) => {
          told.push(info);
          return allow;
        },
      },
    });
    const { checkpoint, decisions } = await pausedRefund(cm);
    expect((await refusal(cm.resume(checkpoint, { decisions }))).message).toContain("onCheckpointUsed");
    allow = true;
    expect((await cm.resume(checkpoint, { decisions })).status).toBe("ok");
    expect((await cm.resume(checkpoint, { decisions, fork: true })).status).toBe("ok");
    expect(told.map((info) => info.fork === true)).toEqual([false, false, true]);
    expect(effects).toHaveLength(4);
  });
});

describe("checkpoint stores claim atomically", () => {
  it("a store without claim and release is a UserError at creation, naming what it needs", () => {
    const valuesOnly = { put: () => {}, get: () => undefined } as unknown as CheckpointStore;
    expect(() => shop({ pause: { key: KEY, store: valuesOnly } })).toThrow(
      /claim\(id, expires\) and release\(id\)/,
    );
  });

  it("a store whose claim answers something other than a boolean is refused before anything runs", async () => {
    const store = { ...memoryCheckpointStore(), claim: () => undefined as unknown as boolean };
    const { effects, cm } = shop({ pause: { key: KEY, store } });
    const { checkpoint, decisions } = await pausedRefund(cm);
    const refused = await refusal(cm.resume(checkpoint, { decisions }));
    expect(refused.problem).toBe("store");
    expect(refused.message).toContain("must give true (claimed now) or false (claimed before)");
    expect(effects).toEqual([]);
  });

  it("the memory store: one claim of an id wins, until it is released", () => {
    const store = memoryCheckpointStore();
    const expires = Date.now() + 60_000;
    expect(store.claim("c-1", expires)).toBe(true);
    expect(store.claim("c-1", expires)).toBe(false);
    expect(store.claim("c-2", expires)).toBe(true);
    store.release("c-1");
    expect(store.claim("c-1", expires)).toBe(true);
  });

  it("the file store: of twenty claims of one id at once, one wins; the claim is a 0600 file until released", async () => {
    const directory = await mkdtemp(join(tmpdir(), "cordon-claims-"));
    try {
      const store = fileCheckpointStore(directory);
      const expires = Date.now() + 60_000;
      const won = await Promise.all(Array.from({ length: 20 }, () => store.claim("c-1", expires)));
      expect(won.filter(Boolean)).toHaveLength(1);
      expect(await readdir(join(directory, "claims"))).toEqual(["c-1"]);
      const { stat } = await import("node:fs/promises");
      expect((await stat(join(directory, "claims", "c-1"))).mode & 0o777).toBe(0o600);
      await store.release("c-1");
      expect(await store.claim("c-1", expires)).toBe(true);
      await expect(Promise.resolve(store.claim("../escape", expires))).rejects.toThrow(UserError);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
