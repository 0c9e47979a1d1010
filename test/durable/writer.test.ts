/**
 * The journal writer's group commit, driven step by step: a store whose appends finish when the test
 * says, so that what goes in each append does not depend on the machine's speed.
 */

import { describe, expect, it, vi } from "vitest";
import { memoryJournal } from "../../src/codemode/durable/memory-journal.js";
import { sealRecord } from "../../src/codemode/durable/records.js";
import type { JournalRecord, RunJournal } from "../../src/codemode/durable/run-journal.js";
import { RunWriter } from "../../src/codemode/durable/writer.js";
import { KEY } from "./helpers.js";

const key = Buffer.from(KEY);

/** A run in a memory store whose appends each wait until the test calls `finish()`. */
async function gatedRun() {
  const store = memoryJournal();
  const appends: number[][] = [];
  const gates: (() => void)[] = [];
  let open = false;
  const isOpen = () => open;
  const gated: RunJournal = {
    ...store,
    append: async (runId, records, owner) => {
      appends.push(records.map((record) => record.seq));
      if (!isOpen()) await new Promise<void>((resolve) => gates.push(resolve));
      return store.append(runId, records, owner);
    },
  };
  const chain = { seq: 0, mac: "" };
  const header: JournalRecord = sealRecord(key, "run", chain, {
    t: "header",
    format: 1,
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
  return { writer, appends, finish, openAll, isOpen: () => open };
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
    expect(appends[0]).toEqual([1, 2, 3, 4, 5]);
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
    expect(appends[1]).toEqual([3, 4, 5]);
    openAll();
    await Promise.all([third, ...ends]);
    expect(appends).toHaveLength(2);
    writer.stop();
  });
});
