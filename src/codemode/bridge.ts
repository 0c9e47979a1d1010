import { KIND_IN_CODE } from "../../common/failures.js";
import {
  type BridgeCallOutcome,
  isDiscoveryCall,
  type LogEntry,
  MAX_DISCOVERY_CALLS,
  type RecordedValues,
  type RecordedZone,
  type SandboxBridge,
} from "../../sandbox/contract/index.js";
import type { Dispatcher } from "../dispatch/dispatcher.js";
import { renderJson } from "../dispatch/render.js";
import { Semaphore } from "../dispatch/semaphore.js";
import type {
  DispatchEvent,
  FlowApproval,
  PersonPolicy,
  RunCallOptions,
  RunCallOutcome,
} from "../dispatch/types.js";
import type { RunContext } from "../tools/types.js";
import { answerDiscovery, type DiscoveryRecord } from "./discovery/code-discovery.js";
import type { ToolIndex } from "./discovery/tool-index.js";
import { type DurableRecorder, idempotencyKeyOf } from "./durable/recorder.js";
import type { JournalStopped } from "./durable/writer.js";
import { type Effect, hasEffects } from "./effects.js";
import type { CodeModeLimits } from "./limits.js";
import type { Divergence, JournalEntry, JournalRecorder, Replay } from "./pause/journal.js";
import type { CallRecord } from "./result.js";
import type { RunLabels } from "./run-labels.js";

/**
 * How long a finished run waits for the tools it started to really finish (a tool that ignores its
 * signal keeps running after its call was aborted) before it returns; calls still running then are
 * recorded as `abandoned`.
 */
const SETTLE_WAIT_MS = 1_000;

/**
 * Characters of tool arguments one run may have in calls that have not finished (waiting for a slot or
 * running). A call beyond it is refused: a run cannot pile up memory in the host by queueing calls.
 */
const MAX_PENDING_ARGS_CHARS = 16_000_000;

/**
 * How long a pausing run with no call in flight waits for more calls from the sandbox before it stops:
 * calls the code made at the same moment as the one that paused reach the host a little after it.
 */
const PAUSE_QUIET_MS = 25;

/** The longest name the code may have called a tool by that a call record keeps. */
const MAX_REQUESTED_NAME_CHARS = 256;

/** What a run's bridge needs from the run. */
export interface RunBridgeInit {
  dispatcher: Dispatcher;
  limits: CodeModeLimits;
  /**
   * The run's context (`Dispatcher.openRun`): every call is a nested dispatch under it, sharing one
   * turn (run id, budget, session, approvals) and aborted when the run ends.
   */
  context: RunContext;
  /** Aborts when the run ends: later calls are refused. */
  signal: AbortSignal;
  /** The prefix of the ids of the calls the code makes. */
  callIdPrefix: string;
  /** The run's id: call `i`'s `ctx.idempotencyKey` is `<runId>:<i>`. */
  runId: string;
  /**
   * For a run that may pause (`approval: "pause"`): its calls, values and console lines go into this
   * journal, and a call that needs a person pauses the run instead of waiting (see {@link RunBridge.stop}).
   */
  journal?: JournalRecorder;
  /**
   * Whether a call that needs a person pauses the run (default: when there is a `journal`). A durable run
   * keeps a journal whether it pauses or waits.
   */
  pause?: boolean;
  /**
   * For a durable run: `journal`, writing to the run's store. A call starts only once its start record
   * is durable, and an outcome reaches the code only once its record is (see docs/durability.md).
   */
  durable?: DurableRecorder;
  /** For a run that resumes a paused one: the journal's calls are answered from it, not run again. */
  replay?: Replay;
  /**
   * For the replay of a run that ended (`cm.recover` of an ended run): nothing goes live. A call the
   * journal has no outcome for stops the run as diverged, before it runs.
   */
  replayOnly?: boolean;
  /** For a resumed run: how the call at `index` that waited for a person is met (its decision, its answer). */
  personFor?: (index: number, entry: JournalEntry) => PersonPolicy | undefined;
  /**
   * How calls of `effect: true` tools are met (see `PersonPolicy.effects`): `"preview"` in a plan
   * (`cm.plan`), `"gate"` in a run that carries one out.
   */
  effects?: "preview" | "gate";
  /** Called once, when the run must stop: it paused, or its replay diverged (see {@link RunBridge.stop}). */
  onStop?: () => void;
  /**
   * Called as a call goes to the dispatcher, before it is run: a resumed run's claim on its checkpoint is
   * given back only when this was never called (nothing went live).
   */
  onLive?: () => void;
  /**
   * With discovery on: the index `tools.$search` and `tools.$describe` are answered from. They are not
   * tool calls: they never reach the dispatcher, take no place in the run's numbering or journal, and are
   * kept in {@link RunBridge.discovery}, not in `calls`.
   */
  index?: ToolIndex;
  /**
   * The labels the run has received and the code mode's flow policies: each outcome is told to it, and
   * each call that goes live is checked against it first (refused, or sent to a person).
   */
  labels?: RunLabels;
}

/** A call's id, the tool it goes to, and the name the code used when that was another one. */
interface CallName {
  callId: string;
  name: string;
  requested: string | undefined;
  /** Its place among the run's calls, from 0. */
  index: number;
}

/** Why a run that may pause was stopped by its bridge. */
export type BridgeStop =
  | { reason: "paused" }
  | { reason: "diverged"; divergence: Divergence }
  /** A durable run's journal could not be written: its lease is another's, or its store failed. */
  | { reason: "journal"; error: JournalStopped };

/** An outcome the sandbox never receives: a call that waits for a person, or that was not started. */
const NEVER: Promise<BridgeCallOutcome> = new Promise(() => {});

/**
 * The host side of one run: every `tools.*` call becomes a full dispatcher call (validation, approval,
 * policies, retries, timeouts, events), bounded in number and concurrency, and refused once the run
 * has ended. Console lines are collected. A run that may pause also keeps a journal, and a resumed run
 * answers the calls its journal has from it.
 */
export class RunBridge implements SandboxBridge {
  readonly calls: CallRecord[] = [];
  readonly logs: LogEntry[] = [];
  /** The run's `tools.$search` and `tools.$describe` calls, in the order they arrived. */
  readonly discovery: DiscoveryRecord[] = [];
  /**
   * For a run without a journal (which has them): its live calls of tools with effects that succeeded,
   * in the order they ended, for a revert.
   */
  readonly effects: Effect[] = [];
  /** Set when the bridge stopped the run: it paused, or its replay diverged. */
  stop: BridgeStop | undefined;
  readonly #init: RunBridgeInit;
  readonly #slots: Semaphore;
  #count = 0;
  /** `tools.$search` and `tools.$describe` calls received. */
  #discoveries = 0;
  #pendingArgsChars = 0;
  #logChars = 0;
  /** Console lines of the replayed part still to come: the sandbox writes them again, nobody sees them. */
  #replayedLogs: number;
  /** Ids of the calls whose tool invocations have not all finished. */
  readonly #unsettled = new Set<string>();
  /** What {@link settled} waits on: called once no call is unsettled. */
  readonly #drained: (() => void)[] = [];
  /** Calls given to the dispatcher whose outcome has not come back. */
  #inFlight = 0;
  /** A call waits for a person: no call starts any more, and the run stops once none is in flight. */
  #pausing = false;
  /** The timer of {@link #stopIfIdle}, while it runs. */
  #quiet: NodeJS.Timeout | undefined;
  /** The time zone and locale the sandbox said its code sees (its first report; later ones are ignored). */
  #zone: RecordedZone | undefined;

  /** How many calls the code has made (the sandbox's replayed ones included). */
  get made(): number {
    return this.#count;
  }

  constructor(init: RunBridgeInit) {
    this.#init = init;
    this.#slots = new Semaphore(init.limits.maxConcurrentCalls);
    this.#replayedLogs = init.replay?.logCount ?? 0;
  }

  log(entry: LogEntry): void {
    if (this.#init.signal.aborted) return;
    if (this.#replayedLogs > 0) {
      this.#replayedLogs--;
      return;
    }
    this.#init.journal?.logged();
    // The sandbox caps its console output; the host holds to the same cap whatever the sandbox does.
    this.#logChars += entry.text.length + 1;
    if (this.#logChars <= this.#init.limits.maxLogChars + 1_000) this.logs.push(entry);
  }

  record(values: RecordedValues): void {
    if (this.#init.signal.aborted) return;
    if (values.zone !== undefined && this.#zone === undefined) this.#zoneSeen(values.zone);
    this.#init.journal?.values(values);
  }

  /**
   * The sandbox answered the code's next `count` calls itself, from the journal it was given: they take
   * their places in the run's numbering, and their records join `calls` in the order the calls ended.
   * A count the journal does not bear out (not a whole number above 0, more calls than the journal has
   * left, or a call there with no outcome) ends the run as diverged: the count is the sandbox's word.
   */
  replayed(count: number): void {
    const { replay, signal } = this.#init;
    // A run that replays nothing has nothing a sandbox could have answered: a stray count is ignored.
    if (replay === undefined || signal.aborted || this.stop !== undefined) return;
    if (this.#zoneUnknown()) return;
    const left = replay.length - replay.matched;
    if (!Number.isSafeInteger(count) || count <= 0 || count > left) {
      this.#stop({
        reason: "diverged",
        divergence: {
          index: replay.matched,
          message: `the sandbox said it replayed ${typeof count === "number" ? String(count) : `a ${typeof count}`} calls, which is not a number of calls the checkpoint has left to replay (${left})`,
        },
      });
      return;
    }
    const answered = replay.answeredInSandbox(count);
    if ("refused" in answered) {
      this.#count = answered.refused;
      this.#stop({
        reason: "diverged",
        divergence: {
          index: answered.refused,
          message: `the sandbox said it replayed call ${answered.refused + 1}, which the checkpoint has no result for`,
        },
      });
      return;
    }
    this.#count += count;
    for (const record of answered.records) this.calls.push({ ...record });
  }

  callTool(
    name: string,
    argsJson: string,
    waiting?: (waiting: boolean) => void,
    requested?: string,
  ): BridgeCallOutcome | Promise<BridgeCallOutcome> {
    const { signal, journal, replay } = this.#init;
    if (signal.aborted) return refused(name, "The run has ended; no more tool calls are accepted.");
    if (isDiscoveryCall(name)) return this.#discover(name, argsJson);
    // A diverged replay, or a journal that cannot be written, ends the run; nothing the sandbox asks for
    // meanwhile is started.
    if (this.stop?.reason === "diverged" || this.stop?.reason === "journal" || this.#zoneUnknown()) {
      return refused(name, "The run has ended; no more tool calls are accepted.", "cancelled");
    }
    const index = this.#count++;
    // The sandbox repairs only names this short; anything longer is not recorded as the name used.
    if (requested !== undefined && requested.length > MAX_REQUESTED_NAME_CHARS) requested = undefined;
    const call: CallName = { callId: `${this.#init.callIdPrefix}.${index + 1}`, name, requested, index };
    if (replay && index < replay.length) return this.#replayed(call, argsJson, waiting, replay);
    if (this.#init.replayOnly)
      return this.#notReplayed(call, "which the journal of the ended run does not have");
    journal?.made(index, name, argsJson, requested);
    const durable = this.#init.durable;
    // A durable run's call starts once its start record is durable.
    if (durable) return this.#afterWrite(durable, name, () => this.#live(call, argsJson, waiting));
    return this.#live(call, argsJson, waiting);
  }

  /** A durable run's journal could not be written: the run stops (see {@link BridgeStop}). */
  journalStopped(error: JournalStopped): void {
    this.#stop({ reason: "journal", error });
  }

  /** A call of the code that its journal does not have: refused past a limit, else started. */
  #live(
    call: CallName,
    argsJson: string,
    waiting: ((waiting: boolean) => void) | undefined,
  ): BridgeCallOutcome | Promise<BridgeCallOutcome> {
    const { limits } = this.#init;
    if (this.#count > limits.maxToolCalls) {
      return this.#refuse(
        call,
        `run_code allows at most ${limits.maxToolCalls} tool calls per run; this was call ${this.#count}.`,
      );
    }
    if (this.#pendingArgsChars + argsJson.length > MAX_PENDING_ARGS_CHARS) {
      return this.#refuse(
        call,
        `This run already has ${this.#pendingArgsChars} characters of arguments in tool calls that have not finished; at most ${MAX_PENDING_ARGS_CHARS} are allowed. Wait for some calls to finish (await them) before starting more.`,
      );
    }
    const verdict = this.#init.labels?.verdict(call.index, call.name, argsJson);
    if (verdict?.action === "deny") return this.#deny(call, verdict.message);
    return this.#start(call, argsJson, waiting, undefined, verdict?.flow);
  }

  /** A call a flow policy refused: it never reaches the dispatcher; the code sees a denial. */
  #deny(call: CallName, message: string): BridgeCallOutcome | Promise<BridgeCallOutcome> {
    const outcome: BridgeCallOutcome = { ok: false, error: { tool: call.name, kind: "denied", message } };
    const record = this.#record(call, call.name, "denied", performance.now());
    this.#init.journal?.ended(call.index, outcome, record, this.#count);
    this.#init.labels?.received(call.index, call.name, outcome, this.#count);
    return this.#deliver(outcome);
  }

  /** `next()` once everything the journal has is durable; a refusal when the journal cannot be written. */
  #afterWrite(
    durable: DurableRecorder,
    name: string,
    next: () => BridgeCallOutcome | Promise<BridgeCallOutcome>,
  ): Promise<BridgeCallOutcome> {
    return durable.written().then(
      () => (this.stop?.reason === "journal" ? ended(name) : next()),
      () => ended(name),
    );
  }

  /** `outcome`, once a durable run's record of it is durable. */
  #deliver(outcome: BridgeCallOutcome): BridgeCallOutcome | Promise<BridgeCallOutcome> {
    const durable = this.#init.durable;
    if (durable === undefined) return outcome;
    return durable.written().then(
      () => outcome,
      () => ended(outcome.ok ? "" : outcome.error.tool),
    );
  }

  /**
   * Resolves once every tool the run started has really finished, after the run ended and aborted them.
   * A tool that ignores its signal is not waited for longer than {@link SETTLE_WAIT_MS}; its call is then
   * recorded as `abandoned` (it may still have an effect).
   */
  async settled(): Promise<void> {
    if (this.#unsettled.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.#drained.push(resolve);
      timer = setTimeout(resolve, SETTLE_WAIT_MS);
    });
    clearTimeout(timer);
    if (this.#unsettled.size === 0) return;
    for (const record of this.calls) {
      if (this.#unsettled.has(record.callId)) record.status = "abandoned";
    }
  }

  /** A `tools.$search` or `tools.$describe` call, answered from the index at once (see `RunBridgeInit.index`). */
  #discover(name: string, argsJson: string): BridgeCallOutcome {
    const index = this.#init.index;
    if (index === undefined) {
      return {
        ok: false,
        error: { tool: name, kind: "error", message: `tools.${name} is not available in this run.` },
      };
    }
    // The sandbox keeps this cap; the host holds to it whatever the sandbox does.
    if (++this.#discoveries > MAX_DISCOVERY_CALLS) {
      return refused(
        name,
        `run_code allows at most ${MAX_DISCOVERY_CALLS} $search and $describe calls per run.`,
      );
    }
    const { outcome, record } = answerDiscovery(index, name, argsJson);
    if (record !== undefined) this.discovery.push(record);
    return outcome;
  }

  /** A call refused before it started (a limit): the journal keeps its refusal like any outcome. */
  #refuse(call: CallName, message: string): BridgeCallOutcome | Promise<BridgeCallOutcome> {
    const outcome = refused(call.name, message);
    this.#init.journal?.ended(call.index, outcome, undefined, this.#count);
    this.#init.labels?.received(call.index, call.name, outcome, this.#count);
    return this.#deliver(outcome);
  }

  /** Takes a slot (now, or once one is free) and dispatches the call (sent to a person when `flow` is given). */
  #start(
    call: CallName,
    argsJson: string,
    waiting: ((waiting: boolean) => void) | undefined,
    person: PersonPolicy | undefined,
    flow?: FlowApproval,
  ): BridgeCallOutcome | Promise<BridgeCallOutcome> {
    this.#pendingArgsChars += argsJson.length;
    const free = this.#slots.tryAcquire();
    if (free) return this.#dispatch(call, argsJson, waiting, free, person, flow);
    return this.#slots
      .acquire()
      .then((release) => this.#dispatch(call, argsJson, waiting, release, person, flow));
  }

  /**
   * A call of a resumed run that its journal has: its recorded outcome, in the recorded order; or, for
   * one that had not ended, a live dispatch once the code has made every call of the journal again; or,
   * when the code asked for something else, the end of the run.
   */
  #replayed(
    call: CallName,
    argsJson: string,
    waiting: ((waiting: boolean) => void) | undefined,
    replay: Replay,
  ): BridgeCallOutcome | Promise<BridgeCallOutcome> {
    const answer = replay.match(call.index, call.name, argsJson);
    if ("diverged" in answer) {
      this.#stop({ reason: "diverged", divergence: answer.diverged });
      return refused(call.name, "The run has ended; no more tool calls are accepted.", "cancelled");
    }
    if ("offPlan" in answer) {
      // The code left the plan's path: what the plan made from here on is not this run's.
      this.#init.journal?.truncate(call.index);
      this.#init.journal?.made(call.index, call.name, argsJson, call.requested);
      return this.#live(call, argsJson, waiting);
    }
    if ("effect" in answer) {
      // An effect of the plan: approved, it runs now; else it waits for a person. Its outcome reaches the
      // code in its preview's turn.
      const person = this.#init.personFor?.(call.index, answer.effect);
      const ran = this.#start(call, argsJson, waiting, person);
      const deliver = (outcome: BridgeCallOutcome) => replay.effectEnded(call.index, outcome);
      return ran instanceof Promise ? ran.then(deliver) : deliver(ran);
    }
    if ("outcome" in answer) {
      const { outcome, record } = answer;
      const delivered = (result: BridgeCallOutcome) => {
        if (record !== undefined) this.calls.push({ ...record });
        return result;
      };
      return outcome instanceof Promise ? outcome.then(delivered) : delivered(outcome);
    }
    if (this.#init.replayOnly)
      return this.#notReplayed(call, "which has no outcome in the ended run's journal");
    const { entry } = answer;
    return answer.live.then(() => {
      // Checked as when the code first made it: the outcomes that had arrived by then count.
      const verdict = this.#init.labels?.verdict(call.index, call.name, argsJson);
      if (verdict?.action === "deny") return this.#deny(call, verdict.message);
      const flow = verdict?.flow;
      const person = this.#init.personFor?.(call.index, entry);
      const durable = this.#init.durable;
      if (durable === undefined) return this.#start(call, argsJson, waiting, person, flow);
      // From here its outcome is unknown until written: a recovery must not take it for one that never ran.
      durable.live(call.index, person);
      return this.#afterWrite(durable, call.name, () => this.#start(call, argsJson, waiting, person, flow));
    });
  }

  /** A call of an ended run's replay that would go live: the run stops as diverged, and it never runs. */
  #notReplayed(call: CallName, why: string): BridgeCallOutcome {
    const message = `the code made call ${call.index + 1} (${call.name}), ${why}`;
    this.#stop({ reason: "diverged", divergence: { index: call.index, message } });
    return refused(call.name, "The run has ended; no more tool calls are accepted.", "cancelled");
  }

  /**
   * Runs a call that holds a slot through the dispatcher; the slot and the call's share of pending
   * arguments are given back when its result is in. The outcome comes at once when the dispatcher's
   * does (a synchronous tool), else as one reaction to its promise: a call from code is on the path of
   * every sequential step. Never throws or rejects.
   */
  #dispatch(
    call: CallName,
    argsJson: string,
    waiting: ((waiting: boolean) => void) | undefined,
    release: () => void,
    person: PersonPolicy | undefined,
    flow: FlowApproval | undefined,
  ): BridgeCallOutcome | Promise<BridgeCallOutcome> {
    const { callId, name, index } = call;
    const { dispatcher, context, signal, journal } = this.#init;
    const started = performance.now();
    const finish = () => {
      release();
      this.#pendingArgsChars -= argsJson.length;
    };
    if (signal.aborted) {
      finish();
      this.#record(call, name, "cancelled", started);
      return refused(name, "The run has ended; no more tool calls are accepted.", "cancelled");
    }
    // In a run that may pause, a call that needs a person pauses it, unless a person already answered.
    // Once it is pausing, a call that would run is held (the journal has it as made; a resume starts
    // it), and one that needs a person waits too.
    let policy: PersonPolicy | undefined = this.#pausing
      ? { pause: true, hold: true }
      : (person ?? (journal && this.#init.pause !== false ? { pause: true } : undefined));
    const { effects } = this.#init;
    if (effects !== undefined && policy?.hold !== true) policy = { ...policy, effects };
    // Time waiting for a person (an approval, or a tool that asks one) does not count against the run's
    // clock. Made on the first event that concerns it; only the events of a tool that may wait for a
    // person are watched (most calls never wait for anyone, and then no event is even made).
    let human: HumanWait | undefined;
    // A call a flow policy sends to a person waits for one, whatever its tool says.
    const onEvent =
      waiting && (flow !== undefined || HumanWait.mayWait(dispatcher, name))
        ? (event: DispatchEvent) => {
            if (human || HumanWait.concerns(dispatcher, event)) {
              human ??= new HumanWait(dispatcher, waiting);
              human.observe(event);
            }
          }
        : undefined;
    const done = ({
      result,
      value,
      valueJson,
      runningOn,
      paused,
      previewed,
    }: RunCallOutcome): BridgeCallOutcome | Promise<BridgeCallOutcome> => {
      finish();
      this.#inFlight--;
      if (runningOn) {
        const settle = () => this.#settle(callId);
        runningOn.then(settle, settle);
      } else this.#settle(callId);
      human?.end();
      if (paused?.kind === "held") {
        this.#init.durable?.held(index);
        this.#stopIfIdle();
        return NEVER;
      }
      if (paused && journal) {
        journal.paused(index, paused.kind, paused.args, paused.flow);
        this.#record(call, result.name, "paused", started);
        this.#pausing = true;
        this.#stopIfIdle();
        return NEVER;
      }
      let outcome: BridgeCallOutcome;
      let record: CallRecord;
      if (result.ok) {
        record = this.#record(call, result.name, previewed ? "planned" : "ok", started);
        outcome = { ok: true, valueJson: valueJson ?? renderJson(value) };
        if (!journal && hasEffects(dispatcher.toolset.get(result.name)?.options)) {
          this.effects.push({
            index,
            id: callId,
            tool: result.name,
            args: argsJson,
            result: outcome.valueJson,
          });
        }
      } else {
        const kind = KIND_IN_CODE[result.error?.kind ?? "error"] ?? "error";
        record = this.#record(call, result.name, kind, started);
        const hint = result.error?.hint === undefined ? "" : ` Hint: ${result.error.hint}`;
        outcome = {
          ok: false,
          error: { tool: result.name, kind, message: `${result.error?.message ?? result.output}${hint}` },
        };
      }
      journal?.ended(index, outcome, record, this.#count);
      this.#init.labels?.received(index, result.name, outcome, this.#count);
      if (previewed && result.ok) journal?.previewed(index, previewed.args);
      this.#stopIfIdle();
      return this.#deliver(outcome);
    };
    const failed = (error: unknown): BridgeCallOutcome | Promise<BridgeCallOutcome> => {
      finish();
      this.#inFlight--;
      this.#settle(callId);
      human?.end();
      const record = this.#record(call, name, "cancelled", started);
      const outcome = refused(
        name,
        error instanceof Error ? error.message : "The run was cancelled.",
        "cancelled",
      );
      journal?.ended(index, outcome, record, this.#count);
      this.#init.labels?.received(index, name, outcome, this.#count);
      this.#stopIfIdle();
      return this.#deliver(outcome);
    };
    // Until the tool's own work has settled (it may run on past a timeout or the run's end).
    this.#unsettled.add(callId);
    this.#inFlight++;
    const options: RunCallOptions = {
      parent: context,
      idempotencyKey: idempotencyKeyOf(this.#init.runId, index),
    };
    if (onEvent) options.onEvent = onEvent;
    if (policy) options.person = policy;
    if (flow) options.flow = flow;
    let outcome: RunCallOutcome | Promise<RunCallOutcome>;
    try {
      this.#init.onLive?.();
      outcome = dispatcher.runCallNow({ id: callId, name, arguments: argsJson }, options);
    } catch (error) {
      return failed(error);
    }
    return outcome instanceof Promise ? outcome.then(done, failed) : done(outcome);
  }

  /**
   * A pausing run stops once no call is in flight and the code has made no new call for
   * {@link PAUSE_QUIET_MS}: everything it started has ended and is journaled, and the calls the sandbox
   * made at the same moment (a `Promise.all` asking for several approvals), or its result, have arrived.
   */
  #stopIfIdle(): void {
    if (!this.#pausing || this.#inFlight > 0 || this.#quiet !== undefined) return;
    const calls = this.#count;
    this.#quiet = setTimeout(() => {
      this.#quiet = undefined;
      if (this.#init.signal.aborted || this.#inFlight > 0) return;
      if (this.#count !== calls) this.#stopIfIdle();
      else this.#stop({ reason: "paused" });
    }, PAUSE_QUIET_MS);
  }

  /**
   * The first zone the sandbox reported. A resume whose sandbox sees another time zone or locale than the
   * paused run's did ends as diverged at once: its code would compute other local times and formats, and
   * no sandbox can be made to see another zone than its process's.
   */
  #zoneSeen(zone: RecordedZone): void {
    this.#zone = zone;
    const paused = this.#init.replay?.zone;
    if (paused === undefined || this.stop !== undefined) return;
    if (paused.timeZone === zone.timeZone && paused.locale === zone.locale) return;
    this.#stop({
      reason: "diverged",
      divergence: {
        index: this.#count,
        message: `the paused run's code saw the time zone ${paused.timeZone} and the locale ${paused.locale}, and this sandbox's code sees ${zone.timeZone} and ${zone.locale}`,
        remedy: zoneRemedy(paused),
      },
    });
  }

  /**
   * Whether a resume's sandbox has come to a call (or a count of replayed ones) without saying which zone
   * its code sees, where the paused run's did: then it ends as diverged (true), as nobody can tell
   * whether its code sees what the paused run's saw.
   */
  #zoneUnknown(): boolean {
    const paused = this.#init.replay?.zone;
    if (paused === undefined || this.#zone !== undefined) return false;
    this.#stop({
      reason: "diverged",
      divergence: {
        index: this.#count,
        message: `the sandbox did not say which time zone and locale its code sees, and the paused run's code saw ${paused.timeZone} and ${paused.locale}`,
        remedy: zoneRemedy(paused),
      },
    });
    return true;
  }

  #stop(stop: BridgeStop): void {
    if (this.stop !== undefined) return;
    this.stop = stop;
    // Outside the call being answered (a divergence is found inside one): the run ends after it returns.
    const onStop = this.#init.onStop;
    if (onStop) queueMicrotask(onStop);
  }

  /** A call's tool has really finished: it no longer holds up {@link settled}. */
  #settle(callId: string): void {
    this.#unsettled.delete(callId);
    if (this.#unsettled.size > 0) return;
    for (const resolve of this.#drained.splice(0)) resolve();
  }

  #record(call: CallName, tool: string, status: CallRecord["status"], started: number): CallRecord {
    const record: CallRecord = {
      callId: call.callId,
      tool,
      status,
      durationMs: Math.round(performance.now() - started),
    };
    if (call.requested !== undefined && call.requested !== tool) record.requested = call.requested;
    this.calls.push(record);
    return record;
  }
}

/**
 * Whether one call from code is waiting for a person, told to the sandbox through `waiting`: while its
 * approval is asked, and while an attempt of a `waitsForHuman` tool runs (for at most the tool's
 * timeout, or the dispatcher's approvalTimeoutMs when the tool has none; after that the clock runs).
 */
class HumanWait {
  readonly #dispatcher: Dispatcher;
  readonly #waiting: (waiting: boolean) => void;
  #approval = false;
  #asking = false;
  #bound: NodeJS.Timeout | undefined;

  /**
   * Whether a call of the tool named `name` may wait for a person: it is gated by `needsApproval` or
   * marked `waitsForHuman`. A name that is not a tool's (the dispatcher repairs it or refuses it) may.
   */
  static mayWait(dispatcher: Dispatcher, name: string): boolean {
    const options = dispatcher.toolset.get(name)?.options;
    if (!options) return true;
    return options.waitsForHuman === true || (options.needsApproval ?? false) !== false;
  }

  /** Whether `event` starts a wait for a person: an approval request, or a `waitsForHuman` tool starting. */
  static concerns(dispatcher: Dispatcher, event: DispatchEvent): boolean {
    if (event.type === "approval_required") return true;
    return event.type === "started" && dispatcher.toolset.get(event.name)?.options.waitsForHuman === true;
  }

  constructor(dispatcher: Dispatcher, waiting: (waiting: boolean) => void) {
    this.#dispatcher = dispatcher;
    this.#waiting = waiting;
  }

  observe(event: DispatchEvent): void {
    switch (event.type) {
      case "approval_required":
        this.#approval = true;
        break;
      case "approval_decided":
        this.#approval = false;
        break;
      case "started": {
        const options = this.#dispatcher.toolset.get(event.name)?.options;
        if (options?.waitsForHuman !== true) return;
        this.#asking = true;
        const timeout = options.timeout;
        // A finite timeout ends the attempt, and with it the pause; without one the pause is bounded here.
        if (timeout === undefined || !Number.isFinite(timeout)) {
          clearTimeout(this.#bound);
          this.#bound = setTimeout(() => {
            this.#asking = false;
            this.#tell();
          }, this.#dispatcher.approvalTimeoutMs);
        }
        break;
      }
      case "retrying":
      case "completed":
      case "failed":
        clearTimeout(this.#bound);
        this.#asking = false;
        break;
      default:
        return;
    }
    this.#tell();
  }

  /** The call is over: the clock runs again. */
  end(): void {
    clearTimeout(this.#bound);
    this.#approval = false;
    this.#asking = false;
    this.#tell();
  }

  #tell(): void {
    this.#waiting(this.#approval || this.#asking);
  }
}

/** What to do about a resume whose sandbox does not see the zone its paused run saw. */
function zoneRemedy(paused: RecordedZone): string {
  return `Resume it where the sandbox sees the time zone ${paused.timeZone} and the locale ${paused.locale}: a sandbox sees its process's (for the in-process isolate, the agent's TZ and LANG environment variables; sandbox-host processes and containers start with an empty environment and see their machine's or image's default zone and en-US), or start the run again.`;
}

/** The refusal of a call after the run ended. */
function ended(tool: string): BridgeCallOutcome {
  return refused(tool, "The run has ended; no more tool calls are accepted.", "cancelled");
}

function refused(tool: string, message: string, kind: "limit" | "cancelled" = "limit"): BridgeCallOutcome {
  return { ok: false, error: { tool, kind, message } };
}
