/**
 * A {@link RunJournal} kept in a DBOS workflow's own checkpoints: each write is one step of the workflow,
 * so a run inside a workflow is as durable as the workflow, and DBOS is its lease (it runs one execution
 * of a workflow at a time, and recovers it in another process when its executor died).
 *
 * A recovery runs the workflow again from the start, and DBOS answers each step the earlier execution
 * checkpointed with that step's output, in order, without running it. So the journal reads a run back by
 * asking for steps until one is new: the first step whose action runs in this execution is past the end
 * of what was written, and stays in the workflow as an empty marker that later executions skip. DBOS
 * checks that a recovery makes the same steps under the same names, so every step here has one name.
 *
 * Two things differ from a store shared by a fleet. A write is checked to be this execution's own: an
 * execution that stalled while DBOS recovered its workflow elsewhere is given the other one's output
 * where it wrote, and stops at once instead of running a call. And the end of a run is written with the
 * run's result in one last step (see {@link WorkflowJournal.finish}), so a recovery after that step
 * answers with the result, and one before it replays the run to its end, with no call made again.
 */

import { randomUUID } from "node:crypto";
import type { JournalRecord, RunJournal, StoredRun } from "../codemode/durable/run-journal.js";
import { oneRun, type RunStep, runStepOf } from "./one-run.js";

/** What the journal needs of the workflow: its next step, checkpointed (`DBOS.runStep`). */
export interface WorkflowSteps {
  /**
   * Runs `action` as the workflow's next step, named `name`, and resolves with what it returned once
   * that is checkpointed; in a recovery, resolves with what the step returned before, without running
   * it.
   */
  run<T>(name: string, action: () => T): Promise<T>;
}

/** A {@link RunJournal} in one DBOS workflow, for one run. */
export interface WorkflowJournal extends RunJournal {
  /** The id of the run read back from the workflow's steps, when an earlier execution started one. */
  readonly runId: string | undefined;
  /** The run's result, when an earlier execution ended it (and nothing is left to do but return it). */
  readonly result: unknown;
  /**
   * Ends this part of the run's steps: the run paused, and `note` (JSON) is what the workflow needs to
   * wait without running it (its pending calls). Writes are refused until {@link next}. Nothing is
   * written when reading back stopped here.
   */
  pause(runId: string, note: unknown): Promise<void>;
  /** What the run paused with, while it is paused (see {@link pause}). */
  readonly paused: { note: unknown } | undefined;
  /** Reads the steps the run wrote after its pause, once the workflow is back from what it waited on. */
  next(): Promise<void>;
  /**
   * Writes the run's end (the records `end` was given, kept back until now) and its `result`, in one
   * step: a recovery that reads it answers with the result. `end` resolves at once and this makes it
   * durable, so that no recovery can find the run ended without its result.
   */
  finish(runId: string, result: unknown): Promise<void>;
  /** The error a step failed with (DBOS's own: the workflow was cancelled, or recovered elsewhere). */
  readonly failure: unknown;
}

/** The name of every step the journal writes (DBOS refuses a recovery whose step names differ). */
const WORKFLOW_JOURNAL_STEP = "cordon.journal";

/** The owner of a run's lease when it was read back: the execution that wrote it, which DBOS recovered. */
const EARLIER_EXECUTION = "dbos:earlier-execution";

/** One step as the journal writes it; an empty marker is `null`. */
interface JournalStep extends RunStep {
  /** The execution that wrote it (a random id). */
  writer: string;
  /** Present on the run's last step: its result. */
  result?: unknown;
}

/**
 * The journal of a run in the workflow whose steps `steps` makes, with what earlier executions of the
 * workflow wrote read back (up to the run's end or pause). Made once per run, where the workflow made it
 * before: a recovery must make the same steps in the same order.
 */
export async function workflowJournal(steps: WorkflowSteps): Promise<WorkflowJournal> {
  const writer = randomUUID();
  const one = oneRun(EARLIER_EXECUTION);
  let ended: { records: JournalRecord[] } | undefined;
  let result: { value: unknown } | undefined;
  let live = false;
  let failure: unknown;

  const step = async <T>(action: () => T): Promise<T> => {
    try {
      return await steps.run(WORKFLOW_JOURNAL_STEP, action);
    } catch (error) {
      failure ??= error;
      throw error;
    }
  };

  /** Writes `value` as the next step: false when the workflow gave back another execution's step there. */
  const write = async (value: JournalStep): Promise<boolean> => {
    const written = await step((): JournalStep | null => value);
    return written?.writer === writer;
  };

  const readOn = async () => {
    while (!live && result === undefined && one.paused === undefined) {
      let ranHere = false;
      const value = await step((): JournalStep | null => {
        ranHere = true;
        return null;
      });
      if (ranHere) live = true;
      else if (value !== null) takeBack(value);
    }
  };

  /** Adds a step an earlier execution wrote to the run as read back. */
  const takeBack = (value: unknown) => {
    const read = journalStep(value, one.run);
    if (read === undefined) {
      throw new Error(
        `A step of this workflow where cordon wrote run ${one.run?.runId ?? "(none yet)"} is not one it wrote for that run: the workflow made other steps before or during the run than the execution that wrote them. Keep a workflow's steps the same between executions (DBOS's patching is the way to change them).`,
      );
    }
    one.takeBack(read, "result" in read);
    if ("result" in read) result = { value: read.result };
  };

  await readOn();

  return {
    get runId() {
      return one.run?.runId;
    },
    get result() {
      return result?.value;
    },
    get paused() {
      return one.paused;
    },
    get failure() {
      return failure;
    },
    create(runId, header, lease) {
      return one.create(runId, header, lease, (records) => write({ runId, writer, records }));
    },
    append(runId, records, owner) {
      return one.serial(async () => {
        if (!one.writable(runId, records, owner)) return false;
        const copies = records.map((record) => ({ seq: record.seq, text: record.text }));
        if (!(await write({ runId, writer, records: copies }))) return false;
        one.run!.records.push(...copies);
        return true;
      });
    },
    end(runId, records, owner) {
      return one.serial(async () => {
        if (!one.writable(runId, records, owner)) return false;
        ended = { records: records.map((record) => ({ seq: record.seq, text: record.text })) };
        one.run!.records.push(...ended.records);
        one.run!.ended = true;
        return true;
      });
    },
    finish(runId, value) {
      return one.serial(async () => {
        if (result !== undefined) return;
        const run = one.run;
        if (run !== undefined && (run.runId !== runId || (run.ended && ended === undefined))) {
          throw new Error(`Run ${runId} cannot be finished in this journal: it holds run ${run.runId}.`);
        }
        const last: JournalStep = { runId, writer, records: ended?.records ?? [], result: value };
        if (!(await write(last))) {
          throw new Error(
            `Run ${runId}'s result was not written: this workflow was recovered in another execution, which goes on with it.`,
          );
        }
        result = { value };
      });
    },
    ...one.lookups,
    pause(runId, note) {
      return one.pause(runId, note, async () => {
        if (!(await write({ runId, writer, records: [], pause: { note } }))) {
          throw new Error(
            `Run ${runId}'s pause was not written: this workflow was recovered in another execution, which goes on with it.`,
          );
        }
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
  if (step === undefined || typeof (step as Partial<JournalStep>).writer !== "string") return undefined;
  return step as JournalStep;
}
