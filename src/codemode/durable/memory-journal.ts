/**
 * A {@link RunJournal} in this process's memory: for tests, and for a host that wants runs it can
 * recover after a failed run in the same process. It survives nothing: a crash loses it with the runs.
 */

import type { IncompleteRun, JournalRecord, Lease, RunJournal, StoredRun } from "./run-journal.js";

/** Makes a journal store that lives in this process's memory. */
export function memoryJournal(): RunJournal {
  const runs = new Map<string, StoredRun>();

  const follows = (run: StoredRun, records: readonly JournalRecord[]) =>
    records.every((record, i) => record.seq === run.records.length + i);

  // Every method is synchronous inside: nothing can run between a look and the change it decides.
  const write = (runId: string, records: readonly JournalRecord[], owner: string, end: boolean) => {
    const run = runs.get(runId);
    if (run === undefined || run.ended || run.lease.owner !== owner || !follows(run, records)) return false;
    run.records.push(...records.map((record) => ({ ...record })));
    if (end) run.ended = true;
    return true;
  };

  return {
    async create(runId: string, header: JournalRecord, lease: Lease) {
      if (runs.has(runId) || header.seq !== 0) return false;
      runs.set(runId, { runId, records: [{ ...header }], lease: { ...lease }, ended: false });
      return true;
    },
    async append(runId, records, owner) {
      return write(runId, records, owner, false);
    },
    async end(runId, records, owner) {
      return write(runId, records, owner, true);
    },
    async renew(runId, lease) {
      const run = runs.get(runId);
      if (run === undefined || run.ended || run.lease.owner !== lease.owner) return false;
      run.lease = { ...lease };
      return true;
    },
    async claim(runId, lease, now) {
      const run = runs.get(runId);
      if (run === undefined || run.ended || run.lease.until > now) return false;
      run.lease = { ...lease };
      return true;
    },
    async read(runId) {
      const run = runs.get(runId);
      if (run === undefined) return undefined;
      return {
        runId,
        records: run.records.map((record) => ({ ...record })),
        lease: { ...run.lease },
        ended: run.ended,
      };
    },
    async incomplete(now, limit = 100) {
      const found: IncompleteRun[] = [];
      for (const run of runs.values()) {
        if (run.ended || run.lease.until > now) continue;
        found.push({ runId: run.runId, leaseExpired: run.lease.until, records: run.records.length });
      }
      return found.sort((a, b) => a.leaseExpired - b.leaseExpired).slice(0, limit);
    },
    async remove(runId) {
      runs.delete(runId);
    },
  };
}
