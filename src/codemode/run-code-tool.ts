/**
 * The run_code tool the model sees, and a run as the result of a run_code call: `ok` for a run that
 * ended `ok`, a failure carrying the whole report otherwise, and for a paused run a `paused` failure
 * carrying its checkpoint.
 */

import { z } from "zod";
import { ToolError } from "../../common/errors.js";
import { failureFrom, failureOutput } from "../dispatch/failures.js";
import { type PausedWork, ToolPaused } from "../dispatch/paused-work.js";
import type { ToolResult } from "../dispatch/types.js";
import { tool } from "../tools/tool.js";
import type { RunContext, Tool } from "../tools/types.js";
import type { CodeLanguage } from "./instructions.js";
import { type CodeRunResult, renderCodeRunResult } from "./result.js";
import type { CodeRunOptions } from "./run.js";

/**
 * What the run_code tool throws when the code's run did not end `ok`: the call becomes a failed tool
 * result (`ok: false`, so a provider's `is_error` is set), and the model still reads the whole report
 * (status, error with its line, console output, the tool calls made). `result` is the run itself.
 */
export class CodeRunFailed extends ToolError {
  override name = "CodeRunFailed";
  readonly result: CodeRunResult;

  constructor(report: string, result: CodeRunResult) {
    super(report);
    this.result = result;
  }
}

/** The input of the run_code tool. */
export interface RunCodeArgs {
  code: string;
  restart?: boolean;
}

/** A run_code call whose run paused: its id, and the failure's `paused` (see `CodeMode.resumeCall`). */
export interface PausedToolCall {
  callId: string;
  paused: PausedWork;
}

/** What the run_code tool is made of. */
export interface RunCodeToolSettings {
  name: string;
  description: string;
  state: "fresh" | "session";
  /** What the model writes its code in (see `InstructionFacts.language`). */
  language: CodeLanguage;
  /** The characters of the report the model reads (`limits.maxOutputChars`). */
  maxOutputChars: number;
  /** Who a call is for, for the type check's turns (see `TypeCheckOptions.clientOf`). */
  clientOf: ((ctx: RunContext) => string | undefined) | undefined;
  run(code: string, options: CodeRunOptions): Promise<CodeRunResult>;
}

/** The run_code tool: runs the call's code and answers with the run, or fails with its report. */
export function runCodeTool(settings: RunCodeToolSettings): Tool<RunCodeArgs, CodeRunResult> {
  const { maxOutputChars } = settings;
  return tool({
    name: settings.name,
    description: settings.description,
    input: runCodeInput(settings.state, settings.language),
    // The rendering below already fits the model's budget and keeps the JSON valid.
    maxOutputChars: maxOutputChars + 1_000,
    // A run must not be repeated (its tool calls have effects), and its own limits are the ones the model
    // was told: neither the dispatcher's default retries nor its default timeout apply. The run keeps its
    // own clock, which stops while a call waits for a person (an approval, or a waitsForHuman tool).
    retries: 0,
    timeout: Number.POSITIVE_INFINITY,
    // Its result is a run's report, whatever the code returned: no type to learn.
    observeResults: false,
    render: (result) => renderCodeRunResult(result as CodeRunResult, maxOutputChars),
    run: async (args, ctx) => {
      const client = settings.clientOf?.(ctx);
      const result = await settings.run(args.code, {
        ...(ctx.session ? { session: ctx.session } : {}),
        ...(client === undefined ? {} : { client }),
        ...(args.restart === undefined ? {} : { restart: args.restart }),
        parent: ctx,
      });
      // A paused run (or a plan) is a call that waits: its failure carries the checkpoint (see
      // CodeMode.resumeCall).
      if (result.status === "paused" || result.status === "planned") {
        throw pausedError(result, maxOutputChars);
      }
      // A run that did not succeed is a failed call (a provider's is_error), with the same report.
      if (result.status !== "ok") {
        throw new CodeRunFailed(renderCodeRunResult(result, maxOutputChars), result);
      }
      return result;
    },
  });
}

/**
 * The run_code arguments: the code, and with sessions `restart` (without a session there is no sandbox
 * to start afresh, so the argument would mean nothing to the model).
 */
function runCodeInput(state: "fresh" | "session", language: CodeLanguage): z.ZodType<RunCodeArgs> {
  const code = z.string().describe(`${language} to run. Use await tools.<name>(args); return the result.`);
  if (state === "fresh") return z.object({ code });
  return z.object({
    code,
    restart: z.boolean().optional().describe("Start this session's sandbox afresh before running."),
  });
}

/** The error run_code throws for a run that paused: the report, and how to resume it. */
function pausedError(result: CodeRunResult, maxChars: number): ToolPaused {
  const effects = result.effects;
  const pending = result.pending ?? [];
  return new ToolPaused(renderCodeRunResult(result, maxChars), {
    checkpoint: result.checkpoint!,
    checkpointId: result.checkpointId!,
    // A plan's effects wait for a decision as approvals do: whoever approves the call sees them all.
    pending: effects
      ? [...effects.map((effect) => ({ ...effect, kind: "approval" as const })), ...pending]
      : pending,
    ...(effects ? { effects } : {}),
  });
}

/** A resumed run as the result of the run_code call it continues. */
export function callResult(
  call: PausedToolCall,
  result: CodeRunResult,
  toolName: string,
  maxChars: number,
  started: number,
): ToolResult {
  const base = {
    callId: call.callId,
    name: toolName,
    attempts: 1,
    truncated: false,
    durationMs: Math.round(performance.now() - started),
  };
  const output = renderCodeRunResult(result, maxChars);
  if (result.status === "ok") return { ...base, ok: true, output, value: result };
  const error =
    result.status === "paused" || result.status === "planned"
      ? failureFrom(pausedError(result, maxChars), toolName)
      : failureFrom(new CodeRunFailed(output, result), toolName);
  return { ...base, ok: false, output: failureOutput(error), error };
}
