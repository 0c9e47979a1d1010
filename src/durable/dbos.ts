/**
 * Code mode inside a DBOS workflow (`@dbos-inc/dbos-sdk`, an optional peer): the run's journal is kept in
 * the workflow's own checkpoints (./dbos-journal.ts), so DBOS recovers the run with its workflow, in
 * whichever process recovers that; a call that needs a person pauses the run, and the workflow waits for
 * the decision with `DBOS.recv`, which the app answers with `DBOS.send` (or `DBOSClient.send`).
 *
 * Why the journal, and not one DBOS step per tool call: DBOS runs a step again when its execution was cut
 * off in the middle, so a tool call made a step would run twice, unseen, whenever the process died while
 * it ran. The journal writes each call's start before the tool runs and its outcome after; a recovery
 * that finds a start without an outcome calls the tool again only when it is idempotent, and otherwise
 * asks a person (`unknown-outcome`). It also hands the sandbox every recorded clock and random value
 * before the code runs again, which a step-by-step replay could not.
 */

import { AsyncLocalStorage } from "node:async_hooks";
import { DBOS, DBOSWorkflowConflictError } from "@dbos-inc/dbos-sdk";
import { messageOf, UserError } from "../../common/errors.js";
import type { CodeModeErrorName } from "../../common/failures.js";
import type { CodeMode } from "../codemode/code-mode.js";
import type { Decision } from "../codemode/pause/pause.js";
import type { OutcomeDecision, RecoverOptions } from "../codemode/recover-run.js";
import type { CodeRunResult, PendingCall } from "../codemode/result.js";
import { readMessage } from "./dbos-decisions.js";
import { type WorkflowJournal, workflowJournal } from "./dbos-journal.js";

/** A call the run waits for, with where the app sends its decision. */
export interface DbosPendingCall extends PendingCall {
  /** The workflow that waits: `DBOS.send(workflowID, decision, topic)`. */
  workflowID: string;
  /** The topic of this call's decision. */
  topic: string;
}

/** What {@link dbosRunCode} is given besides the code mode and the code. */
export interface DbosRunCodeOptions {
  /**
   * The run's id (its calls' idempotency keys are `<runId>:<index>`). Default: the workflow's id. A
   * workflow that runs code more than once gives each run an id of its own. A run that an earlier
   * execution of the workflow started keeps the id (and the code) it started with.
   */
  runId?: string;
  /**
   * Told what the run waits for each time it pauses (in a step of the workflow: once, unless a crash
   * cuts it off), for example to ask the person. The same list is the workflow's event
   * {@link DBOS_PENDING_EVENT}. A rejection is logged (`DBOS.logger.error`), and the run waits all the
   * same.
   */
  onPending?: (pending: DbosPendingCall[]) => unknown;
}

/** The workflow event (`DBOS.getEvent(workflowID, key)`) that lists what the run waits for; [] when nothing. */
export const DBOS_PENDING_EVENT = "cordon.pending";

/** How long one `DBOS.recv` waits for a decision before it waits again, in seconds. */
const RECV_SECONDS = 24 * 60 * 60;

/** The run's journal could not be written; the workflow's own error (if DBOS gave one) ends it. */
const JOURNAL_STOPPED: readonly CodeModeErrorName[] = ["LeaseLost", "JournalFailed"];

/**
 * A context outside every workflow (this module's, as it loads): the code runs there, so that the tools
 * it calls are not taken for steps of the workflow (their outcomes are in the journal already).
 */
const outside = AsyncLocalStorage.snapshot();

/**
 * Runs `code` in code mode `cm` as part of the DBOS workflow that calls it, durably: every proxied call
 * is journaled in the workflow's steps (written before the tool runs and after it ends), the clock and
 * Math.random are recorded and replayed, and a call that needs a person pauses the run while the
 * workflow waits with `DBOS.recv` on the call's topic (see {@link DbosPendingCall}). When the process
 * dies, DBOS recovers the workflow, and the run goes on from its journal: no effect is made twice. `cm`
 * needs a `pause.key`; its tools must be the same wherever the workflow is recovered. Resolves with the
 * run's result, the same on every execution of the workflow. See docs/durability.md.
 */
export async function dbosRunCode(
  cm: CodeMode,
  code: string,
  options: DbosRunCodeOptions = {},
): Promise<CodeRunResult> {
  if (!DBOS.isInWorkflow()) {
    throw new UserError(
      "dbosRunCode runs inside a DBOS workflow (DBOS.registerWorkflow or @DBOS.workflow()), and not inside one of its steps: the run is kept in the workflow's steps.",
    );
  }
  if (outside(() => DBOS.isWithinWorkflow())) {
    throw new UserError(
      "cordon/dbos was first loaded inside a DBOS workflow: import it at the top of a module, outside every workflow, so that the tools a run calls are not taken for the workflow's steps.",
    );
  }
  const workflowID = DBOS.workflowID!;
  const inWorkflow = AsyncLocalStorage.snapshot();
  const journal = await workflowJournal({
    // The journal writes from the tool calls' context: each step is made in the workflow's own.
    run: (name, action) => inWorkflow(() => DBOS.runStep(async () => action(), { name })),
  });
  // A run read back goes on under its own id (in a fork of the workflow too), with the code it started with.
  const runId = journal.runId ?? options.runId ?? workflowID;
  let people: Pick<RecoverOptions, "decisions" | "answers"> = {};
  for (;;) {
    if (journal.result !== undefined) return journal.result as CodeRunResult;
    if (journal.paused === undefined) {
      const started = journal.runId !== undefined;
      const result = await outside(() =>
        started
          ? cm.recover(runId, { journal, approval: "pause", ...people })
          : cm.run(code, { runId, journal, approval: "pause" }),
      );
      if (result.status !== "paused") return finished(journal, workflowID, runId, result);
      await journal.pause(runId, result.pending ?? []);
    }
    people = await decisionsOn(workflowID, journal.paused!.note as PendingCall[], options.onPending);
    await journal.next();
  }
}

/** The run's result, written with its end; a run that could not be journaled ends the workflow with DBOS's error. */
async function finished(
  journal: WorkflowJournal,
  workflowID: string,
  runId: string,
  result: CodeRunResult,
): Promise<CodeRunResult> {
  const stopped = result.error?.name;
  if (stopped !== undefined && (JOURNAL_STOPPED as readonly string[]).includes(stopped)) {
    throw journal.failure ?? new DBOSWorkflowConflictError(workflowID);
  }
  await journal.finish(runId, result);
  return result;
}

/**
 * Waits for a message on each pending call's topic, and reads it as the decision or answer that call
 * takes; a message it cannot take is logged with what to send, and the call waits on.
 */
async function decisionsOn(
  workflowID: string,
  pending: readonly PendingCall[],
  onPending: DbosRunCodeOptions["onPending"],
): Promise<Pick<RecoverOptions, "decisions" | "answers">> {
  const waiting = pending.map((call) => ({ ...call, workflowID, topic: `cordon:${call.id}` }));
  await DBOS.setEvent(DBOS_PENDING_EVENT, waiting);
  if (onPending) {
    await DBOS.runStep(
      async () => {
        try {
          await onPending(waiting);
        } catch (error) {
          // A notice that failed must not end the run: the event lists what it waits for all the same.
          DBOS.logger.error(
            `dbosRunCode: onPending failed (${messageOf(error)}); the run waits for ${waiting.map((call) => call.id).join(", ")} all the same, as the workflow's event ${DBOS_PENDING_EVENT} says.`,
          );
        }
        return null;
      },
      { name: "cordon.onPending" },
    );
  }
  const decisions: Record<string, Decision | OutcomeDecision> = {};
  const answers: Record<string, string> = {};
  for (const call of waiting) {
    for (;;) {
      const message = await DBOS.recv<unknown>(call.topic, RECV_SECONDS);
      if (message === null) continue;
      const read = readMessage(call, message);
      if ("problem" in read) {
        DBOS.logger.warn(read.problem);
        continue;
      }
      if ("answer" in read) answers[call.id] = read.answer;
      else decisions[call.id] = read.decision;
      break;
    }
  }
  await DBOS.setEvent(DBOS_PENDING_EVENT, []);
  return { decisions, answers };
}
