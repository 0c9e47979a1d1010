import { z } from "zod";
import { ToolError, UserError } from "../../common/errors.js";
import type { Environment } from "../../sandbox/contract/index.js";
import { Dispatcher } from "../dispatch/dispatcher.js";
import { failureFrom, failureOutput } from "../dispatch/failures.js";
import { type PausedWork, ToolPaused } from "../dispatch/paused-work.js";
import type { ToolResult } from "../dispatch/types.js";
import { tool } from "../tools/tool.js";
import { Toolset } from "../tools/toolset.js";
import type { AnyTool, RunContext, Tool } from "../tools/types.js";
import { CHECKED_TOOLS_INTERFACE, toolDeclarations } from "./declarations.js";
import { declaredToolsOf } from "./declared-tools.js";
import { toolIndexText } from "./discovery/index-text.js";
import { estimateTokens } from "./discovery/token-estimate.js";
import { createToolIndex } from "./discovery/tool-index.js";
import { codeModeInstructions, type InstructionFacts, toolDescription } from "./instructions.js";
import { type CodeModeLimits, resolveLimits, sandboxLimitsOf } from "./limits.js";
import { observeResultsOf } from "./observed/results.js";
import type { ObservedTypes } from "./observed/store.js";
import { type ObservedType, renderObservedType } from "./observed/types.js";
import {
  type CheckpointKey,
  checkpointKeyBytes,
  DEFAULT_CHECKPOINT_TTL_MS,
  digestOf,
} from "./pause/checkpoint.js";
import type { CheckpointStore } from "./pause/checkpoint-store.js";
import {
  type CheckpointClaims,
  type CheckpointInfo,
  type CheckpointSummary,
  claimCheckpoint,
  confirmUse,
  inspectPausedRun,
  openPausedRun,
  type PauseSettings,
  PROCESS_CLAIMS,
  peopleFor,
  type ResumeDecisions,
} from "./pause/pause.js";
import { type CodeRunResult, renderCodeRunResult } from "./result.js";
import { type CodeRunOptions, failedRun, type RunSetup, runCode, SESSIONS_DO_NOT_PAUSE } from "./run.js";
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS, SessionPool } from "./sessions.js";
import {
  DEFAULT_TYPECHECK_LIMITS,
  DEFAULT_TYPECHECK_WORKERS,
  MAX_TYPECHECK_WORKERS,
  MIN_TYPECHECK_MEMORY_MB,
} from "./typecheck/limits.js";
import {
  resolveTypeScriptFromCordon,
  type TypeScriptResolver,
  typescriptPath,
} from "./typecheck/resolve-typescript.js";
import { TypeChecker } from "./typecheck/type-checker.js";
import { TYPECHECK_MODES, type TypeCheckLimits, type TypeCheckMode } from "./typecheck/types.js";

export {
  type CodeRunOptions,
  SESSION_REPLACED,
  SESSION_TAMPERED,
} from "./run.js";

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

/** Options of {@link codeMode}. */
export interface CodeModeOptions {
  /** The tools the code can call. */
  tools: Toolset | readonly AnyTool[];
  /**
   * Where the code runs. Default: `sandboxHostEnvironment()`, isolated-vm isolates in supervised
   * sandbox processes. `isolateEnvironment()` runs them in this process instead: faster, for trusted code.
   */
  environment?: Environment;
  /** The dispatcher proxied calls go through; default: a new Dispatcher over `tools`. */
  dispatcher?: Dispatcher;
  /** Limits of one run; unset ones take {@link DEFAULT_CODE_MODE_LIMITS}. */
  limits?: Partial<CodeModeLimits>;
  /** `"fresh"` (default): a new sandbox per run. `"session"`: one sandbox per session id, kept between runs. */
  state?: "fresh" | "session";
  /** Session sandboxes unused this long are disposed. Default 10 minutes. */
  sessionIdleMs?: number;
  /** Live session sandboxes at most; the least recently used idle one goes first. Default 16. */
  maxSessions?: number;
  /** The name of the tool the model sees. Default `run_code`. */
  name?: string;
  /**
   * Where the model reads the TypeScript declarations of `tools`: in the run_code tool's description
   * (`"tool"`, the default: the model sees them wherever the tool is offered, with or without the
   * instructions) or in {@link CodeMode.instructions} (`"instructions"`, for a system prompt that carries
   * them). Never both: they are the largest part of what the model reads about code mode.
   */
  declarationsIn?: "tool" | "instructions";
  /**
   * How the model learns the tools. `"inline"`: their TypeScript declarations are in what it reads
   * (see `declarationsIn`). `"search"`: it reads a compact index instead (names and one-line
   * descriptions, grouped by namespace), and inside its code `await tools.$search(query, { limit })`
   * returns the best matches with their declarations and `await tools.$describe(name)` one declaration;
   * these are not tool calls (no approval, no budget, not counted against `maxToolCalls`) and are listed
   * in the run's `discovery`. `"auto"` (the default): inline while the declarations cost at most
   * `inlineBudget` tokens, search above it.
   */
  discovery?: "auto" | "inline" | "search";
  /**
   * With `discovery: "auto"`: the most tokens of declarations inlined ({@link DEFAULT_INLINE_BUDGET}
   * by default), estimated at `DECLARATION_CHARS_PER_TOKEN` characters a token. With `"search"` (or
   * `"auto"` above it), the index the model reads is shortened to fit it too.
   */
  inlineBudget?: number;
  /**
   * How a call from code that needs a person (an approval that no handler or policy decides on the spot,
   * a question of a `waitsForHuman` tool such as `ask_human`) is met. `"wait"` (the default): the run waits
   * for the answer, up to the dispatcher's approvalTimeoutMs. `"pause"`: the run lets the calls in flight
   * finish, ends `paused` with a `checkpoint` and the `pending` calls, and {@link CodeMode.resume} goes on
   * with the person's decisions, in this process or another. Needs `checkpointKey`; not with sessions.
   */
  approval?: "wait" | "pause";
  /**
   * The secret checkpoints are sealed with (HMAC-SHA-256), at least 16 bytes: a checkpoint resumes only
   * where the same key is set. Needed to pause.
   */
  checkpointKey?: CheckpointKey;
  /** How long a checkpoint can be resumed, in ms. Default 24 hours. */
  checkpointTtlMs?: number;
  /**
   * Where large recorded values go instead of into the checkpoint (see `memoryCheckpointStore`,
   * `fileCheckpointStore`); the checkpoint keeps their digests. Resuming needs the same store. It is also
   * where a resume claims its checkpoint (`claim`, atomic), so that a checkpoint resumes once in every
   * process that shares the store. Without one, checkpoints are claimed in this process's memory: a
   * second resume is refused in this process only.
   */
  checkpointStore?: CheckpointStore;
  /**
   * Told of every checkpoint about to be resumed, after it was checked and claimed and before anything
   * runs. Return `false` (or throw) to refuse it (the claim is then given back): a veto of the host's
   * own. Exactly once needs no hook: the claim does it (see `checkpointStore`).
   */
  onCheckpointUsed?: (checkpoint: CheckpointInfo) => unknown;
  /**
   * Whether the code is type-checked (TypeScript, against the declarations of `tools` and the sandbox's
   * globals) before it runs. `"block"`: with a type error nothing runs; the run ends `error` with
   * `error.name` `"TypeCheckError"`, no calls, and `diagnostics`. `"report"`: the code runs anyway, and
   * the errors are in `diagnostics` and the report. `"off"` (the default): no check. Needs the
   * `typescript` package (version 5); the checker runs in a worker thread, warmed when the code mode is
   * created. A check over its time budget or memory cap (`typecheckLimits`) is cut off: the run is
   * refused in "block" mode (a `TypeCheckError` saying so, with no diagnostics), and runs unchecked,
   * with a note, in "report" mode. A resumed run is not checked again.
   */
  typecheck?: TypeCheckMode;
  /** The time budget and memory cap of one check; unset ones take {@link DEFAULT_TYPECHECK_LIMITS}. */
  typecheckLimits?: Partial<TypeCheckLimits>;
  /**
   * The most worker threads checking at once ({@link DEFAULT_TYPECHECK_WORKERS} by default, at most
   * `MAX_TYPECHECK_WORKERS`). The checks of one client (see {@link CodeRunOptions.client}) go one at a
   * time; different clients take turns, so one whose checks run to their budget holds one thread and
   * never makes another wait more than about one budget per client ahead of it. One thread starts with
   * the code mode, more only when clients check at once; each holds about 115 MB warm.
   */
  typecheckWorkers?: number;
  /**
   * Who a run_code call is for (see {@link CodeRunOptions.client}), from the call's context: an MCP
   * server names the connection here. Default: the call's session id.
   */
  clientOf?: (ctx: RunContext) => string | undefined;
  /**
   * Finds the `typescript` package's main module for the check (a file path). Default: resolved from
   * cordon's own location. For hosts that keep TypeScript elsewhere.
   */
  resolveTypeScript?: TypeScriptResolver;
  /**
   * Whether code mode learns the shape of the results of tools without an output schema (and without
   * `observeResults: false`): successful calls through the dispatcher, from code or direct, are merged
   * into the tool's observed type (a tool's first results all, then a sample), which declarations made
   * from then on (see {@link CodeMode.refreshDeclarations}) show as `Returns (observed): <type>`. A hint,
   * never a validation. Default true.
   */
  observeResults?: boolean;
  /**
   * Where the learnt result types are kept: give a store to share them between code modes or to keep
   * them between processes (`ObservedTypes.fromJSON(saved)`, then `toJSON()` to save). Default: a new one.
   */
  observedTypes?: ObservedTypes;
}

/** What {@link CodeMode.resume} is given besides the checkpoint. */
export interface ResumeOptions extends ResumeDecisions {
  /**
   * How a call that needs a person is met from here on: `"pause"` (the default) pauses the run again;
   * `"wait"` waits for the answer as a run that does not pause would (the dispatcher's approval handler
   * or stream reader decide; a pending call given no decision is then asked about too).
   */
  approval?: "wait" | "pause";
  /** Cancels the resumed run. */
  signal?: AbortSignal;
  /** The context of the run_code call that resumes it, when dispatched. */
  parent?: CodeRunOptions["parent"];
  /**
   * Resume the paused run again on purpose, as a fork: the checkpoint is neither checked for a claim nor
   * claimed, so it may have been resumed before and may be resumed after. Each fork runs its decided
   * calls live: their effects happen once per fork. Default false: a checkpoint resumes once.
   */
  fork?: boolean;
  /**
   * Where this resume claims its checkpoint, instead of the code mode's `checkpointStore` (or this
   * process's memory): for an adapter that keeps the checkpoints it resumes in a store of its own, as
   * `cordon/ai-sdk`'s pausing does. Needs `claim` and `release`.
   */
  claimIn?: CheckpointClaims;
}

/** The input of the run_code tool. */
export interface RunCodeArgs {
  code: string;
  restart?: boolean;
}

/** What {@link codeMode} returns. */
export interface CodeMode {
  /** The run_code tool: add it to what the model sees. */
  readonly tool: Tool<RunCodeArgs, CodeRunResult>;
  /** TypeScript declarations of `tools`, with descriptions as JSDoc. */
  readonly declarations: string;
  /**
   * Prompt text: how to write the code, the limits, the isolation, and (with `declarationsIn:
   * "instructions"`) the declarations.
   */
  readonly instructions: string;
  /** The resolved limits. */
  readonly limits: Readonly<CodeModeLimits>;
  /**
   * How the model learns the tools, as decided: `"inline"` (it reads {@link declarations}) or `"search"`
   * (it reads an index, and its code has `tools.$search` and `tools.$describe`).
   */
  readonly discovery: "inline" | "search";
  /** Runs code without a model. */
  run(code: string, options?: CodeRunOptions): Promise<CodeRunResult>;
  /**
   * Goes on with a paused run: its code runs again from the start in a fresh sandbox, every call its
   * checkpoint recorded gets its recorded outcome (the tool does not run again), the clock and
   * Math.random give what they gave, and then the calls that waited proceed with `decisions` (by pending
   * id: approved, or denied) and `answers` (for questions). A pending call with neither waits again, and
   * the run pauses again. A checkpoint resumes once: the resume claims it (see `checkpointStore`) after
   * every check and before anything runs, and a second resume is refused, problem `reused`, unless it
   * asks to `fork`. A resume that ends before any call went live (the sandbox did not start, the replay
   * diverged, it was cancelled or timed out while replaying) gives the claim back. Rejects with
   * `CheckpointRefused` (nothing ran) when the checkpoint was altered, made with another key, expired,
   * made for other tools or limits, resumed already, or refused by `onCheckpointUsed`, and with a
   * `UserError` when a decision names a call that does not wait.
   */
  resume(checkpoint: string, options?: ResumeOptions): Promise<CodeRunResult>;
  /**
   * {@link resume} for a run_code call that paused (its result failed with kind `paused`, carrying
   * `error.paused`): the resumed run as the result of that same call, as the model reads it. A run that
   * pauses again gives a `paused` failure again, with the new checkpoint. Rejects as `resume` does.
   */
  resumeCall(call: PausedToolCall, options?: ResumeOptions): Promise<ToolResult>;
  /**
   * What a checkpoint waits for (its id, times and pending calls), read from the sealed checkpoint after
   * the checks a resume makes: show this to the person, not a copy kept elsewhere. Throws
   * `CheckpointRefused` as `resume` rejects.
   */
  inspect(checkpoint: string): CheckpointSummary;
  /** The learnt result types (see `CodeModeOptions.observeResults`), for saving or sharing. */
  readonly observedTypes: ObservedTypes;
  /**
   * The observed result type of a tool (by its name, or its name in code), when it is observed and has
   * one: what `Returns (observed): ...` shows, rendered by `renderObservedType`.
   */
  observedTypeOf(toolName: string): ObservedType | undefined;
  /**
   * Makes the declarations again with the result types learnt so far, so that `declarations`,
   * `instructions` and the run_code tool's description show `Returns (observed): <type>` for the tools
   * that have one. They never change otherwise: what a model was given stays the same for as long as a
   * conversation wants its prompt cached. Call it between conversations (or when a changed prompt is
   * fine). Returns whether they changed.
   */
  refreshDeclarations(): boolean;
  /** Disposes every sandbox and the environment. */
  close(): Promise<void>;
}

/**
 * Code mode in the environment `options.environment`: what `codeMode()` is once the public surface
 * (`src/defaults.ts`) has filled in the default environment. cordon's own command and MCP server, which
 * always choose an environment, call it directly.
 */
export function createCodeMode(options: CodeModeOptions & { environment: Environment }): CodeMode {
  const toolset =
    options.tools instanceof Toolset ? options.tools : new Toolset(checkToolList(options.tools));
  const { environment } = options;
  if (typeof environment?.open !== "function") {
    throw new UserError("codeMode needs an environment, for example isolateEnvironment().");
  }
  const name = options.name ?? "run_code";
  const state = options.state ?? "fresh";
  if (state !== "fresh" && state !== "session") {
    throw new UserError(`codeMode: state must be "fresh" or "session", got ${JSON.stringify(state)}.`);
  }
  const declarationsIn = options.declarationsIn ?? "tool";
  if (declarationsIn !== "tool" && declarationsIn !== "instructions") {
    throw new UserError(
      `codeMode: declarationsIn must be "tool" or "instructions", got ${JSON.stringify(declarationsIn)}.`,
    );
  }
  const limits = resolveLimits(options.limits);
  const approval = options.approval ?? "wait";
  if (approval !== "wait" && approval !== "pause") {
    throw new UserError(`codeMode: approval must be "wait" or "pause", got ${JSON.stringify(approval)}.`);
  }
  if (approval === "pause" && state === "session") throw new UserError(`codeMode: ${SESSIONS_DO_NOT_PAUSE}`);
  if (approval === "pause" && options.checkpointKey === undefined) {
    throw new UserError(
      'codeMode: approval "pause" needs a checkpointKey: a secret of at least 16 bytes that seals checkpoints, the same wherever they are resumed.',
    );
  }
  const pause = pauseSettings(options, toolset, limits);
  const typecheck = options.typecheck ?? "off";
  if (!TYPECHECK_MODES.includes(typecheck)) {
    throw new UserError(
      `codeMode: typecheck must be "block", "report" or "off", got ${JSON.stringify(typecheck)}.`,
    );
  }
  const dispatcher = options.dispatcher ?? new Dispatcher(toolset);
  const { identifiers, declared: declaredTools } = declaredToolsOf(toolset);
  // Learnt result types: recorded from every successful call; shown only when declarations are made.
  const observed = observeResultsOf(options, toolset, dispatcher, identifiers);
  const declarations = toolDeclarations(observed.declare(declaredTools));
  const discovery = discoveryOf(options, declarations);
  // $search and $describe both declare a tool through the index (`declareTool`), with the tool's observed
  // result type as it is at that moment: they are answers in a run, not part of a cached prompt.
  const index =
    discovery.mode === "search"
      ? createToolIndex(
          toolset.names().map((real) => toolset.get(real)!),
          {
            observedReturns: (real) => {
              const type = observed.typeOf(real);
              return type && renderObservedType(type);
            },
          },
        )
      : undefined;
  // Started now, so the checker is warm by the first run.
  const checker =
    typecheck === "off"
      ? undefined
      : new TypeChecker({
          typescriptPath: typescriptPath(
            options.resolveTypeScript ?? resolveTypeScriptFromCordon,
            `codeMode: typecheck "${typecheck}"`,
          ),
          declarations:
            toolDeclarations(declaredTools, { forChecking: true }) +
            (index ? `\n${CHECKED_DISCOVERY_DECLARATIONS}` : ""),
          toolNames: identifiers,
          limits: typecheckLimits(options.typecheckLimits),
          workers: typecheckWorkers(options.typecheckWorkers),
        });
  // Calls of these may wait minutes for a person: the sandbox does not hold a thread waiting inside them.
  const waitingTools = [...new Set(Object.values(identifiers))].filter((real) => {
    const options = toolset.get(real)?.options;
    return (
      options !== undefined && (options.waitsForHuman === true || (options.needsApproval ?? false) !== false)
    );
  });
  const sandboxLimits = sandboxLimitsOf(limits);
  const sessionIdleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const sessions = new SessionPool(environment, sandboxLimits, {
    idleMs: sessionIdleMs,
    maxSessions: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
  });
  const facts: InstructionFacts = {
    toolName: name,
    declarations,
    limits,
    state,
    sessionIdleMs,
    isolation: environment.isolation,
    environmentName: environment.name,
    declarationsIn,
    humanTools: Object.entries(identifiers)
      .filter(([, real]) => toolset.get(real)?.options.waitsForHuman === true)
      .map(([identifier]) => identifier),
    typecheck,
    discovery: index
      ? {
          index: toolIndexText(index, { budget: discovery.budget, measure: estimateTokens }),
          tools: index.size,
        }
      : undefined,
  };
  const setup: RunSetup = {
    environment,
    dispatcher,
    limits,
    sandboxLimits,
    toolName: name,
    toolNames: identifiers,
    waitingTools,
    sessions: state === "session" ? sessions : undefined,
    approval,
    pause,
    typecheck:
      checker && typecheck !== "off" ? { mode: typecheck, checker, sessionNames: new WeakMap() } : undefined,
    index,
  };
  let closed = false;
  const run = async (code: string, runOptions?: CodeRunOptions): Promise<CodeRunResult> =>
    closed
      ? failedRun("Error", "This code mode has been closed.", performance.now())
      : runCode(setup, code, runOptions);

  const runCodeTool = tool({
    name,
    description: toolDescription(facts),
    input: runCodeInput(state),
    // The rendering below already fits the model's budget and keeps the JSON valid.
    maxOutputChars: limits.maxOutputChars + 1_000,
    // A run must not be repeated (its tool calls have effects), and its own limits are the ones the model
    // was told: neither the dispatcher's default retries nor its default timeout apply. The run keeps its
    // own clock, which stops while a call waits for a person (an approval, or a waitsForHuman tool).
    retries: 0,
    timeout: Number.POSITIVE_INFINITY,
    // Its result is a run's report, whatever the code returned: no type to learn.
    observeResults: false,
    render: (result) => renderCodeRunResult(result as CodeRunResult, limits.maxOutputChars),
    run: async (args, ctx) => {
      const client = options.clientOf?.(ctx);
      const result = await run(args.code, {
        ...(ctx.session ? { session: ctx.session } : {}),
        ...(client === undefined ? {} : { client }),
        ...(args.restart === undefined ? {} : { restart: args.restart }),
        parent: ctx,
      });
      // A paused run is a call that waits: its failure carries the checkpoint (see CodeMode.resumeCall).
      if (result.status === "paused") throw pausedError(result, limits.maxOutputChars);
      // A run that did not succeed is a failed call (a provider's is_error), with the same report.
      if (result.status !== "ok") {
        throw new CodeRunFailed(renderCodeRunResult(result, limits.maxOutputChars), result);
      }
      return result;
    },
  });

  let instructions = codeModeInstructions(facts);
  observed.start();
  return {
    tool: runCodeTool,
    get declarations() {
      return facts.declarations;
    },
    get instructions() {
      return instructions;
    },
    limits,
    discovery: discovery.mode,
    run,
    async resume(checkpoint, resumeOptions = {}) {
      if (closed) return failedRun("Error", "This code mode has been closed.", performance.now());
      if (!pause)
        throw new UserError("resume needs the code mode's checkpointKey: the key the run paused with.");
      if (state === "session") throw new UserError(`resume: ${SESSIONS_DO_NOT_PAUSE}`);
      const { signal, parent, approval: resumedApproval, fork = false, claimIn } = resumeOptions;
      if (typeof fork !== "boolean") {
        throw new UserError(`resume: fork must be true or false, got ${JSON.stringify(fork)}.`);
      }
      if (claimIn !== undefined && !isClaims(claimIn)) {
        throw new UserError("resume: claimIn must have claim(id, expires) and release(id).");
      }
      const { body, run: paused } = await openPausedRun(pause.settings, checkpoint, pause.binding);
      const people = peopleFor(paused, resumeOptions);
      // Last of the checks, first of the steps that change anything: of two resumes, one goes on.
      const release = fork ? undefined : await claimCheckpoint(claimIn ?? pause.settings.claims, body);
      let live = false;
      try {
        await confirmUse(pause.settings, body, fork);
        return await runCode(
          setup,
          paused.code,
          {
            ...(signal ? { signal } : {}),
            ...(parent ? { parent } : {}),
            ...(resumedApproval ? { approval: resumedApproval } : {}),
          },
          {
            run: paused,
            people,
            onLive: () => {
              live = true;
            },
          },
        );
      } finally {
        // Nothing went live: the checkpoint may resume again. A release that fails leaves it claimed,
        // which never causes a double effect.
        if (release && !live) await release().catch(() => {});
      }
    },
    inspect(checkpoint) {
      if (!pause)
        throw new UserError("inspect needs the code mode's checkpointKey: the key the run paused with.");
      return inspectPausedRun(pause.settings, checkpoint, pause.binding);
    },
    async resumeCall(call, resumeOptions = {}) {
      const started = performance.now();
      const result = await this.resume(call.paused.checkpoint, resumeOptions);
      return callResult(call, result, name, limits.maxOutputChars, started);
    },
    observedTypes: observed.store,
    observedTypeOf: observed.typeOf,
    refreshDeclarations() {
      const made = toolDeclarations(observed.declare(declaredTools));
      if (made === facts.declarations) return false;
      facts.declarations = made;
      instructions = codeModeInstructions(facts);
      (runCodeTool as { description: string }).description = toolDescription(facts);
      return true;
    },
    async close() {
      if (closed) return;
      closed = true;
      observed.stop();
      await checker?.close();
      await sessions.close();
      await environment.close();
    },
  };
}

/**
 * The run_code arguments: the code, and with sessions `restart` (without a session there is no sandbox
 * to start afresh, so the argument would mean nothing to the model).
 */
function runCodeInput(state: "fresh" | "session"): z.ZodType<RunCodeArgs> {
  const code = z.string().describe("TypeScript to run. Use await tools.<name>(args); return the result.");
  if (state === "fresh") return z.object({ code });
  return z.object({
    code,
    restart: z.boolean().optional().describe("Start this session's sandbox afresh before running."),
  });
}

/** A run_code call whose run paused: its id, and the failure's `paused` (see `CodeMode.resumeCall`). */
export interface PausedToolCall {
  callId: string;
  paused: PausedWork;
}

/** The error run_code throws for a run that paused: the report, and how to resume it. */
function pausedError(result: CodeRunResult, maxChars: number): ToolPaused {
  return new ToolPaused(renderCodeRunResult(result, maxChars), {
    checkpoint: result.checkpoint!,
    checkpointId: result.checkpointId!,
    pending: result.pending ?? [],
  });
}

/** A resumed run as the result of the run_code call it continues. */
function callResult(
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
    result.status === "paused"
      ? failureFrom(pausedError(result, maxChars), toolName)
      : failureFrom(new CodeRunFailed(output, result), toolName);
  return { ...base, ok: false, output: failureOutput(error), error };
}

/**
 * With a `checkpointKey`: how runs pause, and what their checkpoints are bound to (the tools' names and
 * schemas, the limits). A key alone lets this code mode resume what another one paused.
 */
function pauseSettings(
  options: CodeModeOptions,
  toolset: Toolset,
  limits: CodeModeLimits,
): RunSetup["pause"] {
  if (options.checkpointKey === undefined) return undefined;
  const ttlMs = options.checkpointTtlMs ?? DEFAULT_CHECKPOINT_TTL_MS;
  if (typeof ttlMs !== "number" || !(ttlMs > 0)) {
    throw new UserError(`codeMode: checkpointTtlMs must be a number of ms > 0, got ${String(ttlMs)}.`);
  }
  const store = options.checkpointStore;
  if (
    store !== undefined &&
    (typeof store?.put !== "function" || typeof store.get !== "function" || !isClaims(store))
  ) {
    throw new UserError(
      "codeMode: checkpointStore must have put(key, value), get(key), claim(id, expires) and release(id); claim must be atomic across the processes that share the store (see docs/pausing.md).",
    );
  }
  const onCheckpointUsed = options.onCheckpointUsed;
  if (onCheckpointUsed !== undefined && typeof onCheckpointUsed !== "function") {
    throw new UserError("codeMode: onCheckpointUsed must be a function.");
  }
  const settings: PauseSettings = {
    key: checkpointKeyBytes(options.checkpointKey),
    ttlMs,
    store,
    claims: store ?? PROCESS_CLAIMS,
    onCheckpointUsed,
  };
  const tools = toolset
    .names()
    .sort()
    .map((name) => {
      const t = toolset.get(name)!;
      return { name, parameters: t.parameters, output: t.outputSchema ?? null };
    });
  return { settings, binding: { tools: digestOf(tools), limits: digestOf(limits) } };
}

/**
 * The inline budget's default, in tokens: declarations up to this are inlined. Above it, the index, one
 * run that looks the needed tools up and the declarations it returns cost less than the declarations
 * repeated on every turn (bench/tokens.ts). It matches `cordon mcp`'s switch to search_tools at 24,000
 * characters of declarations.
 */
export const DEFAULT_INLINE_BUDGET = 2_000;

/** What `tools.$search` and `tools.$describe` are for the type check (merged into `interface Tools`). */
const CHECKED_DISCOVERY_DECLARATIONS = `interface ${CHECKED_TOOLS_INTERFACE} {
  $search(query: string, options?: { limit?: number }): Promise<{ name: string; description: string; declaration: string }[]>;
  $describe(name: string): Promise<string>;
}`;

/** How the model learns the tools (the `discovery` and `inlineBudget` options, checked), and the budget. */
function discoveryOf(
  options: CodeModeOptions,
  declarations: string,
): { mode: "inline" | "search"; budget: number } {
  const asked = options.discovery ?? "auto";
  if (asked !== "auto" && asked !== "inline" && asked !== "search") {
    throw new UserError(
      `codeMode: discovery must be "auto", "inline" or "search", got ${JSON.stringify(asked)}.`,
    );
  }
  const budget = options.inlineBudget ?? DEFAULT_INLINE_BUDGET;
  if (typeof budget !== "number" || !Number.isInteger(budget) || budget < 1) {
    throw new UserError(
      `codeMode: inlineBudget must be a whole number of tokens, at least 1, got ${String(budget)}.`,
    );
  }
  if (asked !== "auto") return { mode: asked, budget };
  return { mode: estimateTokens(declarations) > budget ? "search" : "inline", budget };
}

/** The limits of one check: the defaults, with the ones given checked and put in their place. */
function typecheckLimits(given: Partial<TypeCheckLimits> | undefined): TypeCheckLimits {
  const limits = { ...DEFAULT_TYPECHECK_LIMITS, ...given };
  if (typeof limits.timeMs !== "number" || !(limits.timeMs > 0) || !Number.isFinite(limits.timeMs)) {
    throw new UserError(
      `codeMode: typecheckLimits.timeMs must be a number of ms > 0, got ${String(limits.timeMs)}.`,
    );
  }
  if (!Number.isInteger(limits.memoryMb) || limits.memoryMb < MIN_TYPECHECK_MEMORY_MB) {
    throw new UserError(
      `codeMode: typecheckLimits.memoryMb must be a whole number of MB, at least ${MIN_TYPECHECK_MEMORY_MB} (TypeScript and its lib need about 100), got ${String(limits.memoryMb)}.`,
    );
  }
  return limits;
}

/** Whether `value` can claim checkpoints (see `CheckpointStore.claim`). */
function isClaims(value: unknown): value is CheckpointClaims {
  const claims = value as Partial<CheckpointClaims> | undefined;
  return typeof claims?.claim === "function" && typeof claims.release === "function";
}

/** How many threads type-check at once: the default, or the number given, checked. */
function typecheckWorkers(given: number | undefined): number {
  if (given === undefined) return DEFAULT_TYPECHECK_WORKERS;
  if (!Number.isInteger(given) || given < 1 || given > MAX_TYPECHECK_WORKERS) {
    throw new UserError(
      `codeMode: typecheckWorkers must be a whole number from 1 to ${MAX_TYPECHECK_WORKERS}, got ${String(given)}.`,
    );
  }
  return given;
}

function checkToolList(tools: unknown): AnyTool[] {
  if (!Array.isArray(tools)) {
    throw new UserError("codeMode: tools must be a Toolset or an array of tools made with tool().");
  }
  return tools as AnyTool[];
}
