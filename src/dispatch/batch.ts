import { BudgetExceeded, messageOf, RunCancelled } from "../../common/errors.js";
import { answered, execute, fail } from "./execute.js";
import { previewCall } from "./planned-call.js";
import { type Preflight, type PreparedCall, preflight } from "./preflight.js";
import type { CallScope } from "./scope.js";
import { Semaphore } from "./semaphore.js";
import type { CallFailure, ToolCall, ToolResult } from "./types.js";

/**
 * Runs the calls of one dispatch. Preflight goes serially in request order; execution is concurrent
 * up to `maxConcurrency`. A `parallel: false` tool is a barrier: the calls already running finish, it
 * runs alone, then the rest continue. Results are collected in completion order.
 */
export async function runBatch(calls: readonly ToolCall[], scope: CallScope): Promise<ToolResult[]> {
  const results: ToolResult[] = [];
  const running = new Set<Promise<void>>();
  const slots = new Semaphore(scope.settings.maxConcurrency);
  const settle = async () => {
    await Promise.all(running);
  };

  for (const call of calls) {
    const started = performance.now();
    const prepared = await prepare(call, scope, started);
    if (!isPrepared(prepared)) {
      results.push(prepared);
      continue;
    }
    if (prepared.tool.options.parallel === false) {
      await settle();
      results.push(stopped(scope) ? notRun(call, scope, started) : await execute(prepared, scope));
      continue;
    }
    const release = await slots.acquire();
    if (stopped(scope)) {
      release();
      results.push(notRun(call, scope, started));
      continue;
    }
    const task = Promise.resolve(execute(prepared, scope)).then((result) => {
      results.push(result);
      release();
      running.delete(task);
    });
    running.add(task);
  }
  await settle();
  return results;
}

/**
 * Runs one call alone: what {@link runBatch} does for a batch of one, without its bookkeeping. Calls made
 * from code take this path, one nested dispatch each. When preflight has nothing to wait for, the tool
 * is invoked before this returns; when the tool is synchronous too, so is the result (no promise).
 */
export function runSingle(call: ToolCall, scope: CallScope): ToolResult | Promise<ToolResult> {
  const started = performance.now();
  const prepared = prepare(call, scope, started);
  if (prepared instanceof Promise) return prepared.then((ready) => runPrepared(ready, call, scope, started));
  return runPrepared(prepared, call, scope, started);
}

function runPrepared(
  prepared: PreparedCall | ToolResult,
  call: ToolCall,
  scope: CallScope,
  started: number,
): ToolResult | Promise<ToolResult> {
  if (!isPrepared(prepared)) return prepared;
  if (stopped(scope)) return notRun(call, scope, started);
  // A tool that waits for a person, in a run that pauses rather than wait: not run; or, resuming, the
  // answer the person gave is its value.
  const person = scope.person;
  if (person !== undefined && prepared.tool.options.waitsForHuman === true) {
    if (person.answer !== undefined) return answered(prepared, scope, person.answer, started);
    if (person.pause === true) {
      scope.paused = { kind: "question", args: prepared.args };
      const failure: CallFailure = {
        kind: "paused",
        message: `${prepared.tool.name} waits for a person's answer: the run pauses here.`,
      };
      return fail(prepared, scope, failure, 0, started);
    }
  }
  if (person?.effects === "preview" && prepared.tool.options.effect === true && person.hold !== true) {
    return previewCall(prepared, scope, started);
  }
  if (person?.hold === true) {
    scope.paused = { kind: "held", args: prepared.args };
    const failure: CallFailure = { kind: "paused", message: "The run is pausing: this call was not run." };
    return fail(prepared, scope, failure, 0, started);
  }
  return execute(prepared, scope);
}

/**
 * Announces a call and runs its preflight: the call, ready to execute, or the result of a call that
 * may not run (the turn stopped, unknown tool, invalid arguments, denied, out of budget). Synchronous
 * when preflight is.
 */
function prepare(
  call: ToolCall,
  scope: CallScope,
  started: number,
): PreparedCall | ToolResult | Promise<PreparedCall | ToolResult> {
  if (stopped(scope)) return notRun(call, scope, started);
  if (scope.listening) {
    scope.emit({
      type: "requested",
      callId: call.id,
      name: String(call.name),
      ...scope.parentField,
      arguments: call.arguments,
    });
  }
  let check: Preflight | Promise<Preflight>;
  try {
    check = preflight(call, scope);
  } catch (error) {
    return preflightFailed(call, scope, error, started);
  }
  if (check instanceof Promise) {
    return check.then(
      (checked) => checkedCall(checked, call, scope, started),
      (error: unknown) => preflightFailed(call, scope, error, started),
    );
  }
  return checkedCall(check, call, scope, started);
}

function checkedCall(
  check: Preflight,
  call: ToolCall,
  scope: CallScope,
  started: number,
): PreparedCall | ToolResult {
  if (!check.ok) return fail(stub(call, check.name), scope, check.failure, 0, started);
  return check.prepared;
}

/** Only cancellation can interrupt a preflight (an approval wait); anything else is a bug worth reporting. */
function preflightFailed(call: ToolCall, scope: CallScope, error: unknown, started: number): ToolResult {
  const failure: CallFailure =
    error instanceof RunCancelled || scope.signal.aborted
      ? { kind: "cancelled", message: messageOf(scope.turn.stopReason ?? error) }
      : { kind: "error", message: `preflight failed: ${messageOf(error)}` };
  return fail(stub(call, String(call.name)), scope, failure, 0, started);
}

function isPrepared(outcome: PreparedCall | ToolResult): outcome is PreparedCall {
  return "tool" in outcome;
}

/**
 * Why no further call of this dispatch may start, if that is so: the turn was stopped, or the scope's
 * signal fired (the turn ended, or the run that makes nested calls has ended). Waiting for preflight, a
 * barrier or a slot may outlast either.
 */
function stopped(scope: CallScope): Error | undefined {
  if (scope.turn.stopReason) return scope.turn.stopReason;
  if (!scope.signal.aborted) return undefined;
  const reason: unknown = scope.signal.reason;
  return reason instanceof Error ? reason : new RunCancelled();
}

function stub(call: ToolCall, name: string) {
  return { call, tool: { name, options: {} } };
}

function notRun(call: ToolCall, scope: CallScope, started: number): ToolResult {
  const stop = stopped(scope) ?? new RunCancelled();
  const kind = stop instanceof BudgetExceeded ? "budget" : "cancelled";
  const failure: CallFailure = { kind, message: `${String(call.name)} was not run: ${stop.message}` };
  return fail(stub(call, String(call.name)), scope, failure, 0, started);
}
