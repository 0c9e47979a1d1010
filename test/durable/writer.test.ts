/**
 * The journal writer's group commit, driven step by step: a store whose appends finish when the test
 * says, so that what goes in each append does not depend on the machine's speed.
 */

import { describe, expect, it, vi } from "vitest";
import { memoryJournal } from "../../src/codemode/durable/memory-journal.js";
import {
  JOURNAL_FORMAT,
  openRecord,
  SEALED_BATCH_CHARS,
  sealRecord,
} from "../../src/codemode/durable/records.js";
import type { JournalRecord, RunJournal } from "../../src/codemode/durable/run-journal.js";
import { RunWriter } from "../../src/codemode/durable/writer.js";
import { KEY, recordsIn } from "./helpers.js";

const key = Buffer.from(KEY);

/** A run in a memory store whose appends each wait until the test calls `finish()`. */
async function gatedRun() {
  const store = memoryJournal();
  /** Each append's records, as "start 0", "outcome 1"… */
  const appends: string[][] = [];
  /** How many sealed batches each append held. */
  const batches: number[] = [];
  const gates: (() => void)[] = [];
  let open = false;
  const isOpen = () => open;
  const gated: RunJournal = {
    ...store,
    append: async (runId, records, owner) => {
      batches.push(records.length);
      appends.push(recordsIn(records).map((record) => `${record.t} ${"i" in record ? record.i : ""}`));
      if (!isOpen()) await new Promise<void>((resolve) => gates.push(resolve));
      return store.append(runId, records, owner);
    },
  };
  const chain = { seq: 0, mac: "" };
  const header: JournalRecord = sealRecord(key, "run", chain, {
    t: "header",
    format: JOURNAL_FORMAT,
    runId: "run",
    code: "",
    tools: "",
    limits: "",
    prefix: "code",
    created: 0,
    keyId: "",
  });
  await store.create("run", header, { owner: "me", until: Date.now() + 60_000 });
  const writer = new RunWriter({
    store: gated,
    runId: "run",
    key,
    chain,
    owner: "me",
    leaseMs: 60_000,
    onFailed: () => {},
  });
  /** Lets the oldest append under way finish, once it has started. */
  const finish = async () => {
    await vi.waitFor(() => expect(gates.length).toBeGreaterThan(0));
    gates.shift()!();
  };
  /** Lets every append finish from now on. */
  const openAll = () => {
    open = true;
    for (const gate of gates.splice(0)) gate();
  };
  return { writer, appends, batches, finish, openAll, store };
}

const start = (i: number) => ({ t: "start", i, tool: "effect", args: "{}", key: `run:${i}` }) as const;
const outcome = (i: number) => ({ t: "outcome", i, outcome: "[1]", after: i + 1 }) as const;

describe("the journal writer's group commit", () => {
  it("records written from separate callbacks of one turn of the event loop go in one append", async () => {
    const { writer, appends, openAll } = await gatedRun();
    // Calls from a sandbox reach the host each in a callback of its own, all in one turn.
    const waits = await new Promise<Promise<void>[]>((resolve) => {
      const made: Promise<void>[] = [];
      for (let i = 0; i < 5; i++) {
        setImmediate(() => {
          writer.add(start(i));
          made.push(writer.written());
          if (made.length === 5) resolve(made);
        });
      }
    });
    await vi.waitFor(() => expect(appends).toHaveLength(1));
    expect(appends).toEqual([["start 0", "start 1", "start 2", "start 3", "start 4"]]);
    openAll();
    await Promise.all(waits);
    writer.stop();
  });

  it("what the waiters of an append write at once goes in one next append, with what came meanwhile", async () => {
    const { writer, appends, finish, openAll } = await gatedRun();
    writer.add(start(0));
    writer.add(start(1));
    const first = writer.written();
    await vi.waitFor(() => expect(appends).toHaveLength(1));
    // While the first append is under way, a third call is made; the first two end once it is durable.
    writer.add(start(2));
    const third = writer.written();
    const ends = [0, 1].map((i) =>
      first.then(() => {
        writer.add(outcome(i));
        return writer.written();
      }),
    );
    await finish();
    await vi.waitFor(() => expect(appends).toHaveLength(2));
    expect(appends[1]).toEqual(["start 2", "outcome 0", "outcome 1"]);
    openAll();
    await Promise.all([third, ...ends]);
    expect(appends).toHaveLength(2);
    writer.stop();
  });

  it("seals an append's records together, and more than SEALED_BATCH_CHARS of them as several batches that verify", async () => {
    const { writer, appends, batches, openAll, store } = await gatedRun();
    openAll();
    for (let i = 0; i < 100; i++) writer.add(start(i));
    await writer.written();
    // Three records of 0.4 of the limit each: the third does not fit beside the first two.
    const part = "x".repeat(Math.floor(SEALED_BATCH_CHARS * 0.4));
    for (let i = 100; i < 103; i++) writer.add({ ...start(i), args: JSON.stringify(part) });
    await writer.written();
    expect(batches).toEqual([1, 2]);
    expect(appends[1]).toEqual(["start 100", "start 101", "start 102"]);
    const chain = { seq: 0, mac: "" };
    const opened = (await store.read("run"))!.records.map((record) => {
      const batch = openRecord(key, "run", chain.mac, record, chain.seq++);
      if ("problem" in batch) throw new Error(batch.problem);
      chain.mac = batch.mac;
      return batch.records.length;
    });
    expect(opened).toEqual([1, 100, 2, 1]);
    writer.stop();
  });
});
