/**
 * What every provider adapter shares: run the tool calls of one model turn through the dispatcher and
 * get exactly one result per call, in the order the model made them, also when the turn was cancelled
 * or its budget ran out (providers reject a history with an unanswered tool call).
 */

import type { BudgetExceeded, RunCancelled } from "../../common/errors.js";
import { UserError } from "../../common/errors.js";
import type { PausedToolCall } from "../codemode/code-mode.js";
import { Dispatcher } from "../dispatch/dispatcher.js";
import type { DispatchEvent, DispatchOptions, ToolCall, ToolResult } from "../dispatch/types.js";
import { Toolset } from "../tools/toolset.js";
import type { AnyTool } from "../tools/types.js";

/** Options of {@link runToolCalls}: a dispatch's options, plus a reader for its events. */
export interface RunToolCallsOptions<Deps = unknown> extends DispatchOptions<Deps> {
  /**
   * Reads every event of the turn as its consumer, awaited before the next one, so it can answer
   * approvals (`event.approve()` / `event.reject(reason)`). Without it nobody reads the events and the
   * dispatcher's `approvalHandler` decides gated calls (an `"ask"` then denies). If it throws, reading
   * stops, the turn still finishes, and the error is thrown once every call has its result.
   */
  onStreamEvent?: (event: DispatchEvent) => void | Promise<void>;
}

/** The answer to one model turn's tool calls. */
export interface AnsweredCalls {
  /** Exactly one result per call, in the order of the calls. */
  results: ToolResult[];
  /** Set when the turn was cancelled or its budget ran out; the calls it kept from running are answered too. */
  stopped?: RunCancelled | BudgetExceeded;
  /**
   * The calls whose work paused for a person (run_code of a code mode with `approval: "pause"`): plain
   * JSON to store with the conversation, and to show (`paused.pending`). Their results are not in the
   * provider messages of the turn: once the person has decided, `codeMode.resumeCall(call, { decisions })`
   * gives each its final result, for the same tool call id. Empty when nothing paused.
   */
  paused: PausedToolCall[];
}

/** The results of a turn that are final: every one but the calls that paused (see `AnsweredCalls.paused`). */
export function finalResults(results: readonly ToolResult[]): ToolResult[] {
  return results.filter((result) => result.error?.paused === undefined);
}

/**
 * Runs the tool calls of one model turn through `dispatcher` and answers every one of them: the results
 * come in the order of `calls`, and a call that a cancellation or the budget kept from running gets a
 * `cancelled` or `budget` result rather than none.
 */
export async function runToolCalls<Deps>(
  dispatcher: Dispatcher<Deps>,
  calls: readonly ToolCall[],
  options: RunToolCallsOptions<Deps> = {},
): Promise<AnsweredCalls> {
  if (typeof dispatcher?.dispatch !== "function") {
    throw new UserError("runToolCalls needs a Dispatcher: new Dispatcher(new Toolset([...tools])).");
  }
  const { onStreamEvent, ...dispatchOptions } = options;
  const handle = dispatcher.dispatch(calls, dispatchOptions);
  let readerError: { error: unknown } | undefined;
  if (onStreamEvent) {
    try {
      for await (const event of handle) await onStreamEvent(event);
    } catch (error) {
      readerError = { error };
    }
  }
  const outcome = await handle.outcome();
  // A stopped turn ends its event stream with the stop itself: that is reported as `stopped`, not thrown.
  if (readerError && readerError.error !== outcome.stopped) throw readerError.error;
  const results = inCallOrder(calls, outcome.results);
  const paused = results.flatMap((result) =>
    result.error?.paused ? [{ callId: result.callId, paused: result.error.paused }] : [],
  );
  const answered: AnsweredCalls = { results, paused };
  if (outcome.stopped) answered.stopped = outcome.stopped;
  return answered;
}

/** Pairs results with calls by id, in the order of the calls (a repeated id takes its results in turn). */
function inCallOrder(calls: readonly ToolCall[], results: readonly ToolResult[]): ToolResult[] {
  const byId = new Map<string, ToolResult[]>();
  for (const result of results) {
    const same = byId.get(result.callId);
    if (same) same.push(result);
    else byId.set(result.callId, [result]);
  }
  return calls.map((call) => {
    const result = byId.get(call.id)?.shift();
    // The dispatcher answers every call; a missing result is a bug in cordon, not in the caller's code.
    if (!result) throw new Error(`cordon: the dispatcher returned no result for tool call ${call.id}.`);
    return result;
  });
}

/** The tools a model may call, as any of the shapes the adapters accept. */
export type ToolSource = Toolset | Dispatcher | Iterable<AnyTool>;

/** The Toolset of a {@link ToolSource}. */
export function toolsetOf(source: ToolSource): Toolset {
  if (source instanceof Toolset) return source;
  if (source instanceof Dispatcher) return source.toolset;
  if (source && typeof (source as Iterable<AnyTool>)[Symbol.iterator] === "function") {
    return new Toolset(source as Iterable<AnyTool>);
  }
  throw new UserError("Expected a Toolset, a Dispatcher or an array of tools made with tool().");
}

/**
 * Tool-call arguments a provider already parsed from JSON (Anthropic's `input`, the AI SDK's `input`):
 * an object goes on as it is; anything else goes on as JSON text, for the dispatcher to reject clearly.
 */
export function argumentsOf(input: unknown): ToolCall["arguments"] {
  if (input === undefined) return undefined;
  if (typeof input === "object" && input !== null && !Array.isArray(input))
    return input as Record<string, unknown>;
  return JSON.stringify(input);
}
