/**
 * The one run that a journal kept in an engine's own steps holds (a DBOS workflow's checkpoints, a Restate
 * invocation's journal): what both engines' journals keep of it, and the parts of {@link RunJournal} that
 * only look at it. The engine is the run's lease (it runs one execution at a time, and runs it again
 * elsewhere when its process died), so the lease kept here only answers code mode's renew, claim and
 * incomplete the way a store shared by a fleet would; how a step is written and read back is each
 * engine's own.
 */

import type {
  IncompleteRun,
  JournalRecord,
  Lease,
  RunJournal,
  StoredRun,
} from "../codemode/durable/run-journal.js";

/** A step as an engine's journal writes it, in the part both engines share (an empty marker is `null`). */
export interface RunStep {
  runId: string;
  records: JournalRecord[];
  pause?: { note: unknown };
}

/** One run held in an engine's steps, read back from an earlier execution or written since. */
export interface OneRun {
  /** The run, once one was read back or created. */
  readonly run: StoredRun | undefined;
  /** What the run paused with, while it is paused: writes are refused until {@link resume}. */
  readonly paused: { note: unknown } | undefined;
  /** Runs `task` after every task before it: a recovery must meet the steps in the order they were made. */
  serial<T>(task: () => Promise<T>): Promise<T>;
  /** Whether `owner` may write `records` to run `runId` now: its run, not ended or paused, its lease, the next `seq`s. */
  writable(runId: string, records: readonly JournalRecord[], owner: string): boolean;
  /**
   * Starts run `runId` (as {@link RunJournal.create}) when this journal holds none: `write` writes its
   * header as a step, and resolves false when the step that came back was not this execution's.
   */
  create(
    runId: string,
    header: JournalRecord,
    lease: Lease,
    write: (records: JournalRecord[]) => Promise<boolean>,
  ): Promise<boolean>;
  /** Adds a step an earlier execution wrote to the run as read back; `ended` when it was the run's last. */
  takeBack(step: RunStep, ended: boolean): void;
  /**
   * Pauses run `runId` with `note`, `write` writing the pause as a step; nothing is written when reading
   * back stopped at this pause. Throws when this journal holds no such run, or holds it ended.
   */
  pause(runId: string, note: unknown, write: () => Promise<void>): Promise<void>;
  /** Ends the pause and reads on (`readOn`): the steps the run wrote after it, once the engine is back. */
  resume(readOn: () => Promise<void>): Promise<void>;
  /** The methods of {@link RunJournal} that only look at the one run (a journal spreads them in as they are). */
  lookups: Pick<RunJournal, "renew" | "claim" | "read" | "incomplete" | "remove">;
}

/**
 * Holds one run for a journal in an engine's steps. A run read back is leased to `earlierOwner`, expired:
 * the execution that wrote it, which the engine has given up on.
 */
export function oneRun(earlierOwner: string): OneRun {
  let run: StoredRun | undefined;
  let paused: { note: unknown } | undefined;
  let tail: Promise<unknown> = Promise.resolve();

  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const done = tail.then(task);
    tail = done.catch(() => {});
    return done;
  };

  const follows = (held: StoredRun, records: readonly JournalRecord[]) =>
    records.every((record, i) => record.seq === held.records.length + i);

  const lookups: OneRun["lookups"] = {
    async renew(runId, lease) {
      if (run?.runId !== runId || run.ended || run.lease.owner !== lease.owner) return false;
      run.lease = { ...lease };
      return true;
    },
    async claim(runId, lease, now) {
      if (run?.runId !== runId || run.ended || run.lease.until > now) return false;
      run.lease = { ...lease };
      return true;
    },
    async read(runId) {
      if (run?.runId !== runId) return undefined;
      return {
        runId,
        records: run.records.map((record) => ({ ...record })),
        lease: { ...run.lease },
        ended: run.ended,
      };
    },
    async incomplete(now, limit = 100) {
      if (run === undefined || run.ended || run.lease.until > now || limit < 1) return [];
      const found: IncompleteRun = {
        runId: run.runId,
        leaseExpired: run.lease.until,
        records: run.records.length,
      };
      return [found];
    },
    // The engine keeps the steps as long as it keeps the workflow or invocation: DBOS until the workflow
    // is deleted (or its retention ends), Restate for the invocation's journal retention.
    async remove() {},
  };

  return {
    get run() {
      return run;
    },
    get paused() {
      return paused;
    },
    serial,
    writable(runId, records, owner) {
      return (
        run?.runId === runId && !run.ended && !paused && run.lease.owner === owner && follows(run, records)
      );
    },
    create(runId, header, lease, write) {
      return serial(async () => {
        if (run !== undefined || header.seq !== 0) return false;
        const records = [{ seq: header.seq, text: header.text }];
        if (!(await write(records))) return false;
        run = { runId, records, lease: { ...lease }, ended: false };
        return true;
      });
    },
    takeBack(step, ended) {
      run ??= { runId: step.runId, records: [], lease: { owner: earlierOwner, until: 0 }, ended: false };
      run.records.push(...step.records);
      if (ended) run.ended = true;
      if (step.pause) paused = step.pause;
    },
    pause(runId, note, write) {
      return serial(async () => {
        if (run?.runId !== runId || run.ended) {
          throw new Error(
            `Run ${runId} cannot pause in this journal: it holds ${run ? `run ${run.runId}${run.ended ? ", ended" : ""}` : "no run"}.`,
          );
        }
        if (paused) return; // reading back stopped at this pause: it is written already
        await write();
        paused = { note };
      });
    },
    resume(readOn) {
      return serial(async () => {
        if (!paused) return;
        paused = undefined;
        await readOn();
      });
    },
    lookups,
  };
}

/**
 * `value` as a step of run `run` (or of a first run, when there is none yet) when it is one, in the part
 * both engines share: the run's id, its records taking the next `seq`s, a pause with its note. Each
 * engine checks its own fields besides.
 */
export function runStepOf(value: unknown, run: StoredRun | undefined): RunStep | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { runId, records, pause } = value as Partial<RunStep>;
  if (typeof runId !== "string" || (run !== undefined && runId !== run.runId)) return undefined;
  if (!Array.isArray(records)) return undefined;
  if (pause !== undefined && (typeof pause !== "object" || pause === null || !("note" in pause)))
    return undefined;
  const first = run?.records.length ?? 0;
  const fits = records.every(
    (record, i) =>
      typeof record === "object" &&
      record !== null &&
      record.seq === first + i &&
      typeof record.text === "string",
  );
  return fits ? (value as RunStep) : undefined;
}
