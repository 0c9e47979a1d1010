import { messageOf, RunCancelled } from "../errors.js";
import { execute, fail } from "./execute.js";
import { preflight } from "./preflight.js";
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
    const stop = scope.turn.stopReason;
    if (stop) {
      results.push(notRun(call, scope, stop, started));
      continue;
    }
    scope.emit({
      type: "requested",
      callId: call.id,
      name: String(call.name),
      ...scope.parentField,
      arguments: call.arguments,
    });
    let check: Awaited<ReturnType<typeof preflight>>;
    try {
      check = await preflight(call, scope);
    } catch (error) {
      // Only cancellation can interrupt a preflight (an approval wait); anything else is a bug worth reporting.
      const failure: CallFailure =
        error instanceof RunCancelled || scope.signal.aborted
          ? { kind: "cancelled", message: messageOf(scope.turn.stopReason ?? error) }
          : { kind: "error", message: `preflight failed: ${messageOf(error)}` };
      results.push(fail(stub(call, String(call.name)), scope, failure, 0, started));
      continue;
    }
    if (!check.ok) {
      results.push(fail(stub(call, check.name), scope, check.failure, 0, started));
      continue;
    }
    const { prepared } = check;
    if (prepared.tool.options.parallel === false) {
      await settle();
      results.push(
        stillGoing(scope)
          ? await execute(prepared, scope)
          : notRun(call, scope, scope.turn.stopReason!, started),
      );
      continue;
    }
    const release = await slots.acquire();
    if (!stillGoing(scope)) {
      release();
      results.push(notRun(call, scope, scope.turn.stopReason!, started));
      continue;
    }
    const task = execute(prepared, scope).then((result) => {
      results.push(result);
      release();
      running.delete(task);
    });
    running.add(task);
  }
  await settle();
  return results;
}

/** Whether calls may still start: waiting for a barrier or a slot may have outlasted the turn. */
function stillGoing(scope: CallScope): boolean {
  return scope.turn.stopReason === undefined;
}

function stub(call: ToolCall, name: string) {
  return { call, tool: { name, options: {} } };
}

function notRun(call: ToolCall, scope: CallScope, stop: Error, started: number): ToolResult {
  const kind = stop instanceof RunCancelled ? "cancelled" : "budget";
  const failure: CallFailure = { kind, message: `${String(call.name)} was not run: ${stop.message}` };
  return fail(stub(call, String(call.name)), scope, failure, 0, started);
}
