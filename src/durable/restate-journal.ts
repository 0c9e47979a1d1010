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

import type { JournalRecord, RunJournal, StoredRun } from "../codemode/durable/run-journal.js";
import { oneRun, type RunStep, runStepOf } from "./one-run.js";

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
interface JournalStep extends RunStep {
  end?: true;
}

/** Attempts known to be past the end of their journal: a new step runs live there, so none is read back. */
const liveAttempts = new WeakSet<RestateSteps>();

/**
 * The journal of a run in the Restate invocation whose context `steps` is, with what earlier attempts of
 * the invocation wrote read back (up to the run's end or pause). Call it once per run, where the handler
 * made it before (a retry must make the same steps in the same order).
 */
export async function restateJournal(steps: RestateSteps): Promise<RestateJournal> {
  const one = oneRun(EARLIER_ATTEMPT);

  const step = <T>(action: () => T) => steps.run(RESTATE_JOURNAL_STEP, action);

  const readOn = async () => {
    if (one.run?.ended === true) return;
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
      const written = journalStep(value, one.run);
      if (written === undefined) {
        throw new Error(
          `A step this invocation's Restate journal has where run ${one.run?.runId ?? "(none yet)"} was written is not one cordon wrote for it: the handler made other steps before or during the run than the attempt that wrote them. Keep a handler's steps the same between attempts (a new handler version is a new deployment).`,
        );
      }
      one.takeBack(written, written.end === true);
      if (written.end || written.pause) break;
    }
  };

  /** Writes `records` (and the end) when `owner` may: one step per {@link STEP_TEXT_CHARS} of text. */
  const write = (runId: string, records: readonly JournalRecord[], owner: string, end: boolean) =>
    one.serial(async () => {
      if (!one.writable(runId, records, owner)) return false;
      const run = one.run!;
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

  await readOn();

  return {
    get paused() {
      return one.paused;
    },
    get runId() {
      return one.run?.runId;
    },
    create(runId, header, lease) {
      return one.create(runId, header, lease, async (records) => {
        const value: JournalStep = { runId, records };
        await step(() => value);
        return true;
      });
    },
    append(runId, records, owner) {
      return write(runId, records, owner, false);
    },
    end(runId, records, owner) {
      return write(runId, records, owner, true);
    },
    ...one.lookups,
    pause(runId, note) {
      return one.pause(runId, note, async () => {
        const value: JournalStep = { runId, records: [], pause: { note } };
        await step(() => value);
      });
    },
    next() {
      return one.resume(readOn);
    },
  };
}

/** `value` as a step of run `run` (or of a first run, when there is none yet), when it is one. */
function journalStep(value: unknown, run: StoredRun | undefined): JournalStep | undefined {
  const step = runStepOf(value, run);
  const end = (step as Partial<JournalStep> | undefined)?.end;
  if (step === undefined || (end !== undefined && end !== true)) return undefined;
  return step as JournalStep;
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
