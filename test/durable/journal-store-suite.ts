/**
 * The rules every RunJournal keeps (src/codemode/durable/run-journal.ts), as one suite each store runs:
 * the memory store, the file store and the Postgres store. A store passes `open`, which gives a handle on
 * one shared store each time it is called (for the file and Postgres stores, a new handle on the same
 * folder or database, as another process would have), and `close` to drop them all.
 */

import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import type { JournalRecord, Lease, RunJournal } from "../../src/codemode/durable/run-journal.js";

/** How a store under test is reached. */
export interface JournalStoreUnderTest {
  /** A handle on the shared store (a new one per call where the store has handles). */
  open(): RunJournal | Promise<RunJournal>;
  /** Closes every handle `open` gave. */
  close(): Promise<void>;
}

const record = (seq: number, text = `record ${seq}`): JournalRecord => ({ seq, text });
const leaseOf = (owner: string, until: number): Lease => ({ owner, until });

/** Runs the store rules against `store`, under a describe block named `name`. */
export function describeJournalStore(name: string, store: JournalStoreUnderTest): void {
  describe(`journal store rules: ${name}`, () => {
    afterAll(() => store.close());
    const newRun = () => `run-${randomUUID()}`;

    it("creates a run once: a second create of the same id is refused and changes nothing", async () => {
      const journal = await store.open();
      const runId = newRun();
      expect(await journal.create(runId, record(0, "header"), leaseOf("a", Date.now() + 60_000))).toBe(true);
      expect(await journal.create(runId, record(0, "other"), leaseOf("b", Date.now() + 60_000))).toBe(false);
      const run = await journal.read(runId);
      expect(run?.records).toEqual([record(0, "header")]);
      expect(run?.lease.owner).toBe("a");
      expect(run?.ended).toBe(false);
    });

    it("reads nothing for a run it does not have", async () => {
      const journal = await store.open();
      expect(await journal.read(newRun())).toBeUndefined();
      expect(await journal.append(newRun(), [record(1)], "a")).toBe(false);
      expect(await journal.renew(newRun(), leaseOf("a", Date.now()))).toBe(false);
      expect(await journal.claim(newRun(), leaseOf("a", Date.now()), Date.now())).toBe(false);
    });

    it("appends the owner's records in order and keeps their text exactly", async () => {
      const journal = await store.open();
      const runId = newRun();
      await journal.create(runId, record(0), leaseOf("a", Date.now() + 60_000));
      const odd = 'quotes " \\ backslashes, a line\nbreak, \u2028, emoji 🧾 and \u0000';
      expect(await journal.append(runId, [record(1), record(2, odd)], "a")).toBe(true);
      expect(await journal.append(runId, [record(3)], "a")).toBe(true);
      const again = await store.open();
      expect((await again.read(runId))?.records).toEqual([record(0), record(1), record(2, odd), record(3)]);
    });

    it("refuses records that do not follow on (a gap or a repeat), writing none of them", async () => {
      const journal = await store.open();
      const runId = newRun();
      await journal.create(runId, record(0), leaseOf("a", Date.now() + 60_000));
      expect(await journal.append(runId, [record(2)], "a")).toBe(false);
      expect(await journal.append(runId, [record(0)], "a")).toBe(false);
      expect(await journal.append(runId, [record(1), record(3)], "a")).toBe(false);
      expect((await journal.read(runId))?.records).toEqual([record(0)]);
    });

    it("refuses writes from anyone but the lease's owner", async () => {
      const journal = await store.open();
      const runId = newRun();
      await journal.create(runId, record(0), leaseOf("a", Date.now() + 60_000));
      expect(await journal.append(runId, [record(1)], "b")).toBe(false);
      expect(await journal.end(runId, [record(1)], "b")).toBe(false);
      expect(await journal.renew(runId, leaseOf("b", Date.now() + 60_000))).toBe(false);
      const run = await journal.read(runId);
      expect(run?.records).toHaveLength(1);
      expect(run?.lease.owner).toBe("a");
      expect(run?.ended).toBe(false);
    });

    it("ends a run with its last records; after that nothing is written, renewed or claimed", async () => {
      const journal = await store.open();
      const runId = newRun();
      await journal.create(runId, record(0), leaseOf("a", Date.now() + 60_000));
      expect(await journal.end(runId, [record(1, "the end")], "a")).toBe(true);
      expect(await journal.append(runId, [record(2)], "a")).toBe(false);
      expect(await journal.end(runId, [], "a")).toBe(false);
      expect(await journal.renew(runId, leaseOf("a", Date.now() + 60_000))).toBe(false);
      expect(await journal.claim(runId, leaseOf("b", Date.now() + 60_000), Date.now() + 120_000)).toBe(false);
      const run = await journal.read(runId);
      expect(run?.ended).toBe(true);
      expect(run?.records).toEqual([record(0), record(1, "the end")]);
      expect(await journal.incomplete(Date.now() + 120_000, 10_000)).not.toContainEqual(
        expect.objectContaining({ runId }),
      );
    });

    it("lets the owner renew its lease, which keeps a claim off until the new expiry", async () => {
      const journal = await store.open();
      const runId = newRun();
      const start = Date.now();
      await journal.create(runId, record(0), leaseOf("a", start + 1_000));
      expect(await journal.renew(runId, leaseOf("a", start + 5_000))).toBe(true);
      expect(await journal.claim(runId, leaseOf("b", start + 60_000), start + 2_000)).toBe(false);
      expect((await journal.read(runId))?.lease).toEqual(leaseOf("a", start + 5_000));
      expect(await journal.claim(runId, leaseOf("b", start + 60_000), start + 5_001)).toBe(true);
    });

    it("lists the runs whose lease expired and that did not end, oldest expiry first", async () => {
      const journal = await store.open();
      const base = Date.now() + 10 * 60_000;
      const [late, early, live, ended] = [newRun(), newRun(), newRun(), newRun()];
      await journal.create(late, record(0), leaseOf("a", base + 200));
      await journal.append(late, [record(1), record(2)], "a");
      await journal.create(early, record(0), leaseOf("a", base + 100));
      await journal.create(live, record(0), leaseOf("a", base + 60_000));
      await journal.create(ended, record(0), leaseOf("a", base + 100));
      await journal.end(ended, [], "a");
      const mine = new Set([late, early, live, ended]);
      const found = (await journal.incomplete(base + 1_000, 10_000)).filter((run) => mine.has(run.runId));
      expect(found).toEqual([
        { runId: early, leaseExpired: base + 100, records: 1 },
        { runId: late, leaseExpired: base + 200, records: 3 },
      ]);
      // A limit of 1 gives the oldest.
      expect((await journal.incomplete(base + 1_000, 1)).length).toBeLessThanOrEqual(1);
    });

    it("a claim moves the lease: the old owner's writes and renewals are refused from then on", async () => {
      const journal = await store.open();
      const runId = newRun();
      const start = Date.now();
      await journal.create(runId, record(0), leaseOf("a", start - 1));
      await journal.append(runId, [record(1)], "a");
      expect(await journal.claim(runId, leaseOf("b", start + 60_000), start)).toBe(true);
      expect(await journal.append(runId, [record(2, "from a")], "a")).toBe(false);
      expect(await journal.renew(runId, leaseOf("a", start + 120_000))).toBe(false);
      expect(await journal.append(runId, [record(2, "from b")], "b")).toBe(true);
      expect((await journal.read(runId))?.records.map((r) => r.text)).toEqual([
        "record 0",
        "record 1",
        "from b",
      ]);
    });

    it("of many claims of one expired lease at once, from separate handles, exactly one wins", async () => {
      const runId = newRun();
      const start = Date.now();
      await (await store.open()).create(runId, record(0), leaseOf("dead", start - 1));
      const handles = await Promise.all(Array.from({ length: 8 }, () => store.open()));
      const wins = await Promise.all(
        handles.map((journal, i) => journal.claim(runId, leaseOf(`claimer-${i}`, start + 60_000), start)),
      );
      expect(wins.filter(Boolean)).toHaveLength(1);
      const winner = `claimer-${wins.indexOf(true)}`;
      expect((await handles[0]!.read(runId))?.lease.owner).toBe(winner);
    });

    it("forgets a removed run", async () => {
      const journal = await store.open();
      const runId = newRun();
      await journal.create(runId, record(0), leaseOf("a", Date.now() + 60_000));
      await journal.remove(runId);
      expect(await journal.read(runId)).toBeUndefined();
      await journal.remove(runId);
    });
  });
}
