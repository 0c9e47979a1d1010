import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import { UserError } from "../../common/errors.js";
import { Budget } from "../tools/budget.js";
import type { Toolset } from "../tools/toolset.js";
import type { AnyTool, RunContext, Session } from "../tools/types.js";
import { runBatch, runSingle } from "./batch.js";
import { EventStream } from "./event-stream.js";
import type { FlowApproval } from "./flow-approval.js";
import { DEFAULT_RETRY_DELAY_MS } from "./retry.js";
import { CallScope, type Settings } from "./scope.js";
import { type CodeRunSpan, Tracing } from "./tracing/tracing.js";
import { DEFAULT_MAX_OUTPUT_CHARS } from "./truncate.js";
import { linkContext, Turn, turnOf } from "./turn.js";
import type {
  Approvals,
  DispatchEvent,
  DispatcherOptions,
  DispatchHandle,
  DispatchOptions,
  DispatchOutcome,
  DispatchRun,
  OpenRunOptions,
  PersonPolicy,
  ResultObserver,
  RunCallOptions,
  RunCallOutcome,
  ToolCall,
  ToolResult,
} from "./types.js";

/** How long a gated call waits for a decision by default before it is denied: 5 minutes. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 5 * 60_000;

/** How many sessions (by id) a dispatcher keeps state for; the least recently used is dropped first. */
const MAX_REMEMBERED_SESSIONS = 1_000;

/**
 * The one pipeline every tool call goes through: name repair, argument parsing and validation, budget,
 * approval, policies, timeout, retries, rendering, truncation and events. Calls made from code (by
 * `run_code`) go through it too, as children of the run_code call.
 */
export class Dispatcher<Deps = unknown> {
  readonly toolset: Toolset;
  readonly #settings: Settings;
  readonly #deps: Deps | undefined;
  readonly #sessions = new Map<string, Session>();
  readonly #tracing: Tracing | undefined;

  constructor(toolset: Toolset, options: DispatcherOptions<Deps> = {}) {
    if (!toolset || typeof toolset.get !== "function" || typeof toolset.names !== "function") {
      throw new UserError("new Dispatcher(toolset) needs a Toolset: new Dispatcher(new Toolset([myTool])).");
    }
    this.toolset = toolset;
    this.#deps = options.deps;
    this.#settings = {
      maxOutputChars: positive(options.maxOutputChars, "maxOutputChars") ?? DEFAULT_MAX_OUTPUT_CHARS,
      maxConcurrency: positive(options.maxConcurrency, "maxConcurrency") ?? Number.POSITIVE_INFINITY,
      retries: nonNegative(options.retries, "retries") ?? 0,
      timeout: positive(options.timeout, "timeout"),
      retryDelay: nonNegative(options.retryDelay, "retryDelay") ?? DEFAULT_RETRY_DELAY_MS,
      approvalHandler: options.approvalHandler,
      approvalTimeoutMs:
        positive(options.approvalTimeoutMs, "approvalTimeoutMs") ?? DEFAULT_APPROVAL_TIMEOUT_MS,
      render: options.render,
      policies: options.policies ?? [],
      resultObservers: [],
    };
    this.#tracing = options.tracing === false ? undefined : new Tracing(options.tracing ?? {});
  }

  /**
   * Dispatches the calls of one model turn. The returned handle is an async iterable of events (read
   * it to answer approvals) and has `results()`. Work starts when the handle is first read or awaited,
   * or on the next turn of the event loop.
   */
  dispatch(calls: readonly ToolCall[], options: DispatchOptions<Deps> = {}): DispatchHandle {
    if (!Array.isArray(calls)) {
      throw new UserError("dispatch(calls) takes an array of { id, name, arguments } objects.");
    }
    const checked = calls.map(checkCall);
    const parentTurn = options.parent ? turnOf(options.parent) : undefined;
    if (parentTurn) return this.#dispatchNested(checked, options, parentTurn);

    let begin: () => void = () => {};
    const turn = new Turn({
      runId: options.runId ?? options.parent?.runId ?? randomUUID(),
      budget: options.budget ?? options.parent?.budget ?? new Budget(),
      session: this.#session(options.session) ?? options.parent?.session,
      deps: options.deps ?? options.parent?.deps ?? this.#deps,
      approvalHandler: this.#settings.approvalHandler,
      signal: options.signal ?? options.parent?.signal,
      onFirstRead: () => begin(),
    });
    const trace = this.#tracing?.startDispatch({ runId: turn.runId, callCount: checked.length });
    turn.trace = trace;
    const observers = options.onEvent ? [options.onEvent] : [];
    if (trace) observers.push(trace.observer());
    const scope = new CallScope({
      turn,
      toolset: this.toolset,
      settings: this.#settings,
      parentCallId: options.parent?.callId,
      signal: turn.signal,
      observers,
    });
    let batch: Promise<ToolResult[]> | undefined;
    let done: Promise<ToolResult[]> | undefined;
    const start = () => {
      if (!done) {
        batch = runBatch(checked, scope);
        done = finish(batch, turn);
        // Nobody may ever await results(); a stopped turn must not become an unhandled rejection.
        const ended = () => trace?.end(turn.stopReason);
        done.then(ended, ended);
      }
      return done;
    };
    // A stopped turn still gave every call a result: the batch resolved before finish() threw the stop.
    const outcome = (): Promise<DispatchOutcome> =>
      start().then(
        (results) => ({ results }),
        async (error: unknown) => {
          if (error !== turn.stopReason) throw error;
          return { results: await batch!, stopped: turn.stopReason };
        },
      );
    begin = start;
    setImmediate(start);
    return makeHandle(turn.runId, turn.stream, turn.board, start, outcome, scope);
  }

  /**
   * Opens a run that dispatches its calls one after another over time, such as a code-mode run: every
   * `dispatch(calls, { parent: run.context })` is then a nested dispatch of the run's one turn (its run
   * id, budget, session, approvals and events), without the cost of a turn per call. With
   * `options.parent` the run belongs to that call's turn and its calls are that call's children;
   * without, it is a turn of its own. `options.signal` ends the run's calls when it aborts. `close()`
   * ends the run: calls still running see their signal abort, and later ones run nothing. With
   * `options.code` the run is a code run with a span of its own, which `end(summary)` ends.
   */
  openRun(options: OpenRunOptions<Deps>): DispatchRun {
    const parentTurn = options.parent ? turnOf(options.parent) : undefined;
    if (options.parent && parentTurn) {
      const parent = options.parent;
      // The run's own end, so that close() aborts its calls and refuses later ones, as documented.
      const own = new AbortController();
      const sources = options.signal
        ? [parent.signal, options.signal, own.signal]
        : [parent.signal, own.signal];
      const signal = manyListeners(AbortSignal.any(sources));
      const context: RunContext = { ...parent, signal };
      linkContext(context, parentTurn);
      const span =
        options.code === undefined ? undefined : parentTurn.trace?.startRun(parent, context, options.code);
      return {
        context,
        close: () => own.abort(new Error("The run has ended.")),
        end: endOnce(span),
      };
    }
    const turn = new Turn({
      runId: options.runId ?? randomUUID(),
      budget: options.budget ?? new Budget(),
      session: this.#session(options.session),
      deps: options.deps ?? this.#deps,
      approvalHandler: this.#settings.approvalHandler,
      signal: options.signal,
      onFirstRead: () => {},
      unread: true,
    });
    // A code run made without a model is the root: its dispatch is the run's child.
    const span = options.code === undefined ? undefined : this.#tracing?.startCodeRun(options.code);
    const trace = this.#tracing?.startDispatch({ runId: turn.runId, callCount: 0, parent: span });
    turn.trace = trace;
    const context: RunContext = {
      runId: turn.runId,
      callId: options.callId,
      toolName: options.toolName ?? "run",
      signal: turn.signal,
      deps: turn.deps,
      session: turn.session,
      budget: turn.budget,
      parentCallId: undefined,
      attempt: 1,
      idempotencyKey: options.callId,
    };
    linkContext(context, turn);
    let closed = false;
    return {
      context,
      close: () => {
        if (closed) return;
        closed = true;
        turn.finish();
        turn.stream.end();
        trace?.end(turn.stopReason);
      },
      end: endOnce(span),
    };
  }

  /**
   * Runs one call as a child of `options.parent` (a run's context from {@link openRun}, or a call's
   * context) and resolves with its result: the whole pipeline of `dispatch([call], { parent })`, without
   * a handle, its own event stream or batch bookkeeping. Code mode makes every `tools.*` call this way.
   * The call's events go to the parent's turn and to `onEvent`. Rejects only with a UserError: for a
   * call without an id, or a parent the dispatcher did not make.
   */
  runCall(call: ToolCall, options: RunCallOptions): Promise<RunCallOutcome> {
    try {
      return Promise.resolve(this.runCallNow(call, options));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * {@link runCall}, with the outcome at once (not a promise) when the whole call completed before it
   * returned: an ungated tool whose validation and `run` are synchronous, or a call refused in
   * preflight. For a host that can answer a waiting sandbox without a turn of the event loop. Throws
   * (instead of rejecting) the UserError for a call without an id or a parent the dispatcher did not make.
   */
  runCallNow(call: ToolCall, options: RunCallOptions): RunCallOutcome | Promise<RunCallOutcome> {
    const checked = checkCall(call, 0);
    const parent = options?.parent;
    const turn = parent ? turnOf(parent) : undefined;
    if (!parent || !turn) {
      throw new UserError(
        "runCall(call, { parent }) needs a parent context made by a dispatcher: a DispatchRun's context from openRun(), or a tool's ctx.",
      );
    }
    const observers = options.onEvent ? [options.onEvent] : [];
    const scope = this.#childScope(
      turn,
      parent,
      parent.signal,
      observers,
      true,
      options.person,
      options.idempotencyKey,
      options.tool,
      options.flow,
    );
    const result = runSingle(checked, scope);
    if (result instanceof Promise) return result.then((settled) => outcomeOf(settled, scope));
    return outcomeOf(result, scope);
  }

  #dispatchNested(calls: ToolCall[], options: DispatchOptions<Deps>, turn: Turn): DispatchHandle {
    const own = new EventStream<DispatchEvent>();
    const parent = options.parent!;
    const observers: ((event: DispatchEvent) => void)[] = [(event) => own.push(event)];
    if (options.onEvent) observers.push(options.onEvent);
    const signal = options.signal
      ? manyListeners(AbortSignal.any([parent.signal, options.signal]))
      : parent.signal;
    const scope = this.#childScope(turn, parent, signal, observers);
    const done = runBatch(calls, scope).then(
      (results) => {
        own.end();
        return results;
      },
      (error: unknown) => {
        own.end(error);
        throw error;
      },
    );
    done.catch(() => {});
    const outcome = () =>
      done.then((results): DispatchOutcome => {
        const stopped = turn.stopReason;
        return stopped ? { results, stopped } : { results };
      });
    return makeHandle(turn.runId, own, turn.board, () => done, outcome, scope);
  }

  /**
   * The scope of calls made as children of `parent` in its turn; its trace (when traced) observes them.
   * `keepsValue` for runCall's scope of one call (see CallScope).
   */
  #childScope(
    turn: Turn,
    parent: RunContext,
    signal: AbortSignal,
    observers: ((event: DispatchEvent) => void)[],
    keepsValue = false,
    person?: PersonPolicy,
    idempotencyKey?: string,
    tool?: AnyTool,
    flow?: FlowApproval,
  ): CallScope {
    if (turn.trace) observers.push(turn.trace.observer(parent));
    return new CallScope({
      turn,
      toolset: this.toolset,
      settings: this.#settings,
      parentCallId: parent.callId,
      signal,
      observers,
      keepsValue,
      ...(person ? { person } : {}),
      idempotencyKey,
      tool,
      ...(flow ? { flow } : {}),
    });
  }

  /**
   * Tells `observer` of every call of this dispatcher that succeeds, direct calls and calls from code
   * alike: once per call (after its last attempt), with the tool, its raw value and the call's context,
   * before the result is handed on. Code mode learns observed result types this way. Returns a function that stops it.
   */
  observeResults(observer: ResultObserver): () => void {
    if (typeof observer !== "function") {
      throw new UserError("observeResults(observer) takes a function (tool, value, ctx) => void.");
    }
    const settings = this.#settings;
    settings.resultObservers = [...settings.resultObservers, observer];
    return () => {
      settings.resultObservers = settings.resultObservers.filter((o) => o !== observer);
    };
  }

  /** How long a call may wait for a person's decision, in ms (the `approvalTimeoutMs` option). */
  get approvalTimeoutMs(): number {
    return this.#settings.approvalTimeoutMs;
  }

  #session(session: DispatchOptions["session"]): Session | undefined {
    if (session === undefined) return undefined;
    if (typeof session !== "string") return session;
    let known = this.#sessions.get(session);
    if (known) {
      this.#sessions.delete(session);
    } else {
      known = { id: session, state: new Map() };
      if (this.#sessions.size >= MAX_REMEMBERED_SESSIONS) {
        this.#sessions.delete(this.#sessions.keys().next().value!);
      }
    }
    this.#sessions.set(session, known);
    return known;
  }
}

/** A run's `end`: ends its code run's span (when it has one) the first time. */
function endOnce(span: CodeRunSpan | undefined): DispatchRun["end"] {
  let ended = false;
  return (summary) => {
    if (ended) return;
    ended = true;
    span?.end(summary);
  };
}

/** What runCall gives for a result of its scope's one call. */
function outcomeOf(result: ToolResult, scope: CallScope): RunCallOutcome {
  const outcome: RunCallOutcome = { result };
  if (result.ok) {
    outcome.value = scope.value;
    if (scope.valueJson !== undefined) outcome.valueJson = scope.valueJson;
  }
  if (scope.running.size > 0) outcome.runningOn = scope.settled();
  if (scope.paused) outcome.paused = scope.paused;
  if (scope.previewed) outcome.previewed = scope.previewed;
  return outcome;
}

async function finish(batch: Promise<ToolResult[]>, turn: Turn): Promise<ToolResult[]> {
  try {
    const results = await batch.finally(() => turn.finish());
    const stop = turn.stopReason;
    if (stop) throw stop;
    turn.stream.end();
    return results;
  } catch (error) {
    turn.stream.end(error);
    throw error;
  }
}

function makeHandle(
  runId: string,
  stream: EventStream<DispatchEvent>,
  approvals: Approvals,
  start: () => Promise<ToolResult[]>,
  outcome: () => Promise<DispatchOutcome>,
  scope: CallScope,
): DispatchHandle {
  return {
    runId,
    approvals,
    results: start,
    outcome,
    settled: () =>
      start().then(
        () => scope.settled(),
        () => scope.settled(),
      ),
    [Symbol.asyncIterator]: () => stream[Symbol.asyncIterator](),
  };
}

function checkCall(call: ToolCall, index: number): ToolCall {
  if (call === null || typeof call !== "object") {
    throw new UserError(
      `dispatch(calls): call ${index} is not an object; each call is { id, name, arguments }.`,
    );
  }
  if (typeof call.id !== "string" || call.id === "") {
    throw new UserError(
      `dispatch(calls): call ${index} has no id; pass the provider's tool call id as a string.`,
    );
  }
  return call;
}

function positive(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!(value > 0))
    throw new UserError(`Dispatcher option ${name} must be a number > 0, got ${String(value)}.`);
  return value;
}

function nonNegative(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!(value >= 0))
    throw new UserError(`Dispatcher option ${name} must be a number >= 0, got ${String(value)}.`);
  return value;
}

/** A signal every call of a run listens to: hundreds of listeners on it are the design, not a leak. */
function manyListeners(signal: AbortSignal): AbortSignal {
  setMaxListeners(0, signal);
  return signal;
}
