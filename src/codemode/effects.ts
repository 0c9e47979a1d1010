/**
 * The effects of a run: its successful calls of tools that change something outside the run (`effect:
 * true`, or a `revert`), in the order they ended, with what a revert needs (the arguments and the
 * result as the code received it). Found in a run's journal when it keeps one, else from what its
 * bridge saw.
 */

import type { Toolset } from "../tools/toolset.js";
import type { ToolOptions } from "../tools/types.js";
import type { JournalState } from "./pause/journal.js";
import type { CallRecord, UnrevertedEffect } from "./result.js";

/** One successful call of a tool with effects. */
export interface Effect {
  /** Its place among the run's calls, from 0 (its idempotency key is `<runId>:<index>`). */
  index: number;
  /** The call's id. */
  id: string;
  tool: string;
  /** The arguments as the code sent them (JSON text). */
  args: string;
  /** The result as the code received it (JSON text). */
  result: string;
}

/** Whether a tool with these options has effects. */
export function hasEffects(options: ToolOptions | undefined): boolean {
  return options !== undefined && (options.effect === true || options.revert !== undefined);
}

/** The effects among a journal's calls, in the order they ended. */
export function effectsOfJournal(journal: JournalState, prefix: string, toolset: Toolset): Effect[] {
  const effects: Effect[] = [];
  for (const index of journal.order) {
    const entry = journal.entries[index];
    // A plan's effect gave its preview and did not run: there is nothing to revert.
    if (entry?.outcome?.ok !== true || entry.planned !== undefined) continue;
    if (!hasEffects(toolset.get(entry.tool)?.options)) continue;
    const id = entry.record?.callId ?? `${prefix}.${index + 1}`;
    effects.push({ index, id, tool: entry.tool, args: entry.args, result: entry.outcome.valueJson });
  }
  return effects;
}

/**
 * Calls of tools with effects that were still running when their run returned (`abandoned`): they may
 * have taken effect, and there is no result to revert them with.
 */
export function abandonedEffects(calls: readonly CallRecord[], toolset: Toolset): UnrevertedEffect[] {
  return calls
    .filter((call) => call.status === "abandoned" && hasEffects(toolset.get(call.tool)?.options))
    .map((call) => ({
      id: call.callId,
      tool: call.tool,
      why: "it was still running when the run ended: it may have taken effect, and there is no result to revert it with",
    }));
}
