/**
 * `restateRunCode(ctx, cm, code)`: the model's code run inside a Restate handler, as durable as the
 * invocation. The run's journal is the invocation's own ({@link restateJournal}: every record a step),
 * so each proxied call, outcome and recorded clock, random and zone value is in Restate before the code
 * goes on; when the endpoint dies, Restate retries the invocation (on the restarted endpoint, or on
 * whichever one now serves the deployment), the handler calls restateRunCode again, and the run is
 * recovered from what the steps hold: replayed, then live, every effect once. A call that waits for a
 * person becomes an awakeable: the invocation suspends (no endpoint holds it) until the app resolves it
 * through Restate's ingress, then the run goes on with the decision. See docs/durability.md.
 */

import { type Context, TerminalError } from "@restatedev/restate-sdk";
import { messageOf, UserError } from "../../common/errors.js";
import type { CodeMode } from "../codemode/code-mode.js";
import { RecoveryRefused } from "../codemode/durable/journaled-run.js";
import type { RecoverOptions } from "../codemode/recover-run.js";
import type { CodeRunResult, PendingCall } from "../codemode/result.js";
import { Decisions, decisionOf, lenientJson, rejectionOf } from "./restate-decisions.js";
import { type RestateJournal, restateJournal } from "./restate-journal.js";

/** A call the run waits for, with the awakeable that decides it. */
export interface RestatePendingCall extends PendingCall {
  /**
   * Resolve it through Restate's ingress with the decision as JSON (`POST
   * /restate/awakeables/{awakeableId}/resolve`): for an approval `true`, `false` or `{ approved, reason }`
   * (a rejected awakeable denies it); for a question the answer (a string); for an unknown outcome `{
   * rerun: true }`, `{ failed: "reason" }` or `{ result }`.
   */
  awakeableId: string;
  /** Why the call is asked again: what its previous awakeable was resolved with was not a decision. */
  problem?: string;
}

/** Options of {@link restateRunCode}. */
export interface RestateRunOptions {
  /**
   * The run's id (its calls' idempotency keys are `<runId>:<index>`). Default: the invocation's id and
   * the run's number in the handler, `<invocation id>.1` for the first. Give the same one on every attempt.
   */
  runId?: string;
  /** `"pause"`: a call that needs a person waits on an awakeable. Default: the code mode's `approval`. */
  approval?: "wait" | "pause";
  /** Cancels the run (in this attempt). */
  signal?: AbortSignal;
  /** Told the run's id once its first record is a step, before its first call (not again on a retry). */
  onRunStart?: (run: { runId: string }) => unknown;
  /**
   * Told the calls the run waits for, each with its awakeable's id, as a step of the invocation: once,
   * unless it throws (then Restate tries it again). Without it, the handler's log says each id.
   */
  onPending?: (waiting: { runId: string; pending: RestatePendingCall[] }) => unknown;
}

/** The name of the step that tells the app what the run waits for. */
const PENDING_STEP = "cordon.pending";

/** Runs made so far by each handler attempt: the default run id's number. */
const runsMade = new WeakMap<object, number>();

/**
 * Runs `code` in code mode `cm` inside the Restate handler whose context is `ctx` (see the file's
 * comment), and resolves with its result once it ended: on the first attempt, or on the attempt that
 * finished it after a crash. `cm` needs `pause.key` (it seals the records); its own `journal`, if any, is
 * not used. Await it before using `ctx` for anything else: a retry must meet the same steps in the same
 * order. A journal that cannot be trusted (altered, sealed with another key, made for other tools) ends
 * the invocation with a terminal error: retrying could not help.
 */
export async function restateRunCode(
  ctx: Context,
  cm: CodeMode,
  code: string,
  options: RestateRunOptions = {},
): Promise<CodeRunResult> {
  try {
    checkOptions(options);
  } catch (error) {
    throw new TerminalError(messageOf(error));
  }
  const number = (runsMade.get(ctx) ?? 0) + 1;
  runsMade.set(ctx, number);
  const runId = options.runId ?? `${ctx.request().id}.${number}`;
  const journal = await restateJournal(ctx);
  if (journal.runId !== undefined && journal.runId !== runId) {
    throw new TerminalError(
      `restateRunCode: this invocation's journal holds run ${journal.runId} where run ${runId} was asked for: give the same runId, and run the same runs in the same order, on every attempt.`,
    );
  }
  const store = { store: journal };
  const recoverOptions: RecoverOptions = {
    journal: store,
    ...(options.approval ? { approval: options.approval } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const decided = new Decisions();
  try {
    let result =
      journal.runId === undefined
        ? await cm.run(code, {
            runId,
            journal: store,
            ...(options.approval ? { approval: options.approval } : {}),
            ...(options.signal ? { signal: options.signal } : {}),
            ...(options.onRunStart ? { onRunStart: options.onRunStart } : {}),
          })
        : await recover(cm, runId, recoverOptions, decided);
    while (result.status === "paused" && (result.pending?.length ?? 0) > 0) {
      if (!journal.paused) await journal.pause(runId, { waiting: result.pending!.map((call) => call.id) });
      const atPause = await recordCount(journal, runId);
      await askPeople(ctx, runId, result.pending!, decided, options.onPending);
      await journal.next();
      // The attempt that read these decisions first may have used them before it died.
      if ((await recordCount(journal, runId)) > atPause) decided.forgetReruns();
      result = await recover(cm, runId, recoverOptions, decided);
    }
    if (result.error?.name === "JournalFailed" || result.error?.name === "LeaseLost") {
      // The invocation's steps could not be written: a retry recovers the run from those that were.
      throw new Error(result.error.message);
    }
    return result;
  } catch (error) {
    if (error instanceof RecoveryRefused || error instanceof UserError) {
      throw new TerminalError(`restateRunCode: ${messageOf(error)}`);
    }
    throw error;
  }
}

/**
 * Recovers the run from the steps read back: first as it stands (it goes on when nothing waits, or
 * answers what it waits for, running nothing); then, when it waits for calls that were decided, with
 * those decisions.
 */
async function recover(
  cm: CodeMode,
  runId: string,
  options: RecoverOptions,
  decided: Decisions,
): Promise<CodeRunResult> {
  const result = await cm.recover(runId, options);
  // A recovery that ran and paused again carries a checkpoint; one that ran nothing does not.
  if (result.status !== "paused" || result.checkpoint !== undefined) return result;
  const given = decided.for(result.pending ?? []);
  if (given.count === 0) return result;
  return cm.recover(runId, { ...options, decisions: given.decisions, answers: given.answers });
}

/**
 * Waits for a person on every call in `pending`: an awakeable each, the app told their ids (one step),
 * then each awaited in turn. A value that is not a decision for its call is asked again on a new
 * awakeable, with the problem; the loop ends once every call is decided.
 */
async function askPeople(
  ctx: Context,
  runId: string,
  pending: readonly PendingCall[],
  decided: Decisions,
  onPending: RestateRunOptions["onPending"],
): Promise<void> {
  let asking: { call: PendingCall; problem?: string }[] = pending.map((call) => ({ call }));
  while (asking.length > 0) {
    const awakeables = asking.map(({ call, problem }) => {
      const { id, promise } = ctx.awakeable<unknown>(lenientJson);
      const told: RestatePendingCall = { ...call, awakeableId: id, ...(problem ? { problem } : {}) };
      return { call, told, promise };
    });
    const told = awakeables.map((awakeable) => awakeable.told);
    if (onPending) {
      await ctx.run(PENDING_STEP, async () => {
        await onPending({ runId, pending: told });
        return null;
      });
    } else {
      // Restate's console says nothing while an attempt replays: each id is logged once.
      for (const call of told) {
        ctx.console.warn(
          `cordon: run ${runId} waits for the ${call.kind} of ${call.tool} (call ${call.id}): resolve awakeable ${call.awakeableId} with the decision.`,
        );
      }
    }
    const again: typeof asking = [];
    for (const { call, promise } of awakeables) {
      let met: ReturnType<typeof decisionOf>;
      try {
        met = decisionOf(call, await promise);
      } catch (error) {
        // The invocation is being cancelled: nothing more of the run happens.
        if ((error as { name?: unknown } | null)?.name === "CancelledError") throw error;
        met = rejectionOf(call, messageOf(error));
      }
      if ("problem" in met) again.push({ call, problem: met.problem });
      else decided.set(call, met);
    }
    asking = again;
  }
}

async function recordCount(journal: RestateJournal, runId: string): Promise<number> {
  return (await journal.read(runId))?.records.length ?? 0;
}

function checkOptions(options: RestateRunOptions): void {
  if (typeof options !== "object" || options === null) {
    throw new UserError("restateRunCode: options must be an object.");
  }
  for (const name of ["onRunStart", "onPending"] as const) {
    if (options[name] !== undefined && typeof options[name] !== "function") {
      throw new UserError(`restateRunCode: ${name} must be a function.`);
    }
  }
  const { runId } = options;
  if (runId !== undefined && (typeof runId !== "string" || runId.length === 0)) {
    throw new UserError("restateRunCode: runId must be a non-empty string.");
  }
}
