import { untilAborted } from "../../common/abort.js";
import { InvalidToolArguments, messageOf, RunCancelled } from "../../common/errors.js";
import { isPromiseLike } from "../../common/promise-like.js";
import type { AnyTool, RunContext, ToolInvoke } from "../tools/types.js";
import { AttemptTimedOut, failureFrom, failureOutput, formatDuration, isRetryable } from "./failures.js";
import type { PreparedCall } from "./preflight.js";
import { renderValue } from "./render.js";
import { backoffDelay, sleep } from "./retry.js";
import type { CallScope } from "./scope.js";
import { truncateOutput } from "./truncate.js";
import type { CallFailure, ResultObserver, ToolResult } from "./types.js";

type AttemptOutcome = { ok: true; value: unknown; ctx: RunContext } | { ok: false; error: unknown };

/**
 * Runs a call that passed preflight: attempts with timeout and retries, then rendering and truncation.
 * The result of a tool that returns its value synchronously is there when this returns (no promise):
 * a call from code is on the path of every sequential step.
 */
export function execute(prepared: PreparedCall, scope: CallScope): ToolResult | Promise<ToolResult> {
  const started = performance.now();
  announceAttempt(prepared, scope, 1);
  const outcome = runAttempt(prepared, scope, 1);
  if (outcome instanceof Promise)
    return outcome.then((first) => afterAttempt(prepared, scope, first, started));
  return afterAttempt(prepared, scope, outcome, started);
}

/** The result once the first attempt is over: it succeeded, failed for good, or is retried. */
function afterAttempt(
  prepared: PreparedCall,
  scope: CallScope,
  outcome: AttemptOutcome,
  started: number,
): ToolResult | Promise<ToolResult> {
  if (outcome.ok) return succeed(prepared, scope, outcome.value, outcome.ctx, 1, started);
  return retry(prepared, scope, outcome.error, started);
}

/** The rest of the attempts after the first failed with `error`, with exponential backoff between them. */
async function retry(
  prepared: PreparedCall,
  scope: CallScope,
  error: unknown,
  started: number,
): Promise<ToolResult> {
  const { tool } = prepared;
  const maxAttempts = 1 + (tool.options.retries ?? scope.settings.retries);
  for (let attempt = 1; ; attempt++) {
    const failure = classify(error, tool, scope);
    // A tool that ran on past its deadline may already have acted: running it again could act twice.
    const ranOn = error instanceof AttemptTimedOut && error.ranOn;
    if (!isRetryable(failure) || ranOn || attempt >= maxAttempts || scope.turn.stopReason) {
      return fail(prepared, scope, failure, attempt, started);
    }
    const delayMs = backoffDelay(attempt, scope.settings.retryDelay);
    if (scope.listening) {
      scope.emit({
        type: "retrying",
        callId: prepared.call.id,
        name: tool.name,
        ...scope.parentField,
        attempt: attempt + 1,
        delayMs,
        error: failure,
      });
    }
    try {
      await sleep(delayMs, scope.signal);
    } catch (slept) {
      return fail(prepared, scope, classify(slept, tool, scope), attempt, started);
    }
    announceAttempt(prepared, scope, attempt + 1);
    const outcome = await runAttempt(prepared, scope, attempt + 1);
    if (outcome.ok) return succeed(prepared, scope, outcome.value, outcome.ctx, attempt + 1, started);
    error = outcome.error;
  }
}

function announceAttempt(prepared: PreparedCall, scope: CallScope, attempt: number): void {
  if (!scope.listening) return;
  const { call, tool } = prepared;
  scope.emit({ type: "started", callId: call.id, name: tool.name, ...scope.parentField, attempt });
}

/** Maps what an attempt threw to a failure, and stops the turn when the error says so. */
function classify(error: unknown, tool: AnyTool, scope: CallScope): CallFailure {
  if (error instanceof RunCancelled) {
    scope.turn.stop(error);
    return failureFrom(error, tool.name);
  }
  if (scope.turn.ownsBudgetError(error)) scope.turn.stop(error);
  if (scope.signal.aborted && !(error instanceof AttemptTimedOut)) {
    const reason = scope.signal.reason;
    return failureFrom(reason instanceof RunCancelled ? reason : new RunCancelled(), tool.name);
  }
  return failureFrom(error, tool.name);
}

/**
 * One attempt. Without a timeout or policies, a `run` that returns (or throws) synchronously gives its
 * outcome at once; anything else is waited for, bounded by the timeout and the scope's signal.
 */
function runAttempt(
  prepared: PreparedCall,
  scope: CallScope,
  attempt: number,
): AttemptOutcome | Promise<AttemptOutcome> {
  const { call, tool } = prepared;
  const configured = tool.options.timeout ?? scope.settings.timeout;
  const timeout = configured !== undefined && Number.isFinite(configured) ? configured : undefined;
  if (timeout === undefined && scope.settings.policies.length === 0 && !tool.options.policies?.length) {
    const ctx = scope.context(call.id, tool.name, attempt, scope.signal);
    let value: unknown;
    let later: boolean;
    try {
      value = tool.run(prepared.args, ctx);
      // Inside the try: a value whose `then` getter throws is the attempt's failure, as awaiting it would be.
      later = isPromiseLike(value);
    } catch (error) {
      return { ok: false, error };
    }
    if (!later) {
      // Cancelled while `run` ran (by something it called): the attempt ends as cancelled, as it would
      // have had `run` been asynchronous.
      if (scope.signal.aborted) return { ok: false, error: scope.signal.reason };
      return { ok: true, value, ctx };
    }
    return waitForWork(Promise.resolve(value), scope, ctx);
  }
  return runGuardedAttempt(prepared, scope, attempt, timeout);
}

/** The outcome of an attempt's asynchronous work, which only the scope's signal can cut short. */
async function waitForWork(
  work: Promise<unknown>,
  scope: CallScope,
  ctx: RunContext,
): Promise<AttemptOutcome> {
  // A tool still running after a cancellation must not raise an unhandled rejection later.
  work.catch(() => {});
  try {
    return { ok: true, value: await untilAborted(work, scope.signal), ctx };
  } catch (error) {
    // The attempt may have ended before the tool did: it counts as running until it really settles.
    scope.track(work);
    return { ok: false, error };
  }
}

/** An attempt with a timeout or policies: its own signal, its deadline, and the policy chain. */
async function runGuardedAttempt(
  prepared: PreparedCall,
  scope: CallScope,
  attempt: number,
  timeout: number | undefined,
): Promise<AttemptOutcome> {
  const { call, tool } = prepared;
  // Without a timeout the attempt can only end early through the turn, so it shares the turn's signal;
  // an AbortController per call is the single largest cost of a trivial dispatched call.
  const controller = timeout === undefined ? undefined : new AbortController();
  const onAbort = () => controller?.abort(scope.signal.reason);
  if (controller) {
    if (scope.signal.aborted) onAbort();
    else scope.signal.addEventListener("abort", onAbort, { once: true });
  }
  const signal = controller?.signal ?? scope.signal;
  const ctx = scope.context(call.id, tool.name, attempt, signal);
  let timer: NodeJS.Timeout | undefined;
  let work: Promise<unknown> | undefined;
  // The attempt's time counts from before `run` is called: its synchronous part is part of the attempt.
  const startedAt = timeout === undefined ? 0 : performance.now();
  try {
    work = invokeChain(prepared, scope)(prepared.rawArgs, ctx);
    // A tool still running after a timeout or cancellation must not raise an unhandled rejection later.
    work.catch(() => {});
    if (controller && timeout !== undefined) {
      // No timer can fire while `run` blocks the event loop: a run that returned past its deadline is
      // caught here, and one whose value arrived past it (blocked after an await) below.
      const blocked = performance.now() - startedAt;
      if (blocked > timeout) {
        const late = new AttemptTimedOut(blockedMessage(tool.name, blocked, timeout), { ranOn: true });
        controller.abort(late);
        throw late;
      }
      timer = setTimeout(() => {
        controller.abort(new AttemptTimedOut(`${tool.name} timed out after ${formatDuration(timeout)}.`));
      }, timeout - blocked);
    }
    const value = await untilAborted(work, signal);
    if (controller && timeout !== undefined) {
      const took = performance.now() - startedAt;
      if (took > timeout) throw new AttemptTimedOut(lateMessage(tool.name, took, timeout), { ranOn: true });
    }
    return { ok: true, value, ctx };
  } catch (error) {
    // The attempt may have ended before the tool did: the dispatch counts it as running until it really
    // settles (`handle.settled()`). An attempt that returned a value saw its work settle.
    if (work) scope.track(work);
    return { ok: false, error };
  } finally {
    clearTimeout(timer);
    if (controller) {
      scope.signal.removeEventListener("abort", onAbort);
      // The attempt is over: whatever the tool left running sees its signal fire.
      if (!controller.signal.aborted) controller.abort(new Error("The call has finished."));
    }
  }
}

/**
 * The timeout message of a `run` that blocked the event loop past its deadline: no timer can interrupt
 * synchronous work, so the attempt fails once it returns, and the message says how to avoid it.
 */
function blockedMessage(toolName: string, blockedMs: number, timeoutMs: number): string {
  return (
    `${toolName} timed out: its run function blocked the event loop for ${formatDuration(Math.round(blockedMs))}, ` +
    `longer than its timeout of ${formatDuration(timeoutMs)}, and a timeout cannot interrupt synchronous work ` +
    "(meanwhile no other call could run). It was not retried: it may already have acted. The tool's author " +
    "should make run async and move the blocking work off the main thread, for example to a worker thread."
  );
}

/** The timeout message of an attempt whose value arrived past its deadline, while the event loop was blocked. */
function lateMessage(toolName: string, tookMs: number, timeoutMs: number): string {
  return (
    `${toolName} timed out: it finished after ${formatDuration(Math.round(tookMs))}, past its timeout of ` +
    `${formatDuration(timeoutMs)}; the timeout could not end it sooner because synchronous work blocked ` +
    "the event loop. It was not retried: it may already have acted."
  );
}

const chains = new WeakMap<AnyTool, WeakMap<CallScope["settings"], ToolInvoke>>();

/**
 * The policy chain of a tool (dispatcher policies outermost, then the tool's own, first = outermost),
 * with validation innermost at the function boundary. Without policies the arguments reaching `run`
 * are exactly the ones preflight validated, so they are not validated twice.
 */
function invokeChain(prepared: PreparedCall, scope: CallScope): ToolInvoke {
  const { tool } = prepared;
  const policies = [...scope.settings.policies, ...(tool.options.policies ?? [])];
  if (policies.length === 0) {
    return async (_args, ctx) => tool.run(prepared.args, ctx);
  }
  let byTool = chains.get(tool);
  if (!byTool) {
    byTool = new WeakMap();
    chains.set(tool, byTool);
  }
  const cached = byTool.get(scope.settings);
  if (cached) return cached;
  let next: ToolInvoke = async (args, ctx) => {
    const checked = await tool.validate(args);
    if (!checked.ok) throw new InvalidToolArguments(tool.name, checked.issues);
    return tool.run(checked.value, ctx);
  };
  for (let i = policies.length - 1; i >= 0; i--) {
    const policy = policies[i]!;
    const inner = next;
    next = async (args, ctx) => policy(inner, args, ctx);
  }
  byTool.set(scope.settings, next);
  return next;
}

function succeed(
  prepared: PreparedCall,
  scope: CallScope,
  value: unknown,
  ctx: RunContext,
  attempts: number,
  started: number,
): ToolResult {
  const { call, tool } = prepared;
  let rendered: string;
  let asJson = false;
  try {
    const render = tool.options.render ?? scope.settings.render;
    const out = render ? render(value, ctx) : renderValue(value);
    rendered = typeof out === "string" ? out : renderValue(out);
    // The default rendering of anything but a string is the value's JSON: code asking for it gets it.
    asJson = !render && typeof value !== "string";
  } catch (error) {
    const failure: CallFailure = {
      kind: "error",
      message: `rendering the result of ${tool.name} failed: ${messageOf(error)}`,
    };
    return fail(prepared, scope, failure, attempts, started);
  }
  const max = tool.options.maxOutputChars ?? scope.settings.maxOutputChars;
  const { text, truncated } = truncateOutput(rendered, max);
  const durationMs = performance.now() - started;
  const observers = scope.settings.resultObservers;
  if (observers.length > 0) tellResultObservers(observers, tool, value, ctx);
  if (scope.keepsValue) {
    scope.value = value;
    scope.valueJson = asJson ? rendered : undefined;
  }
  if (scope.listening) {
    scope.emit({
      type: "completed",
      callId: call.id,
      name: tool.name,
      ...scope.parentField,
      value,
      output: text,
      attempts,
      durationMs,
      truncated,
    });
  }
  const result: ToolResult = {
    callId: call.id,
    name: tool.name,
    ok: true,
    output: text,
    attempts,
    truncated,
    durationMs,
  };
  if (!truncated) result.value = value;
  if (scope.parentCallId !== undefined) result.parentCallId = scope.parentCallId;
  return result;
}

function tellResultObservers(
  observers: readonly ResultObserver[],
  tool: AnyTool,
  value: unknown,
  ctx: RunContext,
): void {
  for (const observe of observers) {
    try {
      observe(tool, value, ctx);
    } catch {
      // An observer's failure must not change what happens to the call.
    }
  }
}

/** The result of a call whose value a person gave (a resumed question): the tool is not run. */
export function answered(
  prepared: PreparedCall,
  scope: CallScope,
  value: unknown,
  started: number,
): ToolResult {
  const ctx = scope.context(prepared.call.id, prepared.tool.name, 1, scope.signal);
  return succeed(prepared, scope, value, ctx, 0, started);
}

/** The result (and `failed` event) of a call that did not succeed. */
export function fail(
  prepared: { call: { id: string }; tool: { name: string; options: { maxOutputChars?: number } } },
  scope: CallScope,
  failure: CallFailure,
  attempts: number,
  started: number,
): ToolResult {
  const max = prepared.tool.options.maxOutputChars ?? scope.settings.maxOutputChars;
  const { text, truncated } = truncateOutput(failureOutput(failure), max);
  const durationMs = performance.now() - started;
  const name = prepared.tool.name;
  if (scope.listening) {
    scope.emit({
      type: "failed",
      callId: prepared.call.id,
      name,
      ...scope.parentField,
      error: failure,
      output: text,
      attempts,
      durationMs,
    });
  }
  const result: ToolResult = {
    callId: prepared.call.id,
    name,
    ok: false,
    output: text,
    error: failure,
    attempts,
    truncated,
    durationMs,
  };
  if (scope.parentCallId !== undefined) result.parentCallId = scope.parentCallId;
  return result;
}
