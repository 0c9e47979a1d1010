import { z } from "zod";
import type { Environment } from "../../sandbox/contract/index.js";
import { Dispatcher } from "../dispatch/dispatcher.js";
import { ToolError, UserError } from "../errors.js";
import { tool } from "../tools/tool.js";
import { Toolset } from "../tools/toolset.js";
import type { AnyTool, Tool } from "../tools/types.js";
import { toolDeclarations, toolIdentifiers } from "./declarations.js";
import { codeModeInstructions, type InstructionFacts, toolDescription } from "./instructions.js";
import { type CodeModeLimits, resolveLimits, sandboxLimitsOf } from "./limits.js";
import { type CodeRunResult, renderCodeRunResult } from "./result.js";
import { type CodeRunOptions, failedRun, type RunSetup, runCode } from "./run.js";
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS, SessionPool } from "./sessions.js";

export {
  type CodeRunOptions,
  DEFAULT_SESSION_ID,
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
    tool: runCodeTool,
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

function checkToolList(tools: unknown): AnyTool[] {
  if (!Array.isArray(tools)) {
    throw new UserError("codeMode: tools must be a Toolset or an array of tools made with tool().");
  }
  return tools as AnyTool[];
}
