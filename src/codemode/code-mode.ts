import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import { z } from "zod";
import { sandboxHostEnvironment } from "../../environments/sandbox-host/index.js";
import type {
  Environment,
  ExecutionOutcome,
  Sandbox,
  SandboxLimits,
} from "../../sandbox/contract/environment.js";
import { TAMPERED_ERROR_NAME } from "../../sandbox/guest/prelude.js";
import { Dispatcher } from "../dispatch/dispatcher.js";
import { turnOf } from "../dispatch/turn.js";
import { messageOf, ToolError, UserError } from "../errors.js";
import { tool } from "../tools/tool.js";
import { Toolset } from "../tools/toolset.js";
import type { AnyTool, RunContext, Session, Tool } from "../tools/types.js";
import { startCodeRun } from "../tracing/tracing.js";
import { RunBridge } from "./bridge.js";
import { toolDeclarations, toolIdentifiers } from "./declarations.js";
import { codeModeInstructions, type InstructionFacts, toolDescription } from "./instructions.js";
import { type CodeModeLimits, resolveLimits } from "./limits.js";
import { type CodeRunResult, renderCodeRunResult } from "./result.js";
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS, SessionPool } from "./sessions.js";
import { type PreparedCode, prepareCode } from "./transpile.js";

/** The note a run gets when its session's sandbox had died (timeout, limit) and was started afresh. */
export const SESSION_REPLACED =
  "This session's sandbox was started afresh (the previous one was idle too long, was evicted, was ended by a time, CPU or memory limit or a cancellation, or failed): variables from earlier runs are gone.";

/**
 * The note a run gets when an earlier run of its session changed a built-in that run_code relies on
 * (for example added `Object.prototype.then`): the session was started afresh and the code ran there.
 */
export const SESSION_TAMPERED =
  "This session's sandbox was started afresh, and this code ran in the new one, because an earlier run changed a built-in that run_code relies on: variables from earlier runs are gone. Leave built-in prototypes (Object.prototype, Array.prototype, Promise.prototype, Error) as they are.";

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

/** The session a run belongs to in `state: "session"` when the caller names none. */
export const DEFAULT_SESSION_ID = "default";

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
}

/** Options of one {@link CodeMode.run}. */
export interface CodeRunOptions {
  /** The session whose sandbox to use (with `state: "session"`; default {@link DEFAULT_SESSION_ID}), and whose state tools see. */
  session?: string | Session;
  /** Start the session's sandbox afresh first. */
  restart?: boolean;
  /** Cancels the run. */
  signal?: AbortSignal;
  /** The context of the run_code call, when the run was dispatched: proxied calls become its children. */
  parent?: RunContext;
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
  /** Runs code without a model. */
  run(code: string, options?: CodeRunOptions): Promise<CodeRunResult>;
  /** Disposes every sandbox and the environment. */
  close(): Promise<void>;
}

/**
 * Code mode: the model gets one `run_code` tool; its TypeScript runs in a sandbox, and `tools.<name>(args)`
 * inside it calls back into the host through the dispatcher, so every proxied call keeps validation,
 * approval, policies, retries, timeouts and events.
 */
export function codeMode(options: CodeModeOptions): CodeMode {
  const toolset =
    options.tools instanceof Toolset ? options.tools : new Toolset(checkToolList(options.tools));
  const environment = options.environment ?? sandboxHostEnvironment();
  if (typeof environment.open !== "function") {
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
  const dispatcher = options.dispatcher ?? new Dispatcher(toolset);
  const identifiers = toolIdentifiers(toolset.names());
  const declarations = toolDeclarations(
    Object.entries(identifiers).map(([identifier, real]) => {
      const t = toolset.get(real)!;
      return {
        name: identifier,
        description: t.description,
        // Code may leave optional fields out, so a strict tool is declared from its loose schema.
        parameters: t.looseParameters ?? t.parameters,
        outputSchema: t.outputSchema,
        readOnly: t.options.readOnly,
      };
    }),
  );
  // Calls of these may wait minutes for a person: the sandbox does not hold a thread waiting inside them.
  const waitingTools = [...new Set(Object.values(identifiers))].filter((real) => {
    const options = toolset.get(real)?.options;
    return (
      options !== undefined && (options.waitsForHuman === true || (options.needsApproval ?? false) !== false)
    );
  });
  const sandboxLimits: SandboxLimits = {
    timeoutMs: limits.timeoutMs,
    cpuTimeMs: limits.cpuTimeMs,
    memoryMb: limits.memoryMb,
    maxLogChars: limits.maxLogChars,
    maxResultChars: limits.maxResultChars,
    maxToolCalls: limits.maxToolCalls,
  };
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
  };
  let closed = false;

  async function run(code: string, runOptions: CodeRunOptions = {}): Promise<CodeRunResult> {
    const started = performance.now();
    if (closed) return failed("Error", "This code mode has been closed.", started);
    if (typeof code !== "string") return failed("TypeError", "code must be a string of TypeScript.", started);
    const prepared = await prepareCode(code);
    if ("error" in prepared) {
      return {
        status: "error",
        value: undefined,
        logs: [],
        calls: [],
        error: prepared.error,
        durationMs: elapsed(started),
      };
    }
    const execute = (sandbox: Sandbox) => executeIn(sandbox, code, prepared, runOptions, started);
    if (state === "session") {
      const session = runOptions.session;
      const sessionId = (typeof session === "string" ? session : session?.id) ?? DEFAULT_SESSION_ID;
      try {
        return await sessions.use(
          sessionId,
          runOptions.restart === true,
          async (sandbox, replaced, reopen) => {
            let result = await execute(sandbox);
            // Otherwise the model would meet ReferenceErrors for variables it set in an earlier run.
            let note = replaced ? SESSION_REPLACED : undefined;
            if (result.error?.name === TAMPERED_ERROR_NAME) {
              // The refused run did nothing: it runs again in a clean sandbox, and the model learns why.
              note = `${SESSION_TAMPERED} ${result.error.message}`;
              result = await execute(await reopen());
            }
            if (note) result.logs.unshift({ level: "warn", text: note });
            return result;
          },
        );
      } catch (error) {
        return failed("Error", `The sandbox could not be started: ${messageOf(error)}`, started);
      }
    }
    let sandbox: Sandbox;
    try {
      sandbox = await environment.open(sandboxLimits);
    } catch (error) {
      return failed("Error", `The sandbox could not be started: ${messageOf(error)}`, started);
    }
    try {
      return await execute(sandbox);
    } finally {
      await sandbox.dispose();
    }
  }

  async function executeIn(
    sandbox: Sandbox,
    code: string,
    prepared: PreparedCode,
    runOptions: CodeRunOptions,
    started: number,
  ): Promise<CodeRunResult> {
    const ended = new AbortController();
    // Every tool call in flight listens for the end of the run.
    setMaxListeners(0, ended.signal);
    // The caller's signal and the run_code call's own both end the run.
    const outer = [runOptions.signal, runOptions.parent?.signal].filter((signal) => signal !== undefined);
    const onOuterAbort = (event: Event) => ended.abort((event.target as AbortSignal).reason);
    for (const signal of outer) signal.addEventListener("abort", onOuterAbort, { once: true });
    const { parent } = runOptions;
    const callIdPrefix = parent
      ? `${parent.callId}${parent.attempt > 1 ? `.attempt${parent.attempt}` : ""}`
      : `code-${randomUUID().slice(0, 8)}`;
    const span = startCodeRun({
      dispatcher,
      turn: parent ? turnOf(parent) : undefined,
      parent,
      signal: ended.signal,
      code,
    });
    // One turn for the whole run (the run_code call's, or one of its own): each call is a nested dispatch.
    const dispatchRun = dispatcher.openRun({
      ...(parent ? { parent } : {}),
      ...(runOptions.session === undefined ? {} : { session: runOptions.session }),
      signal: ended.signal,
      callId: callIdPrefix,
      toolName: name,
    });
    const bridge = new RunBridge({
      dispatcher,
      limits,
      context: dispatchRun.context,
      signal: ended.signal,
      callIdPrefix,
    });
    let outcome: ExecutionOutcome;
    try {
      outcome = outer.some((signal) => signal.aborted)
        ? { status: "cancelled" }
        : await sandbox.execute(
            {
              code: prepared.js,
              toolNames: identifiers,
              limits: sandboxLimits,
              ...(state === "fresh" ? { final: true } : {}),
              ...(waitingTools.length > 0 ? { waitingTools } : {}),
            },
            bridge,
            ended.signal,
          );
    } catch (error) {
      outcome = {
        status: "error",
        error: { name: "Error", message: `The sandbox failed: ${messageOf(error)}` },
      };
    } finally {
      for (const signal of outer) signal.removeEventListener("abort", onOuterAbort);
      // The run is over: pending and later tool calls are refused, in-flight ones aborted. Closed before
      // the run's signal aborts, so a run that ended on its own is not recorded as cancelled.
      dispatchRun.close();
      ended.abort(new Error("The run has ended."));
    }
    // Calls aborted just now still report, so `calls` says what happened to every one of them.
    await bridge.settled();
    const result = toResult(outcome, prepared, bridge, started);
    span?.end(result);
    return result;
  }

  const runCode = tool({
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
    render: (result) => renderCodeRunResult(result as CodeRunResult, limits.maxOutputChars),
    run: async (args, ctx) => {
      const result = await run(args.code, {
        ...(ctx.session ? { session: ctx.session } : {}),
        ...(args.restart === undefined ? {} : { restart: args.restart }),
        parent: ctx,
      });
      // A run that did not succeed is a failed call (a provider's is_error), with the same report.
      if (result.status !== "ok") {
        throw new CodeRunFailed(renderCodeRunResult(result, limits.maxOutputChars), result);
      }
      return result;
    },
  });

  return {
    tool: runCode,
    declarations,
    instructions: codeModeInstructions(facts),
    limits,
    run,
    async close() {
      if (closed) return;
      closed = true;
      await sessions.close();
      await environment.close();
    },
  };
}

function toResult(
  outcome: ExecutionOutcome,
  prepared: PreparedCode,
  bridge: RunBridge,
  started: number,
): CodeRunResult {
  const result: CodeRunResult = {
    status: outcome.status,
    value: undefined,
    logs: bridge.logs,
    calls: bridge.calls,
    durationMs: elapsed(started),
  };
  if (outcome.valueJson !== undefined) {
    try {
      result.value = JSON.parse(outcome.valueJson);
    } catch {
      result.status = "error";
      result.error = { name: "Error", message: "The sandbox returned a result that is not valid JSON." };
    }
  }
  if (outcome.error) {
    const { name, message, tool: toolName, kind, line, column } = outcome.error;
    const position =
      line === undefined || column === undefined ? undefined : prepared.mapPosition(line, column);
    result.error = {
      name,
      message,
      ...(position ?? {}),
      ...(toolName === undefined ? {} : { tool: toolName }),
      ...(kind === undefined ? {} : { kind }),
    };
  }
  return result;
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

function failed(name: string, message: string, started: number): CodeRunResult {
  return {
    status: "error",
    value: undefined,
    logs: [],
    calls: [],
    error: { name, message },
    durationMs: elapsed(started),
  };
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}

function checkToolList(tools: unknown): AnyTool[] {
  if (!Array.isArray(tools)) {
    throw new UserError("codeMode: tools must be a Toolset or an array of tools made with tool().");
  }
  return tools as AnyTool[];
}
