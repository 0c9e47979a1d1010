/**
 * A {@link RunJournal} kept in a Restate invocation's own journal: each write is one durable step
 * (`ctx.run`), so a run inside a Restate handler is as durable as the invocation, and Restate is its
 * lease: it runs one attempt of an invocation at a time, and retries it (on the restarted endpoint, or on
 * whichever endpoint now serves the deployment) when the attempt dies.
 *
 * A retry runs the handler again from the start, and Restate answers each step the earlier attempt made
 * with that attempt's value, in order, without running it. So the store reads a run back by asking for
 * steps until one is new: the first step whose action runs in this attempt is past the end of what was
 * written, and stays in the journal as an empty marker that later attempts skip. Restate checks that a
 * retry makes the same kinds of steps under the same names, so every step of this store has one name.
 *
 * One journal holds one run. Its writes are steps between whatever else the handler does with Restate (an
 * awakeable, a step of its own): a run that pauses for one says so ({@link RestateJournal.pause}), and the
 * handler reads on ({@link RestateJournal.next}) once it is back; an ended run's last step ends the reading.
 */

import type { IncompleteRun, JournalRecord, RunJournal, StoredRun } from "../codemode/durable/run-journal.js";

/** What the store needs of a Restate handler's context (`Context` of `@restatedev/restate-sdk`): its steps. */
export interface RestateSteps {
  run<T>(name: string, action: () => T | Promise<T>): PromiseLike<T>;
}

/** A {@link RunJournal} in one Restate invocation, for one run. */
export interface RestateJournal extends RunJournal {
  /**
   * Ends this part of the run's steps: the run paused (for example at an approval the handler now waits on
   * through an awakeable), and `note` (JSON) is what the handler needs to wait again without the run (its
   * pending calls). Writes are refused until {@link next}. Nothing is written when reading stopped here.
   */
  pause(runId: string, note: unknown): Promise<void>;
  /** What the run paused with, while it is paused (see {@link pause}). */
  readonly paused: { note: unknown } | undefined;
  /** The id of the run this journal holds (read back, or created since); undefined while it holds none. */
  readonly runId: string | undefined;
  /** Reads the steps the run wrote after its pause, once the handler is back from what it waited on. */
  next(): Promise<void>;
}

/** The name of every step the store writes (Restate stops a retry whose step names differ). */
const RESTATE_JOURNAL_STEP = "cordon.journal";

/**
 * Characters of record text one step carries at most: Restate refuses journal messages over its
 * `message-size-limit` (32 MiB by default), and JSON may escape a character into several. A larger append
 * is written as several steps; a crash between them leaves the records of the first ones, which is what an
 * append that had been smaller would have left.
 */
const STEP_TEXT_CHARS = 4 * 1024 * 1024;

/** The owner of a run's lease when it was read back: the attempt that wrote it, which Restate retried. */
const EARLIER_ATTEMPT = "restate:earlier-attempt";

/** One step as the store writes it; an empty marker is `null`. */
interface JournalStep {
  runId: string;
  records: JournalRecord[];
  end?: true;
  pause?: { note: unknown };
}

/** Attempts known to be past the end of their journal: a new step runs live there, so none is read back. */
const liveAttempts = new WeakSet<RestateSteps>();

/**
 * The journal of a run in the Restate invocation whose context `steps` is, with what earlier attempts of
 * the invocation wrote read back (up to the run's end or pause). Call it once per run, where the handler
 * made it before (a retry must make the same steps in the same order).
 */
export async function restateJournal(steps: RestateSteps): Promise<RestateJournal> {
  let run: StoredRun | undefined;
  let paused: { note: unknown } | undefined;
  /** Every write goes after the one before it: a retry must meet the steps in the order they were made. */
  let tail: Promise<unknown> = Promise.resolve();

  const step = <T>(action: () => T) => steps.run(RESTATE_JOURNAL_STEP, action);

  const readOn = async () => {
    if (run?.ended === true) return;
    while (!liveAttempts.has(steps)) {
      let live = false;
      const value = await step((): JournalStep | null => {
        live = true;
        return null;
      });
      if (live) {
        liveAttempts.add(steps);
        break;
      }
      if (value === null) continue;
      const written = journalStep(value, run);
      if (written === undefined) {
        throw new Error(
          `A step this invocation's Restate journal has where run ${run?.runId ?? "(none yet)"} was written is not one cordon wrote for it: the handler made other steps before or during the run than the attempt that wrote them. Keep a handler's steps the same between attempts (a new handler version is a new deployment).`,
        );
      }
      run ??= {
        runId: written.runId,
        records: [],
        lease: { owner: EARLIER_ATTEMPT, until: 0 },
        ended: false,
      };
      run.records.push(...written.records);
      if (written.end) run.ended = true;
      if (written.pause) paused = written.pause;
      if (written.end || written.pause) break;
    }
  };

  const follows = (records: readonly JournalRecord[]) =>
    run !== undefined && records.every((record, i) => record.seq === run!.records.length + i);

  /** Writes `records` (and the end) when `owner` may: one step per {@link STEP_TEXT_CHARS} of text. */
  const write = (runId: string, records: readonly JournalRecord[], owner: string, end: boolean) =>
    serial(async () => {
      if (run?.runId !== runId || run.ended || paused || run.lease.owner !== owner || !follows(records)) {
        return false;
      }
      const parts = split(records);
      for (const [i, part] of parts.entries()) {
        const last = i === parts.length - 1;
        const value: JournalStep = { runId, records: part, ...(end && last ? { end: true as const } : {}) };
        await step(() => value);
        run.records.push(...part.map((record) => ({ ...record })));
      }
      if (end) run.ended = true;
      return true;
    });

  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const result = tail.then(task);
    tail = result.catch(() => {});
    return result;
  };

  await readOn();

  return {
    get paused() {
      return paused;
    },
    get runId() {
      return run?.runId;
    },
    create(runId, header, lease) {
      return serial(async () => {
        if (run !== undefined || header.seq !== 0) return false;
        const value: JournalStep = { runId, records: [{ ...header }] };
        await step(() => value);
        run = { runId, records: [{ ...header }], lease: { ...lease }, ended: false };
        return true;
      });
    },
    append(runId, records, owner) {
      return write(runId, records, owner, false);
    },
    end(runId, records, owner) {
      return write(runId, records, owner, true);
    },
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
    // Restate keeps an invocation's journal for its journal retention, and forgets it then.
    async remove() {},
    pause(runId, note) {
      return serial(async () => {
        if (run?.runId !== runId || run.ended) {
          throw new Error(
            `Run ${runId} cannot pause in this journal: it holds ${run ? `run ${run.runId}${run.ended ? ", ended" : ""}` : "no run"}.`,
          );
        }
        if (paused) return; // reading stopped at this pause: it is written already
        const value: JournalStep = { runId, records: [], pause: { note } };
        await step(() => value);
        paused = { note };
      });
    },
    next() {
      return serial(async () => {
        if (!paused) return;
        paused = undefined;
        await readOn();
      });
    },
  };
}

/** `value` as a step of run `run` (or of a first run, when there is none yet), when it is one. */
function journalStep(value: unknown, run: StoredRun | undefined): JournalStep | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { runId, records, end, pause } = value as Partial<JournalStep>;
  if (typeof runId !== "string" || (run !== undefined && runId !== run.runId)) return undefined;
  if (!Array.isArray(records) || (end !== undefined && end !== true)) return undefined;
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
  return fits ? (value as JournalStep) : undefined;
}

/** `records` in runs of at most {@link STEP_TEXT_CHARS} characters of text (a longer record alone). */
function split(records: readonly JournalRecord[]): JournalRecord[][] {
  const parts: JournalRecord[][] = [[]];
  let chars = 0;
  for (const record of records) {
    if (chars + record.text.length > STEP_TEXT_CHARS && parts.at(-1)!.length > 0) {
      parts.push([]);
      chars = 0;
    }
    parts.at(-1)!.push({ seq: record.seq, text: record.text });
    chars += record.text.length;
  }
  return parts;
}
