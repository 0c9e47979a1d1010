/**
 * `cordon/ai-sdk`: cordon's tools (and code mode's run_code) as Vercel AI SDK tools. `generateText` and
 * `streamText` then run every call through cordon's dispatcher: validation, approval, policies,
 * retries, timeouts, rendering, truncation and events. A tool that needs approval uses the AI SDK's own
 * approval flow (`needsApproval`, `tool-approval-request` / `tool-approval-response`).
 */
import { jsonSchema, type ModelMessage, type Tool, type ToolExecutionOptions, type ToolSet } from "ai";
import { Dispatcher } from "../dispatch/dispatcher.js";
import type { DispatchEvent, DispatchOptions, ToolResult } from "../dispatch/types.js";
import { parseArguments } from "../tools/arguments.js";
import { Budget } from "../tools/budget.js";
import type { AnyTool, RunContext, Session } from "../tools/types.js";
import { BarrierLock } from "./barrier-lock.js";
import { argumentsOf, type ToolSource, toolsetOf } from "./run-tool-calls.js";

/** Options of {@link aiSdkTools}: what every dispatch the tools make shares. */
export interface AiSdkToolsOptions<Deps = unknown>
  extends Omit<DispatchOptions<Deps>, "signal" | "parent" | "runId"> {
  /**
   * Reads the events of every call, awaited before the next one, so it can answer approvals the AI SDK
   * flow cannot (calls that run_code's code makes while it runs). Without it those are decided by the
   * dispatcher's `approvalHandler`, else denied.
   */
  onStreamEvent?: (event: DispatchEvent) => void | Promise<void>;
}

/**
 * Thrown by a tool's `execute` when the call failed (invalid arguments, denied, timed out, the tool
 * failed, or a run_code run failed): the AI SDK turns it into a `tool-error` whose text is exactly what
 * cordon wrote for the model.
 */
export class ToolCallFailed extends Error {
  override name = "ToolCallFailed";
  /** The call's full result. */
  readonly result: ToolResult;

  constructor(result: ToolResult) {
    super(result.output);
    this.result = result;
  }
}

/**
 * The tools of `source` as an AI SDK `ToolSet`. Pass a Dispatcher to use its settings (approval
 * handler, policies, retries, tracing), or a Toolset or an array of tools for a default one.
 *
 * Each `execute` dispatches its call and resolves with the text the model reads (rendered and
 * truncated); a failed call throws {@link ToolCallFailed}. Tools with `parallel: false` run alone
 * even though the AI SDK starts a step's calls together. A tool with `needsApproval` gets the AI SDK's
 * `needsApproval`: the AI SDK asks, and `execute` lets the call through only when the history it is
 * given holds an approving `tool-approval-response` for that very call; otherwise cordon's own approval
 * applies (the dispatcher's `approvalHandler`, else denied).
 */
export function aiSdkTools<Deps = unknown>(
  source: Dispatcher<Deps> | ToolSource,
  options: AiSdkToolsOptions<Deps> = {},
): ToolSet {
  const dispatcher =
    source instanceof Dispatcher ? (source as Dispatcher<Deps>) : new Dispatcher<Deps>(toolsetOf(source));
  const { onStreamEvent, session, ...dispatchOptions } = options;
  const shared: DispatchOptions<Deps> = { ...dispatchOptions };
  // One Session object for the approval checks and the calls alike, so both see the same state.
  const sessionObject = typeof session === "string" ? { id: session, state: new Map() } : session;
  if (sessionObject) shared.session = sessionObject;
  const lock = new BarrierLock();
  const tools: ToolSet = {};
  for (const t of dispatcher.toolset.list()) {
    const gated = t.options.needsApproval !== undefined && t.options.needsApproval !== false;
    const aiTool: Tool<unknown, string> = {
      description: t.description,
      inputSchema: jsonSchema(t.parameters as Parameters<typeof jsonSchema>[0]),
      ...(t.options.strict === true ? { strict: true } : {}),
      ...(gated
        ? {
            needsApproval: (input: unknown, { toolCallId }: { toolCallId: string }) =>
              wouldAsk(t, input, approvalContext(t, toolCallId, shared, sessionObject)),
          }
        : {}),
      execute: async (input: unknown, call: ToolExecutionOptions) => {
        const release = await lock.enter(t.options.parallel === false);
        try {
          const approved = gated && approvedInHistory(call.messages, call.toolCallId);
          return await run(dispatcher, t, input, call, shared, approved, onStreamEvent);
        } finally {
          release();
        }
      },
    };
    tools[t.name] = aiTool;
  }
  return tools;
}

/** The events after which a call's approval can no longer be asked for. */
const PREFLIGHT_OVER = new Set<DispatchEvent["type"]>(["approval_required", "started", "failed"]);

async function run<Deps>(
  dispatcher: Dispatcher<Deps>,
  t: AnyTool,
  input: unknown,
  call: ToolExecutionOptions,
  shared: DispatchOptions<Deps>,
  approvedByAiSdk: boolean,
  onStreamEvent: ((event: DispatchEvent) => void | Promise<void>) | undefined,
): Promise<string> {
  const handle = dispatcher.dispatch([{ id: call.toolCallId, name: t.name, arguments: argumentsOf(input) }], {
    ...shared,
    ...(call.abortSignal ? { signal: call.abortSignal } : {}),
  });
  let readerError: { error: unknown } | undefined;
  if (approvedByAiSdk || onStreamEvent) {
    const own = (event: DispatchEvent) =>
      event.callId === call.toolCallId && event.parentCallId === undefined;
    try {
      for await (const event of handle) {
        if (approvedByAiSdk && own(event) && event.type === "approval_required") event.approve();
        else await onStreamEvent?.(event);
        // Without a reader of its own, read only until this call's preflight is over: approvals of
        // calls made from code then fall to the approval handler instead of waiting on this loop.
        if (!onStreamEvent && own(event) && PREFLIGHT_OVER.has(event.type)) break;
      }
    } catch (error) {
      readerError = { error };
    }
  }
  const outcome = await handle.outcome();
  if (readerError && readerError.error !== outcome.stopped) throw readerError.error;
  const [result] = outcome.results as [ToolResult];
  if (!result.ok) throw new ToolCallFailed(result);
  return result.output;
}

/**
 * Whether cordon would ask for approval of this call: the same predicate over the same validated
 * arguments. Arguments that do not validate need no approval (the dispatcher rejects them without
 * running anything), and a predicate that throws needs none here either (the dispatcher denies it).
 */
async function wouldAsk(t: AnyTool, input: unknown, ctx: RunContext): Promise<boolean> {
  const needs = t.options.needsApproval;
  if (typeof needs !== "function") return needs === true;
  const parsed = parseArguments(argumentsOf(input));
  if (!parsed.ok) return false;
  try {
    const checked = await t.validate(parsed.value);
    return checked.ok ? Boolean(await needs(checked.value, ctx)) : false;
  } catch {
    return false;
  }
}

/** The context an approval predicate sees before the call is dispatched (attempt 0, as in preflight). */
function approvalContext(
  t: AnyTool,
  toolCallId: string,
  shared: DispatchOptions,
  session: Session | undefined,
): RunContext {
  return {
    runId: toolCallId,
    callId: toolCallId,
    toolName: t.name,
    signal: new AbortController().signal,
    deps: shared.deps,
    session,
    budget: shared.budget ?? new Budget(),
    parentCallId: undefined,
    attempt: 0,
  };
}

/**
 * Whether the history holds an approving answer to the AI SDK's approval request for this call, and no
 * refusal. The AI SDK calls `execute` for a gated tool only after such an answer; checking it here
 * keeps a direct `execute()` call from skipping the approval.
 */
function approvedInHistory(messages: readonly ModelMessage[], toolCallId: string): boolean {
  const approvalIds = new Set<string>();
  for (const message of messages) {
    if (message.role !== "assistant" || typeof message.content === "string") continue;
    for (const part of message.content) {
      if (part.type === "tool-approval-request" && part.toolCallId === toolCallId)
        approvalIds.add(part.approvalId);
    }
  }
  let approved = false;
  for (const message of messages) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type !== "tool-approval-response" || !approvalIds.has(part.approvalId)) continue;
      if (part.approved !== true) return false;
      approved = true;
    }
  }
  return approved;
}
