/**
 * One run of the model's code, start to end: the code is prepared, a sandbox is found (a fresh one, or
 * the session's), the run is opened on the dispatcher, the code goes out to the sandbox with a bridge
 * for its tool calls, and the outcome comes back as a {@link CodeRunResult}. Read a run here; codeMode()
 * only sets up what every run shares.
 */

import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import { messageOf, UserError } from "../../common/errors.js";
import type { CodeModeErrorName } from "../../common/failures.js";
import { groupDigits } from "../../common/numbers.js";
import {
  type Environment,
  type ExecutionOutcome,
  MAX_ERROR_MESSAGE_CHARS,
  MAX_ERROR_NAME_CHARS,
  MAX_RECORDED_VALUES,
  type RunFailureName,
  runEnding,
  type Sandbox,
  type SandboxLimits,
} from "../../sandbox/contract/index.js";
import type { Dispatcher } from "../dispatch/dispatcher.js";
import { resolveToolName } from "../dispatch/names.js";
import type { PersonPolicy } from "../dispatch/types.js";
import type { RunContext, Session } from "../tools/types.js";
import { RunBridge } from "./bridge.js";
import type { ToolIndex } from "./discovery/tool-index.js";
import { DurableRecorder } from "./durable/recorder.js";
import { JOURNAL_FORMAT, journalKeyId, type SealChain, sealRecord } from "./durable/records.js";
import { MAX_RUN_ID_CHARS, type RunJournal } from "./durable/run-journal.js";
import { JournalStopped, RunWriter } from "./durable/writer.js";
import { abandonedEffects, type Effect, effectsOfJournal } from "./effects.js";
import type { ResolvedFlows } from "./flows.js";
import type { CodeModeLimits } from "./limits.js";
import type { JournalOptions } from "./options.js";
import type { CheckpointBinding } from "./pause/checkpoint.js";
import { JournalRecorder, Replay, sandboxReplay } from "./pause/journal.js";
import {
  digestOfCode,
  type PausedRun,
  type PauseSettings,
  pendingCalls,
  plannedEffects,
  sealPausedRun,
} from "./pause/pause.js";
import { type CodeRunResult, jsonDepth, loadFence, MAX_RESULT_DEPTH } from "./result.js";
import {
  type KnownRevert,
  type RevertableRuns,
  type RevertJournal,
  type RevertReport,
  revertEffects,
} from "./revert.js";
import { type LabelledOutcome, RunLabels } from "./run-labels.js";
import type { SessionPool } from "./sessions.js";
import { type PreparedCode, prepareCode } from "./transpile.js";
import type { TypeChecker } from "./typecheck/type-checker.js";
import type { DeclaredNames } from "./typecheck/types.js";
import { type GoVerdict, type StopVerdict, verdictOf } from "./typecheck/verdict.js";

/** The note a run gets when its session's sandbox had died (timeout, limit) and was started afresh. */
export const SESSION_REPLACED =
  "This session's sandbox was started afresh (the previous one was idle too long, was evicted, was ended by a time, CPU or memory limit or a cancellation, or failed): variables from earlier runs are gone.";

/**
 * The note a run gets when an earlier run of its session changed a built-in that run_code relies on
 * (for example added `Object.prototype.then`): the session was started afresh and the code ran there.
 */
export const SESSION_TAMPERED =
  "This session's sandbox was started afresh, and this code ran in the new one, because an earlier run changed a built-in that run_code relies on: variables from earlier runs are gone. Leave built-in prototypes (Object.prototype, Array.prototype, Promise.prototype, Error) as they are.";

/**
 * Why a code mode with sessions cannot pause: a resume runs the code again from the start in a fresh
 * sandbox, and a session's variables from earlier runs would not be there.
 */
export const SESSIONS_DO_NOT_PAUSE =
  'approval "pause" does not work with state "session": a paused run resumes by running its code again in a fresh sandbox, where the variables of the session\'s earlier runs are gone. Use state "fresh" (the default) for runs that pause.';

/** The session a run belongs to in `state: "session"` when the caller names none. */
const DEFAULT_SESSION_ID = "default";

/** The failure of a session's run refused because an earlier run changed a built-in. */
const TAMPERED: RunFailureName = "SandboxTampered";
/** The failure of a run whose sandbox could not be opened or could not run it. */
const SANDBOX_ERROR: RunFailureName = "SandboxError";

/** Options of one run (`CodeMode.run`). */
export interface CodeRunOptions {
  /** The session whose sandbox to use (with `state: "session"`; default {@link DEFAULT_SESSION_ID}), and whose state tools see. */
  session?: string | Session;
  /** Start the session's sandbox afresh first. */
  restart?: boolean;
  /** Cancels the run. */
  signal?: AbortSignal;
  /** The context of the run_code call, when the run was dispatched: proxied calls become its children. */
  parent?: RunContext;
  /**
   * `"pause"`: a call that needs a person (an approval no handler decides on the spot, a question of a
   * `waitsForHuman` tool) pauses the run instead of waiting: it ends `paused` with a checkpoint. Needs the
   * code mode's `pause.key`. `"plan"`: the run is a plan (see `CodeMode.plan`). Default: the code mode's
   * `approval`.
   */
  approval?: "wait" | "pause" | "plan";
  /**
   * Who the run is for, when several callers share the code mode (an MCP connection, a user): the type
   * checks of one client go one at a time, and different clients' checks take turns, so one client's
   * slow checks never hold up another's for more than about one check. Default: the session's id (runs
   * without a session share one client).
   */
  client?: string;
  /**
   * The run's id (at most `MAX_RUN_ID_CHARS` characters): with a journal, what `cm.recover(runId)` takes,
   * and never used twice (a run id the journal has is refused with a `UserError`). Default: a random UUID.
   * A call's `ctx.idempotencyKey` is `<runId>:<index of the call>`.
   */
  runId?: string;
  /**
   * Told the run's id before its first call (with a journal: once its header is durable), for a host
   * that keeps it to recover the run after a crash. A rejection ends the run before anything ran.
   */
  onRunStart?: (run: { runId: string }) => unknown;
  /**
   * Journals this run to this store, in place of the code mode's `journal` (or where the code mode has
   * none): for a store that holds one run, as a Restate invocation's journal does (`cordon/restate`).
   * Needs the code mode's `pause.key`, which seals the records; not with sessions. A store, or
   * `{ store, leaseMs }`. `cm.recover(runId, { journal })` continues the run from the same store.
   */
  journal?: RunJournal | JournalOptions;
  /**
   * `"revert"`: when the run ends in an error, a limit (time, memory, calls...) or a replay divergence
   * after effects, each effect with a `revert` is reverted, last first, each a dispatcher call of its own;
   * the result lists them (`reverted`, `notReverted`). Default `"keep"`. See docs/effects.md.
   */
  onFailure?: "keep" | "revert";
}

/** A paused run being resumed: its checkpoint's content, and how each call that waited is met. */
export interface Resumption {
  run: PausedRun;
  /** By journal index: the decision or answer a person gave. */
  people: ReadonlyMap<number, PersonPolicy>;
  /** Called as a call of the resumed run goes live (see `RunBridgeInit.onLive`). */
  onLive?: () => void;
  /** A durable run recovered from its journal: its id, the chain its records follow, and its new lease. */
  recovered?: { runId: string; chain: SealChain; owner: string };
  /** A durable run that ended, replayed for its result: nothing goes live, nothing is written. */
  replayOnly?: true;
  /** A durable run recovered while reverting: what its journal says of each effect's revert, by index. */
  reverts?: ReadonlyMap<number, KnownRevert>;
}

/** What every run of one code mode shares; codeMode() makes it once. */
export interface RunSetup {
  environment: Environment;
  dispatcher: Dispatcher;
  limits: Readonly<CodeModeLimits>;
  /** The part of `limits` the sandbox enforces. */
  sandboxLimits: SandboxLimits;
  /** The name of the run_code tool, which a run made without a model reports as its own. */
  toolName: string;
  /** The names the code may call tools by, mapped to the real tool names. */
  toolNames: Readonly<Record<string, string>>;
  /** Real names of the tools whose calls may wait for a person (see `ExecutionRequest.waitingTools`). */
  waitingTools: readonly string[];
  /** With `state: "session"`, the session sandboxes; without, every run gets a fresh sandbox. */
  sessions: SessionPool | undefined;
  /** How runs meet a call that needs a person by default: wait for them, pause, or make a plan. */
  approval: "wait" | "pause" | "plan";
  /** With a `pause.key`: how runs pause, and the digests of the tools and limits checkpoints are bound to. */
  pause: { settings: PauseSettings; binding: Omit<CheckpointBinding, "code"> } | undefined;
  /** With `typecheck` "block" or "report": the checker every run's code goes through first. */
  typecheck?: TypeCheckSetup | undefined;
  /** With discovery by search: the index `tools.$search` and `tools.$describe` are answered from. */
  index?: ToolIndex | undefined;
  /** With a `journal`: where runs are journaled, how long their leases last, and the key that seals them. */
  durable?: DurableSetup | undefined;
  /** The effects of recent runs, for `cm.revert(result)`. */
  reverts?: RevertableRuns | undefined;
  /** When some tool labels its results, or there are flow policies: what runs track (see run-labels.ts). */
  labels?: LabelSetup | undefined;
}

/** What every run's {@link RunLabels} is made from. */
interface LabelSetup {
  /** The labels of each tool that has any, by real name. */
  labelled: ReadonlyMap<string, readonly string[]>;
  flows: ResolvedFlows | undefined;
  /** With sessions: the labelled outcomes each session sandbox has received, for its later runs. */
  sessions: WeakMap<Sandbox, LabelledOutcome[]>;
}

/** How a code mode's runs are journaled (`codeMode({ journal })`). */
export interface DurableSetup {
  store: RunJournal;
  leaseMs: number;
  key: Buffer;
  /** The digests of the tools and limits a run's header binds it to. */
  binding: Omit<CheckpointBinding, "code">;
}

/** How runs are type-checked. */
interface TypeCheckSetup {
  mode: "block" | "report";
  checker: TypeChecker;
  /** What earlier runs in each session sandbox declared: a later run's check knows those names. */
  sessionNames: WeakMap<Sandbox, DeclaredNames>;
}

/** Nothing declared: a fresh sandbox. */
const NO_NAMES: DeclaredNames = { values: [], types: [] };

/** Runs the model's code: prepares it, picks its sandbox, and runs it there. Never rejects. */
export async function runCode(
  setup: RunSetup,
  code: unknown,
  options: CodeRunOptions = {},
  resumption?: Resumption,
): Promise<CodeRunResult> {
  const started = performance.now();
  if (typeof code !== "string")
    return failedRun("TypeError", "code must be a string of TypeScript.", started);
  // A resumed run pauses again at the next call that needs a person, unless asked to wait instead; a
  // plan always pauses (nobody waits while a plan is made).
  const asked = options.approval ?? (resumption ? "pause" : setup.approval);
  if (asked !== "wait" && asked !== "pause" && asked !== "plan") {
    return failedRun(
      "UserError",
      `approval must be "wait", "pause" or "plan", got ${JSON.stringify(asked)}.`,
      started,
    );
  }
  if (options.onFailure !== undefined && options.onFailure !== "keep" && options.onFailure !== "revert") {
    return failedRun(
      "UserError",
      `onFailure must be "keep" or "revert", got ${JSON.stringify(options.onFailure)}.`,
      started,
    );
  }
  if (asked === "plan" && (resumption !== undefined || setup.durable !== undefined)) {
    return failedRun(
      "UserError",
      'approval "plan" makes a new plan: not for a resumed run, nor with a journal.',
      started,
    );
  }
  const plan = asked === "plan";
  const approval = plan ? "pause" : asked;
  if (approval === "pause" && setup.pause === undefined) {
    return failedRun("UserError", 'approval "pause" needs the code mode\'s pause.key.', started);
  }
  if (approval === "pause" && setup.sessions) {
    return failedRun("UserError", SESSIONS_DO_NOT_PAUSE, started);
  }
  const { runId } = options;
  if (
    runId !== undefined &&
    (typeof runId !== "string" || runId.length === 0 || runId.length > MAX_RUN_ID_CHARS)
  ) {
    throw new UserError(
      `runId must be a string of 1 to ${MAX_RUN_ID_CHARS} characters, got ${typeof runId === "string" ? `${runId.length} characters` : typeof runId}.`,
    );
  }
  const prepared = await prepareCode(code);
  if ("error" in prepared) {
    return {
      status: prepared.status ?? "error",
      value: undefined,
      logs: [],
      calls: [],
      error: prepared.error,
      durationMs: elapsed(started),
    };
  }
  const execute = (sandbox: Sandbox) =>
    runInSandbox(setup, sandbox, code, prepared, options, started, approval === "pause", resumption, plan);
  // A resumed run is not checked again: its code was checked when it first ran, and the calls its
  // checkpoint recorded have taken effect; a check now could only stop it halfway.
  const typecheck = resumption ? undefined : setup.typecheck;
  const { sessions } = setup;
  if (sessions) {
    const session = options.session;
    const sessionId = (typeof session === "string" ? session : session?.id) ?? DEFAULT_SESSION_ID;
    try {
      return await sessions.use(sessionId, options.restart === true, async (sandbox, replaced, reopen) => {
        const verdict = typecheck
          ? await checkCode(
              typecheck,
              prepared.source,
              typecheck.sessionNames.get(sandbox) ?? NO_NAMES,
              options.client ?? sessionId,
            )
          : undefined;
        let ranIn = sandbox;
        let result = verdict?.run === false ? stoppedRun(verdict, started) : await execute(ranIn);
        // Otherwise the model would meet ReferenceErrors for variables it set in an earlier run.
        let note = replaced ? SESSION_REPLACED : undefined;
        if (result.error?.name === TAMPERED) {
          // The refused run did nothing: it runs again in a clean sandbox, and the model learns why.
          note = `${SESSION_TAMPERED} ${result.error.message}`;
          ranIn = await reopen();
          result = await execute(ranIn);
        }
        if (typecheck && verdict?.run === true) {
          recordDeclared(typecheck, ranIn, verdict);
          result = withVerdict(result, verdict);
        }
        if (note) result.logs.unshift({ level: "warn", text: note });
        return result;
      });
    } catch (error) {
      return failedRun(SANDBOX_ERROR, `The sandbox could not be started: ${messageOf(error)}`, started);
    }
  }
  // The check and the opening of the sandbox go on together once the check's turn has come (a run
  // waiting for its turn holds no sandbox); a run the check stops disposes it unused.
  // The run's session, when it has one, is its tenant: its sandbox shares a process with no other's.
  const tenant = sessionIdOf(options.session ?? options.parent?.session);
  let turnCame = () => {};
  const turn = new Promise<void>((resolve) => {
    turnCame = resolve;
  });
  const checking = typecheck
    ? checkCode(typecheck, prepared.source, NO_NAMES, options.client ?? tenant, turnCame)
    : undefined;
  if (checking) await Promise.race([turn, checking]);
  let sandbox: Sandbox;
  try {
    sandbox = await setup.environment.open(
      limitsLeft(setup.sandboxLimits, resumption),
      tenant === undefined ? {} : { tenant },
    );
  } catch (error) {
    await checking;
    return failedRun(SANDBOX_ERROR, `The sandbox could not be started: ${messageOf(error)}`, started);
  }
  try {
    const verdict = await checking;
    if (verdict?.run === false) return stoppedRun(verdict, started);
    const result = await execute(sandbox);
    return verdict ? withVerdict(result, verdict) : result;
  } finally {
    await sandbox.dispose();
  }
}

/**
 * The check of the code, as the verdict for its run: `client` is whose turn it takes, `onTurn` is told
 * when that turn has come. Never rejects.
 */
async function checkCode(
  typecheck: TypeCheckSetup,
  source: string,
  session: DeclaredNames,
  client: string | undefined,
  onTurn?: () => void,
): Promise<StopVerdict | GoVerdict> {
  return verdictOf(typecheck.mode, await typecheck.checker.check(source, session, client, onTurn), source);
}

/** A run the check stopped: nothing ran, no tool was called. */
function stoppedRun(verdict: StopVerdict, started: number): CodeRunResult {
  return {
    ...failedRun(verdict.error.name, verdict.error.message, started),
    diagnostics: verdict.diagnostics,
  };
}

/** A run that went on after its check: the errors found (in "report" mode) and the check's note. */
function withVerdict(result: CodeRunResult, verdict: GoVerdict): CodeRunResult {
  if (verdict.note !== undefined) result.logs.unshift({ level: "warn", text: verdict.note });
  return verdict.diagnostics === undefined ? result : { ...result, diagnostics: verdict.diagnostics };
}

/** Adds what a run declared to what its session's sandbox holds, for the next run's check. */
function recordDeclared(typecheck: TypeCheckSetup, sandbox: Sandbox, verdict: GoVerdict): void {
  if (verdict.declared === undefined) return;
  const held = typecheck.sessionNames.get(sandbox) ?? NO_NAMES;
  typecheck.sessionNames.set(sandbox, {
    values: [...new Set([...held.values, ...verdict.declared.values])],
    types: [...new Set([...held.types, ...verdict.declared.types])],
  });
}

/**
 * Runs prepared code in an open sandbox: one trip out and back. The run is opened on the dispatcher
 * (as the run_code call's child when `options.parent` is set), every `tools.*` call of the code goes
 * through it, and when the sandbox is done the run is closed, so that pending and later calls are
 * refused and calls in flight aborted, before the report is made. Never rejects.
 */
export async function runInSandbox(
  setup: RunSetup,
  sandbox: Sandbox,
  code: string,
  prepared: PreparedCode,
  options: CodeRunOptions,
  started: number,
  /** Whether a call that needs a person pauses the run (`approval: "pause"`). */
  pausing = false,
  /** The paused run this one resumes. */
  resumption?: Resumption,
  /** A plan (`cm.plan`). */
  planning = false,
): Promise<CodeRunResult> {
  const { dispatcher } = setup;
  const { parent } = options;
  // A resumed run's calls keep their ids: a decision names the call it is about.
  const callIdPrefix =
    resumption?.run.prefix ??
    (parent
      ? `${parent.callId}${parent.attempt > 1 ? `.attempt${parent.attempt}` : ""}`
      : `code-${randomUUID().slice(0, 8)}`);
  const runId = resumption?.recovered?.runId ?? options.runId ?? randomUUID();
  let writer: RunWriter | undefined;
  // The writer may fail before the bridge exists (its run could not be created): told once it does.
  let journalStopped = (_error: JournalStopped) => {};
  if (setup.durable && !resumption?.replayOnly) {
    const opened = await openJournal(
      setup.durable,
      runId,
      code,
      callIdPrefix,
      resumption,
      (error) => journalStopped(error),
      options.onRunStart !== undefined,
      options.onFailure,
    );
    if ("failed" in opened)
      return { ...failedRun(opened.failed.name, opened.failed.message, started), runId };
    writer = opened.writer;
  }
  try {
    await options.onRunStart?.({ runId });
  } catch (error) {
    const message = `onRunStart failed, so the run did not start: ${messageOf(error)}`;
    await writer?.finish("end", { t: "end", status: "error", error: "Error", message }).catch(() => {});
    return { ...failedRun("Error", message, started), runId };
  }
  const ended = new AbortController();
  // Every tool call in flight listens for the end of the run.
  setMaxListeners(0, ended.signal);
  // The caller's signal and the run_code call's own both end the run.
  const outer = [options.signal, parent?.signal].filter((signal) => signal !== undefined);
  const onOuterAbort = (event: Event) => ended.abort((event.target as AbortSignal).reason);
  for (const signal of outer) signal.addEventListener("abort", onOuterAbort, { once: true });
  // One turn for the whole run (the run_code call's, or one of its own): each call is a nested dispatch.
  const dispatchRun = dispatcher.openRun({
    ...(parent ? { parent } : { runId }),
    ...(options.session === undefined ? {} : { session: options.session }),
    signal: ended.signal,
    callId: callIdPrefix,
    toolName: setup.toolName,
    code,
  });
  const journal = writer
    ? new DurableRecorder(runId, writer, resumption?.run.journal)
    : pausing
      ? new JournalRecorder(resumption?.run.journal)
      : undefined;
  // Without pausing, the decided calls of a resumed run go live, and later ones wait for their approval.
  const replay = resumption ? new Replay(resumption.run.journal) : undefined;
  // The sandbox answers the recorded calls itself when the journal fits in the request; else the host does.
  const replayCalls = resumption ? sandboxReplay(resumption.run.journal) : undefined;
  const labels = setup.labels && runLabels(setup.labels, dispatcher, sandbox, resumption);
  const bridge = new RunBridge({
    dispatcher,
    limits: setup.limits,
    context: dispatchRun.context,
    signal: ended.signal,
    callIdPrefix,
    runId,
    pause: pausing,
    ...(journal || resumption?.replayOnly
      ? { onStop: () => ended.abort(new Error("The run stopped.")) }
      : {}),
    ...(journal ? { journal } : {}),
    ...(resumption?.replayOnly ? { replayOnly: true } : {}),
    ...(journal instanceof DurableRecorder ? { durable: journal } : {}),
    ...(replay ? { replay, personFor: (index: number) => resumption?.people.get(index) } : {}),
    ...(resumption?.onLive ? { onLive: resumption.onLive } : {}),
    ...(setup.index ? { index: setup.index } : {}),
    ...(labels ? { labels } : {}),
    ...(planning ? { effects: "preview" } : resumption?.run.plan ? { effects: "gate" } : {}),
  });
  journalStopped = (error) => bridge.journalStopped(error);
  if (writer?.failure) bridge.journalStopped(writer.failure);
  const limits = limitsLeft(setup.sandboxLimits, resumption);
  const executing = performance.now();
  let outcome: ExecutionOutcome;
  try {
    outcome = outer.some((signal) => signal.aborted)
      ? { status: "cancelled" }
      : await sandbox.execute(
          {
            code: prepared.js,
            toolNames: setup.toolNames,
            limits,
            ...(setup.sessions ? {} : { final: true }),
            ...(setup.waitingTools.length > 0 ? { waitingTools: setup.waitingTools } : {}),
            ...(journal ? { record: true } : {}),
            ...(resumption ? { replay: resumption.run.journal.values } : {}),
            ...(replayCalls ? { replayCalls } : {}),
            ...(setup.index ? { discovery: true } : {}),
          },
          bridge,
          ended.signal,
        );
  } catch (error) {
    outcome = runEnding(SANDBOX_ERROR, `The sandbox failed: ${messageOf(error)}`);
  } finally {
    for (const signal of outer) signal.removeEventListener("abort", onOuterAbort);
    // The run is over: pending and later tool calls are refused, in-flight ones aborted. Closed before
    // the run's signal aborts, so a run that ended on its own is not recorded as cancelled.
    dispatchRun.close();
    ended.abort(new Error("The run has ended."));
  }
  const usedMs = (resumption?.run.usedMs ?? 0) + (performance.now() - executing);
  // Calls aborted just now still report, so `calls` says what happened to every one of them.
  await bridge.settled();
  let result = toResult(outcome, prepared, bridge, started, setup.sandboxLimits);
  if (labels?.labelled) {
    await loadFence();
    result.labels = labels.sources();
    // Variables persist in a session's sandbox: what this run received, its later runs may hold.
    if (setup.sessions) setup.labels!.sessions.set(sandbox, labels.forSession());
  }
  if (resumption) result.logs = [...resumption.run.logs, ...result.logs];
  if (replay) {
    const diverged = divergedRun(bridge, replay, outcome);
    if (diverged) result = { ...result, status: "error", value: undefined, error: diverged };
  }
  const plan = planning || resumption?.run.plan === true;
  const paused = journal && bridge.stop?.reason === "paused" && outcome.status === "cancelled";
  const planned = planning && journal && bridge.stop === undefined && outcome.status === "ok";
  if (paused && resumption?.run.plan && journal instanceof JournalRecorder) {
    // Carrying out a plan, and pausing: the plan's calls the code did not make again are not this run's,
    // and its effects that did not run wait for a person as any call that waits for approval.
    journal.truncate(bridge.made);
    journal.unplan();
  }
  if (journal && (paused || planned)) {
    result = await pausedResult(
      setup,
      result,
      {
        code,
        prefix: callIdPrefix,
        journal: journal.state,
        logs: result.logs,
        usedMs: Math.round(usedMs),
        ...(writer ? { runId } : {}),
        ...(plan ? { plan: true } : {}),
      },
      journal.overflow,
      planned ? "planned" : "paused",
    );
  }
  // A run whose journal stopped is another process's now (or nobody's): it reverts nothing here.
  // The replay of a run that ended reports the reverts its journal has, and makes none.
  if (!writer?.idTaken && !writer?.failure && bridge.stop?.reason !== "journal") {
    const journaled = journal?.state ?? resumption?.run.journal;
    const effects = [
      ...(journaled ? effectsOfJournal(journaled, callIdPrefix, dispatcher.toolset) : []),
      ...bridge.effects,
    ];
    const revert = { runId, callId: callIdPrefix, toolName: setup.toolName, session: options.session };
    result = await undoEffects(setup, result, effects, {
      ...revert,
      dispatcher,
      revert: options.onFailure === "revert",
      parent,
      signal: options.signal,
      journal: writer && revertJournalOf(writer),
      known: resumption?.reverts,
      live: resumption?.replayOnly !== true,
    });
  }
  if (planning && journal) result.effects = plannedEffects({ prefix: callIdPrefix, journal: journal.state });
  if (writer) result = await closeJournal(writer, result, bridge);
  if (writer?.idTaken) {
    dispatchRun.end(result);
    throw runIdTaken(runId);
  }
  result.runId = runId;
  dispatchRun.end(result);
  return result;
}

/** Statuses of a run that failed: its effects are reverted with `onFailure: "revert"`. */
const FAILED: ReadonlySet<CodeRunResult["status"]> = new Set(["error", "timeout", "limit"]);

/**
 * A run's effects: reverted when it failed and asks for that, and kept for `cm.revert(result)`; the
 * result says what was reverted and what was not.
 */
async function undoEffects(
  setup: RunSetup,
  result: CodeRunResult,
  effects: Effect[],
  init: Parameters<typeof revertEffects>[1] & { revert: boolean },
): Promise<CodeRunResult> {
  const { revert, ...revertInit } = init;
  const reverting = revert && FAILED.has(result.status);
  const abandoned = reverting ? abandonedEffects(result.calls, setup.dispatcher.toolset) : [];
  if (effects.length === 0 && abandoned.length === 0) return result;
  let report: RevertReport | undefined;
  if (reverting) {
    report = await revertEffects(effects, revertInit);
    report.notReverted.push(...abandoned);
  }
  const { runId, callId, toolName, session } = revertInit;
  const kept = {
    runId,
    callId,
    toolName,
    toolset: setup.dispatcher.toolset,
    ...(session === undefined ? {} : { session }),
  };
  const token = effects.length > 0 ? setup.reverts?.keep(effects, kept, report) : undefined;
  return {
    ...result,
    ...(report && report.reverted.length > 0 ? { reverted: report.reverted } : {}),
    ...(report && report.notReverted.length > 0 ? { notReverted: report.notReverted } : {}),
    ...(token === undefined ? {} : { revertToken: token }),
  };
}

/** A durable run's reverts, journaled by its writer: each start made durable before the revert runs. */
function revertJournalOf(writer: RunWriter): RevertJournal {
  return {
    starting(effect, key) {
      writer.add({ t: "revert", i: effect.index, key });
      return writer.written();
    },
    ended(effect, status, why) {
      writer.add({ t: "reverted", i: effect.index, status, ...(why === undefined ? {} : { why }) });
    },
  };
}

/**
 * The labels of a run: the session's earlier runs' (with sessions), and for a resumed or recovered run
 * every labelled outcome its journal has, each applying from the call it arrived after, as it did.
 */
function runLabels(
  setup: LabelSetup,
  dispatcher: Dispatcher,
  sandbox: Sandbox,
  resumption: Resumption | undefined,
): RunLabels {
  const inherited = setup.sessions.get(sandbox);
  const labels = new RunLabels({
    labelled: setup.labelled,
    flows: setup.flows,
    // A real name needs no repair: only a name the dispatcher would repair is looked up.
    resolve: (name) =>
      dispatcher.toolset.get(name) === undefined
        ? resolveToolName(name, dispatcher.toolset.names())
        : undefined,
    ...(inherited ? { inherited } : {}),
  });
  resumption?.run.journal.entries.forEach((entry, index) => {
    if (entry.outcome === undefined) return;
    labels.received(index, entry.record?.tool ?? entry.tool, entry.outcome, entry.after ?? 0);
  });
  return labels;
}

/**
 * Starts a durable run's journal (its header, and this process's lease), or takes over a recovered
 * one's: the writer, or why the run cannot start. A run id the store has already is a `UserError`.
 */
async function openJournal(
  durable: DurableSetup,
  runId: string,
  code: string,
  prefix: string,
  resumption: Resumption | undefined,
  onFailed: (error: JournalStopped) => void,
  /** Whether the run waits until it is in the store (else the code starts while it is created). */
  waitForCreation: boolean,
  onFailure: CodeRunOptions["onFailure"],
): Promise<{ writer: RunWriter } | { failed: JournalStopped }> {
  const { store, key, leaseMs } = durable;
  const recovered = resumption?.recovered;
  const writerOf = (chain: SealChain, owner: string) =>
    new RunWriter({ store, runId, key, chain, owner, leaseMs, onFailed });
  if (recovered) return { writer: writerOf(recovered.chain, recovered.owner) };
  const owner = randomUUID();
  const chain: SealChain = { seq: 0, mac: "" };
  const header = sealRecord(key, runId, chain, {
    t: "header",
    format: JOURNAL_FORMAT,
    runId,
    code,
    ...durable.binding,
    prefix,
    created: Date.now(),
    keyId: journalKeyId(key),
    ...(onFailure === "revert" ? { onFailure } : {}),
  });
  const created = store.create(runId, header, { owner, until: Date.now() + leaseMs });
  const writer = new RunWriter({ store, runId, key, chain, owner, leaseMs, onFailed, created });
  // A host told the run id may keep it to recover the run later: by then the run is in the store.
  if (waitForCreation) {
    try {
      await writer.written();
    } catch {
      if (writer.idTaken) throw runIdTaken(runId);
      return { failed: writer.failure! };
    }
  }
  return { writer };
}

function runIdTaken(runId: string): UserError {
  return new UserError(
    `runId ${JSON.stringify(runId)} is in the journal already: a run id is used once (cm.recover continues that run). Give another runId, or none for a random one.`,
  );
}

/**
 * The end of a durable run's journal: an end record; or, for a run that paused (or whose replay
 * diverged), its records with its lease given up, so that `cm.recover` can continue it. A run whose
 * journal could not be written ends with that error.
 */
async function closeJournal(
  writer: RunWriter,
  result: CodeRunResult,
  bridge: RunBridge,
): Promise<CodeRunResult> {
  const stopped = bridge.stop?.reason === "journal" ? bridge.stop.error : writer.failure;
  if (stopped === undefined) {
    try {
      if (result.status === "paused") await writer.finish("release", { t: "paused" });
      else if (result.error?.name === REPLAY_DIVERGED) await writer.finish("release");
      else {
        await writer.finish("end", {
          t: "end",
          status: result.status,
          ...(result.error ? { error: result.error.name, message: result.error.message } : {}),
        });
      }
      return result;
    } catch (error) {
      if (!(error instanceof JournalStopped)) throw error;
      return journalError(result, error);
    }
  }
  writer.stop();
  return journalError(result, stopped);
}

/** A run stopped because its journal could not be written. */
function journalError(result: CodeRunResult, error: JournalStopped): CodeRunResult {
  const { checkpoint: _c, checkpointId: _i, pending: _p, ...rest } = result;
  return { ...rest, status: "error", value: undefined, error: { name: error.name, message: error.message } };
}

/** A resumed run gets what is left of its time limit (at least 1 ms): limits hold for the run as a whole. */
function limitsLeft(limits: SandboxLimits, resumption: Resumption | undefined): SandboxLimits {
  if (!resumption) return limits;
  return { ...limits, timeoutMs: Math.max(1, limits.timeoutMs - resumption.run.usedMs) };
}

/**
 * The error of a resumed run whose code did not do what its journal says: it asked for another call, or
 * it ended before making every call of the journal again.
 */
function divergedRun(
  bridge: RunBridge,
  replay: Replay,
  outcome: ExecutionOutcome,
): CodeRunResult["error"] | undefined {
  const stop = bridge.stop;
  let detail: string | undefined;
  let remedy = NOT_DETERMINISTIC;
  if (stop?.reason === "diverged") {
    detail = stop.divergence.message;
    remedy = stop.divergence.remedy ?? remedy;
  } else if (
    !replay.complete &&
    !replay.deviated &&
    (outcome.status === "ok" || outcome.status === "error")
  ) {
    const missing = replay.entry(replay.matched);
    detail = `the code ended before it made call ${replay.matched + 1} (${missing?.tool}) again`;
  }
  if (detail === undefined) return undefined;
  return {
    name: REPLAY_DIVERGED,
    message: `The resumed run did not do what its checkpoint recorded: ${detail}. It was stopped before any call ran again: no recorded effect was repeated. ${remedy}`,
  };
}

/** What a diverged resume's error advises, unless its divergence says otherwise. */
const NOT_DETERMINISTIC =
  "The code or what it depends on is not deterministic; start the run again instead of resuming it.";

/** The name of the error of a resumed run that did not do what its checkpoint recorded. */
export const REPLAY_DIVERGED = "ReplayDiverged" satisfies CodeModeErrorName;

/**
 * The result of a run that paused, or of a plan that ran to its end (`planned`, which keeps the value
 * its code computed from the previews): its checkpoint and the calls that wait, or why it could not
 * pause.
 */
async function pausedResult(
  setup: RunSetup,
  result: CodeRunResult,
  run: PausedRun,
  overflow: boolean,
  status: "paused" | "planned" = "paused",
): Promise<CodeRunResult> {
  const base = { ...result, value: status === "planned" ? result.value : undefined, logs: run.logs };
  if (overflow) {
    return {
      ...base,
      status: "error",
      error: {
        name: "NotPausable" satisfies CodeModeErrorName,
        message: `The run waits for a person, but its code read the clock or Math.random more than ${groupDigits(MAX_RECORDED_VALUES)} times, more than a checkpoint records: it cannot pause. Read them less often, or run it with approval "wait".`,
      },
    };
  }
  const pause = setup.pause!;
  try {
    const { text, body } = await sealPausedRun(
      pause.settings,
      { ...pause.binding, code: digestOfCode(run.code) },
      run,
    );
    const { error: _error, ...rest } = base;
    return { ...rest, status, checkpoint: text, checkpointId: body.id, pending: pendingCalls(run) };
  } catch (error) {
    return {
      ...base,
      status: "error",
      error: {
        name: "CheckpointFailed" satisfies CodeModeErrorName,
        message: `The run waits for a person, but it could not pause: ${messageOf(error)}`,
      },
    };
  }
}

/** A run that ended before its code ran: its error, and nothing else. */
export function failedRun(name: string, message: string, started: number): CodeRunResult {
  return {
    status: "error",
    value: undefined,
    logs: [],
    calls: [],
    error: { name, message },
    durationMs: elapsed(started),
  };
}

/**
 * The run's result from the sandbox's outcome. Every cap is checked again here, whatever the sandbox
 * did: an outcome comes from another process or another host, which may not keep to them.
 */
function toResult(
  outcome: ExecutionOutcome,
  prepared: PreparedCode,
  bridge: RunBridge,
  started: number,
  limits: SandboxLimits,
): CodeRunResult {
  const result: CodeRunResult = {
    status: outcome.status,
    value: undefined,
    logs: bridge.logs,
    calls: bridge.calls,
    durationMs: elapsed(started),
  };
  if (bridge.discovery.length > 0) result.discovery = bridge.discovery;
  const size = outcome.valueJson?.length ?? 0;
  if (size > limits.maxResultChars) {
    Object.assign(
      result,
      runEnding(
        "ResultTooLarge",
        `The result is ${groupDigits(size)} characters of JSON, over the limit of ${groupDigits(limits.maxResultChars)} (maxResultChars). Return something smaller: pick the fields you need, summarize, or slice long arrays.`,
      ),
    );
    return result;
  }
  if (outcome.valueJson !== undefined && jsonDepth(outcome.valueJson) > MAX_RESULT_DEPTH) {
    Object.assign(
      result,
      runEnding(
        "ResultTooLarge",
        `The result nests ${groupDigits(jsonDepth(outcome.valueJson))} levels deep, over the limit of ${MAX_RESULT_DEPTH}. Return flatter data.`,
      ),
    );
    return result;
  }
  if (outcome.valueJson !== undefined) {
    try {
      result.value = JSON.parse(outcome.valueJson);
    } catch {
      result.status = "error";
      result.error = { name: "Error", message: "The sandbox returned a result that is not valid JSON." };
    }
  }
  if (outcome.error) {
    const { name, message, tool: toolName, kind, line, column } = outcome.error;
    const position =
      line === undefined || column === undefined ? undefined : prepared.mapPosition(line, column);
    result.error = {
      name: cut(name, MAX_ERROR_NAME_CHARS),
      message: cut(message, MAX_ERROR_MESSAGE_CHARS),
      ...(position ?? {}),
      ...(toolName === undefined ? {} : { tool: cut(toolName, MAX_ERROR_NAME_CHARS) }),
      ...(kind === undefined ? {} : { kind: cut(kind, MAX_ERROR_NAME_CHARS) }),
    };
  }
  return result;
}

function cut(text: string, max: number): string {
  return text.length <= max
    ? text
    : `${text.slice(0, max)}… [${groupDigits(text.length - max)} more characters]`;
}

function sessionIdOf(session: string | Session | undefined): string | undefined {
  return typeof session === "string" ? session : session?.id;
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}
