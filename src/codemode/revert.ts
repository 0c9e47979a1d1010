/**
 * Undo: a run's effects reverted, last first, each through the tool's `revert` as a dispatcher call of
 * its own (events, approval, the dispatcher's policies, traces, retries, timeout). Used when a run with
 * `onFailure: "revert"` fails, and by `cm.revert(result)`. See docs/effects.md.
 */

import { randomUUID } from "node:crypto";
import { messageOf, UserError } from "../../common/errors.js";
import { type CallRecordStatus, KIND_IN_CODE } from "../../common/failures.js";
import type { Dispatcher } from "../dispatch/dispatcher.js";
import type { DispatchRun } from "../dispatch/types.js";
import type { Toolset } from "../tools/toolset.js";
import type { AnyTool, RunContext, Session, ToolOptions } from "../tools/types.js";
import { idempotencyKeyOf } from "./durable/recorder.js";
import type { Effect } from "./effects.js";
import type { RevertedEffect, UnrevertedEffect } from "./result.js";

/** What is known of an effect's revert before the reverting starts (a recovery's journal, a person). */
export type KnownRevert =
  /** It ended so: not run again. */
  | { status: CallRecordStatus; why?: string }
  /** It was in flight when its process stopped, and may run again (idempotent, or a person said so). */
  | "rerun"
  /** It was in flight when its process stopped, and nobody decided what became of it. */
  | "unknown";

/** Where reverts are journaled (a durable run's writer): each start before it runs, each end after. */
export interface RevertJournal {
  /** The revert of `effect` is about to run: resolves once that is durable; rejects when it cannot be. */
  starting(effect: Effect, key: string): Promise<void>;
  ended(effect: Effect, status: CallRecordStatus, why: string | undefined): void;
}

/** What a reverting needs besides the effects. */
export interface RevertInit {
  dispatcher: Dispatcher;
  runId: string;
  /** The id the reverts' calls are children of: the run's call id prefix. */
  callId: string;
  /** The run_code call the run was, when it was dispatched: the reverts are its children too. */
  parent?: RunContext | undefined;
  session?: string | Session | undefined;
  /** Stops the reverting: the revert under way is aborted, and the ones after it are not made. */
  signal?: AbortSignal | undefined;
  toolName: string;
  journal?: RevertJournal | undefined;
  /** By effect index: what is known of its revert already. */
  known?: ReadonlyMap<number, KnownRevert> | undefined;
  /** `false` for the replay of a run that ended: only what `known` says is reported; nothing runs. */
  live?: boolean;
}

/** What a reverting did. */
export interface RevertReport {
  reverted: RevertedEffect[];
  notReverted: UnrevertedEffect[];
}

/** The suffix of the name and id a revert call has: `<tool>.revert`, `<call id>.revert`. */
const REVERT_SUFFIX = ".revert";

/** Reverts `effects` (given in the order they ended) last first, one at a time. Never rejects. */
export async function revertEffects(effects: readonly Effect[], init: RevertInit): Promise<RevertReport> {
  const report: RevertReport = { reverted: [], notReverted: [] };
  if (effects.length === 0) return report;
  const { dispatcher } = init;
  // Opened for the first revert that runs: a replay, or a run whose reverts are all known, opens none.
  let run: DispatchRun | undefined;
  const context = () => {
    run ??= dispatcher.openRun({
      ...(init.parent ? { parent: init.parent } : { runId: init.runId }),
      ...(init.session === undefined ? {} : { session: init.session }),
      ...(init.signal ? { signal: init.signal } : {}),
      callId: init.callId,
      toolName: init.toolName,
    });
    return run.context;
  };
  try {
    for (const effect of [...effects].reverse()) {
      const { id, tool: name } = effect;
      const tool = dispatcher.toolset.get(name);
      const known = init.known?.get(effect.index);
      if (tool?.options.revert === undefined) {
        const why = tool ? "its tool has no revert" : "its tool is not in the tool set any more";
        report.notReverted.push({ id, tool: name, why });
      } else if (known === "unknown") {
        report.notReverted.push({ id, tool: name, why: UNKNOWN_REVERT });
      } else if (known !== undefined && known !== "rerun") {
        note(report, effect, known.status, known.why);
      } else if (init.live === false) {
        report.notReverted.push({ id, tool: name, why: "its revert is not in the run's journal" });
      } else if (init.signal?.aborted) {
        report.notReverted.push({ id, tool: name, why: "the reverting was cancelled before its turn" });
      } else {
        const { status, why } = await revertOne(effect, tool, context(), init);
        note(report, effect, status, why);
      }
    }
  } finally {
    run?.close();
  }
  return report;
}

/** Why an effect whose revert's outcome is unknown is listed as not reverted. */
const UNKNOWN_REVERT =
  "its revert was running when its process stopped, so whether it took effect is unknown; its tool is not idempotent, so it was not run again: decide it with cm.recover's decisions";

function note(report: RevertReport, effect: Effect, status: CallRecordStatus, why: string | undefined): void {
  report.reverted.push({ id: effect.id, tool: effect.tool, status });
  if (status !== "ok") report.notReverted.push({ id: effect.id, tool: effect.tool, why: why ?? status });
}

/** One revert call, journaled around when the run is: how it ended. */
async function revertOne(
  effect: Effect,
  tool: AnyTool,
  context: RunContext,
  init: RevertInit,
): Promise<{ status: CallRecordStatus; why?: string }> {
  const key = `${idempotencyKeyOf(init.runId, effect.index)}${REVERT_SUFFIX}`;
  try {
    await init.journal?.starting(effect, key);
  } catch (error) {
    return { status: "cancelled", why: `its revert could not be journaled: ${messageOf(error)}` };
  }
  let ended: { status: CallRecordStatus; why?: string };
  try {
    const { result } = await init.dispatcher.runCall(
      { id: `${effect.id}${REVERT_SUFFIX}`, name: `${tool.name}${REVERT_SUFFIX}`, arguments: effect.args },
      { parent: context, tool: revertToolOf(tool, parseResult(effect.result)), idempotencyKey: key },
    );
    if (result.ok) ended = { status: "ok" };
    else {
      const status = KIND_IN_CODE[result.error?.kind ?? "error"] ?? "error";
      ended = { status, why: result.error?.message ?? result.output };
    }
  } catch (error) {
    ended = { status: "error", why: `its revert failed: ${messageOf(error)}` };
  }
  init.journal?.ended(effect, ended.status, ended.why);
  return ended;
}

/**
 * The tool a revert call runs: the tool's arguments and validation (so that approval predicates and
 * `approvalKeys` see what they saw for the call), its approval, timeout, retries and idempotence, and
 * `revert` as its function. Not the tool's own `policies`: they wrap its `run` (a cache would answer
 * the revert with the call's own result).
 */
function revertToolOf(tool: AnyTool, result: unknown): AnyTool {
  const revert = tool.options.revert!;
  const options: ToolOptions = {};
  for (const key of ["needsApproval", "approvalKeys", "timeout", "retries", "idempotent"] as const) {
    if (tool.options[key] !== undefined) Object.assign(options, { [key]: tool.options[key] });
  }
  return {
    name: `${tool.name}${REVERT_SUFFIX}`,
    description: `Reverts a call of ${tool.name}.`,
    parameters: tool.parameters,
    outputSchema: undefined,
    validate: (args) => tool.validate(args),
    run: (args, ctx) => revert(args, result, ctx),
    options,
  };
}

function parseResult(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}

/** The most runs whose effects a code mode keeps for `cm.revert`; the oldest is dropped first. */
const MAX_REVERTABLE_RUNS = 256;

/**
 * The most characters of arguments and results a code mode keeps for `cm.revert`, all runs together:
 * past it the oldest runs are dropped (the newest is always kept).
 */
const MAX_REVERTABLE_CHARS = 32 * 1024 * 1024;

/** A run's effects, as a code mode keeps them for `cm.revert`. */
interface Revertable {
  effects: Effect[];
  init: Omit<RevertInit, "dispatcher" | "known" | "journal" | "parent" | "signal"> & { toolset: Toolset };
  /** By effect index: how its last revert ended. */
  done: Map<number, { status: CallRecordStatus; why?: string }>;
  busy: boolean;
  /** Characters of arguments and results kept. */
  chars: number;
}

/** What `cm.revert(result)` gives: {@link RevertReport}, and the effects reverted before. */
export interface RevertOutcome extends RevertReport {
  /** Effects that an earlier revert undid already: not reverted again. */
  alreadyReverted: { id: string; tool: string }[];
}

/** The effects of a code mode's recent runs, kept in this process for `cm.revert(result)`. */
export class RevertableRuns {
  readonly #runs = new Map<string, Revertable>();
  #chars = 0;

  /** Keeps a run's effects; the token that `cm.revert` finds them by. */
  keep(effects: Effect[], init: Revertable["init"], report: RevertReport | undefined): string {
    const token = randomUUID();
    const done = new Map<number, { status: CallRecordStatus; why?: string }>();
    if (report) remember(done, effects, report);
    // What a revert needs is kept only for effects that have one; the others are only listed.
    const kept = effects.map((effect) =>
      revertable(init, effect) ? effect : { ...effect, args: "", result: "" },
    );
    const chars = kept.reduce((sum, effect) => sum + effect.args.length + effect.result.length, 0);
    this.#runs.set(token, { effects: kept, init, done, busy: false, chars });
    this.#chars += chars;
    while (
      this.#runs.size > 1 &&
      (this.#runs.size > MAX_REVERTABLE_RUNS || this.#chars > MAX_REVERTABLE_CHARS)
    ) {
      const [oldest, run] = this.#runs.entries().next().value!;
      this.#runs.delete(oldest);
      this.#chars -= run.chars;
    }
    return token;
  }

  /**
   * Reverts the effects of the run whose result has `token` that no revert undid yet (one that failed or
   * was denied is tried again). A second revert of reverted effects does nothing, and says so.
   */
  async revert(
    dispatcher: Dispatcher,
    token: unknown,
    options: { signal?: AbortSignal | undefined },
  ): Promise<RevertOutcome> {
    const run = typeof token === "string" ? this.#runs.get(token) : undefined;
    if (run === undefined) {
      throw new UserError(
        `revert: this result's effects are not kept by this code mode (a run without effects has no revertToken, and a code mode keeps the effects of its last ${MAX_REVERTABLE_RUNS} runs with effects, fewer when they hold more than ${MAX_REVERTABLE_CHARS / 1024 / 1024} MB of arguments and results, in the process that ran them). Pass the result cm.run gave, as it is.`,
      );
    }
    if (run.busy) throw new UserError("revert: a revert of this run's effects is under way already.");
    run.busy = true;
    try {
      const alreadyReverted: RevertOutcome["alreadyReverted"] = [];
      const left = run.effects.filter((effect) => {
        if (run.done.get(effect.index)?.status !== "ok") return true;
        alreadyReverted.push({ id: effect.id, tool: effect.tool });
        return false;
      });
      const { toolset: _toolset, ...init } = run.init;
      const report = await revertEffects(left, { ...init, dispatcher, signal: options.signal });
      remember(run.done, run.effects, report);
      return { ...report, alreadyReverted: alreadyReverted.reverse() };
    } finally {
      run.busy = false;
    }
  }
}

/** Whether `effect`'s tool has a revert (as the code mode's tools are when the run is kept). */
function revertable(init: Revertable["init"], effect: Effect): boolean {
  return init.toolset.get(effect.tool)?.options.revert !== undefined;
}

/** Records how each revert of `report` ended. */
function remember(
  done: Map<number, { status: CallRecordStatus; why?: string }>,
  effects: readonly Effect[],
  report: RevertReport,
): void {
  const byId = new Map(effects.map((effect) => [effect.id, effect.index]));
  const why = new Map(report.notReverted.map((effect) => [effect.id, effect.why]));
  for (const { id, status } of report.reverted) {
    const index = byId.get(id);
    if (index === undefined) continue;
    done.set(index, { status, ...(why.has(id) ? { why: why.get(id)! } : {}) });
  }
}
