/**
 * `cordon/ai-sdk`: cordon's tools (and code mode's run_code) as Vercel AI SDK tools. `generateText` and
 * `streamText` then run every call through cordon's dispatcher: validation, approval, policies,
 * retries, timeouts, rendering, truncation and events. A tool that needs approval uses the AI SDK's own
 * approval flow (`needsApproval`, `tool-approval-request` / `tool-approval-response`).
 */
import { createHash } from "node:crypto";
import { jsonSchema, type ModelMessage, type Tool, type ToolSet } from "ai";
import { UserError } from "../../common/errors.js";
import type { CodeMode } from "../codemode/code-mode.js";
import { CheckpointRefused } from "../codemode/pause/checkpoint.js";
import { type CheckpointStore, memoryCheckpointStore } from "../codemode/pause/checkpoint-store.js";
import type { CheckpointSummary } from "../codemode/pause/pause.js";
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
  /**
   * Runs of a code mode made with `approval: "pause"`, answered through the AI SDK's approval flow: when
   * the code of a run_code call reaches a call that needs a person, the run pauses and the run_code call
   * itself gets a `tool-approval-request` (so `useChat` UIs show Allow and Deny); `pending` of
   * {@link pausedRunCode} says what it waits for. Approving it resumes the run (in whichever process
   * gets the approval) with every pending approval approved; later calls that need a person are met as
   * in a run that does not pause. Denying it denies the whole call, as the AI SDK does.
   */
  pausing?: AiSdkPausing;
}

/** Where an AI SDK app's paused runs wait (see {@link AiSdkToolsOptions.pausing}). */
export interface AiSdkPausing {
  /** The code mode whose run_code tool is among the tools; made with `approval: "pause"` and a key. */
  codeMode: CodeMode;
  /**
   * Where a paused run's checkpoint waits for the approval, by tool call id, and where it is claimed when
   * the approval comes (`claim`, atomic), so that it resumes once however many requests bring the
   * approval. Default: this process's memory. To resume in another process (a later request served
   * elsewhere), a store they share, such as `fileCheckpointStore(dir)` or one over your database.
   */
  store?: CheckpointStore;
}

/**
 * What cordon reads of the options the AI SDK passes to a tool's `execute`: their part that AI SDK 6's
 * `ToolExecutionOptions` and 7's generic one share.
 */
interface ToolCall {
  toolCallId: string;
  messages: ModelMessage[];
  abortSignal?: AbortSignal;
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

  /** The text the model reads, alone: AI SDK 7 writes a tool's error as `String(error)`, 6 as its message. */
  override toString(): string {
    return this.message;
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
  const pausing = options.pausing;
  const pauses = pausing ? pausingRunCode(dispatcher, pausing, shared, onStreamEvent) : undefined;
  for (const t of dispatcher.toolset.list()) {
    if (pauses && t.name === pausing?.codeMode.tool.name) {
      tools[t.name] = {
        description: t.description,
        inputSchema: jsonSchema(t.parameters as Parameters<typeof jsonSchema>[0]),
        needsApproval: (
          input: unknown,
          { toolCallId, messages }: { toolCallId: string; messages: ModelMessage[] },
        ) => pauses.runUntilPaused(t, input, toolCallId, messages),
        execute: (_input: unknown, call: ToolCall) => pauses.finish(t, call),
      } satisfies Tool<unknown, string>;
      continue;
    }
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
      execute: async (input: unknown, call: ToolCall) => {
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
  call: ToolCall,
  shared: DispatchOptions<Deps>,
  approvedByAiSdk: boolean,
  onStreamEvent: ((event: DispatchEvent) => void | Promise<void>) | undefined,
): Promise<string> {
  const result = await dispatchOne(dispatcher, t, input, call, shared, approvedByAiSdk, onStreamEvent);
  if (!result.ok) throw new ToolCallFailed(result);
  return result.output;
}

/** Dispatches one call of the AI SDK and gives its result. */
async function dispatchOne<Deps>(
  dispatcher: Dispatcher<Deps>,
  t: AnyTool,
  input: unknown,
  call: Pick<ToolCall, "toolCallId" | "abortSignal">,
  shared: DispatchOptions<Deps>,
  approvedByAiSdk: boolean,
  onStreamEvent: ((event: DispatchEvent) => void | Promise<void>) | undefined,
): Promise<ToolResult> {
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
  return result;
}

/** How long the result of a run_code call that did not pause waits for the AI SDK's `execute`. */
const FINISHED_KEPT_MS = 10 * 60_000;

/**
 * run_code through the AI SDK's approval flow. The AI SDK asks `needsApproval` before `execute`: there
 * the code runs until it ends or pauses. A run that ended is kept for `execute`, which follows at once
 * in the same process; a paused run's checkpoint goes to the store, and the AI SDK asks for approval of
 * the call. Once approved, `execute` (maybe in another process) resumes it.
 */
function pausingRunCode<Deps>(
  dispatcher: Dispatcher<Deps>,
  pausing: AiSdkPausing,
  shared: DispatchOptions<Deps>,
  onStreamEvent: ((event: DispatchEvent) => void | Promise<void>) | undefined,
) {
  const { codeMode } = pausing;
  const store = storeOf(pausing);
  const finished = new Map<string, ToolResult>();
  return {
    async runUntilPaused(
      t: AnyTool,
      input: unknown,
      toolCallId: string,
      messages: readonly ModelMessage[],
    ): Promise<boolean> {
      // The AI SDK asks again when the approval comes back: the run paused already, and must not run again.
      if (approvalRequested(messages, toolCallId)) return true;
      const result = await dispatchOne(dispatcher, t, input, { toolCallId }, shared, false, onStreamEvent);
      const paused = result.error?.kind === "paused" ? result.error.paused : undefined;
      if (paused) {
        await store.put(pauseKey(toolCallId), paused.checkpoint);
        return true;
      }
      finished.set(toolCallId, result);
      setTimeout(() => finished.delete(toolCallId), FINISHED_KEPT_MS).unref();
      return false;
    },
    async finish(t: AnyTool, call: ToolCall): Promise<string> {
      let result = finished.get(call.toolCallId);
      finished.delete(call.toolCallId);
      if (result === undefined) {
        const checkpoint = await store.get(pauseKey(call.toolCallId));
        if (checkpoint === undefined || !approvedInHistory(call.messages, call.toolCallId)) {
          throw new Error(
            `${t.name} call ${call.toolCallId} has no paused run approved in the history: its checkpoint is not in the pausing store, or the AI SDK did not approve it.`,
          );
        }
        // What is approved is what the sealed checkpoint holds (inspect checks it), whatever the store says.
        // A plan's effects (code mode's `plan: true`) are approved with it: the whole plan at once.
        const { id, pending, effects = [] } = codeMode.inspect(checkpoint);
        const decisions = Object.fromEntries([
          ...effects.map((effect) => [effect.id, true]),
          ...pending.filter((p) => p.kind === "approval").map((p) => [p.id, true]),
        ]);
        try {
          // Claimed in the pausing store, atomically, by every process that reaches it: of two requests
          // that bring the same approval (a double submit, a retry), one resumes the run.
          result = await codeMode.resumeCall(
            { callId: call.toolCallId, paused: { checkpoint, checkpointId: id, pending } },
            {
              decisions,
              approval: "wait",
              claimIn: store,
              ...(call.abortSignal ? { signal: call.abortSignal } : {}),
            },
          );
        } catch (error) {
          if (error instanceof CheckpointRefused && error.problem === "reused") {
            throw new Error(
              `${t.name} call ${call.toolCallId} was resumed already: a paused run resumes once (its approved calls would run again).`,
            );
          }
          throw error;
        }
      }
      if (!result.ok) throw new ToolCallFailed(result);
      return result.output;
    },
  };
}

/**
 * The paused run of a run_code call waiting for the AI SDK's approval: the calls it waits for
 * (`pending`: tool, arguments, kind), read from its sealed checkpoint, to show beside the approval
 * request. Undefined when the pausing store has none for that tool call id; throws `CheckpointRefused`
 * when the stored checkpoint does not pass the checks a resume makes.
 */
export async function pausedRunCode(
  pausing: AiSdkPausing,
  toolCallId: string,
): Promise<CheckpointSummary | undefined> {
  const checkpoint = await storeOf(pausing).get(pauseKey(toolCallId));
  return checkpoint === undefined ? undefined : pausing.codeMode.inspect(checkpoint);
}

/** The memory stores of pausing options given without a store of their own. */
const defaultStores = new WeakMap<AiSdkPausing, CheckpointStore>();

function storeOf(pausing: AiSdkPausing): CheckpointStore {
  const given = pausing.store;
  if (given !== undefined) {
    const methods = ["put", "get", "claim", "release"] as const;
    if (methods.some((name) => typeof given?.[name] !== "function")) {
      throw new UserError(
        "aiSdkTools: pausing.store must have put(key, value), get(key), claim(id, expires) and release(id); claim must be atomic across the processes that share the store (see docs/pausing.md).",
      );
    }
    return given;
  }
  let store = defaultStores.get(pausing);
  if (!store) {
    store = memoryCheckpointStore();
    defaultStores.set(pausing, store);
  }
  return store;
}

/** The store key of a tool call's paused run: a digest, so any id is a valid key for any store. */
function pauseKey(toolCallId: string): string {
  return createHash("sha256").update(`cordon ai-sdk paused run_code ${toolCallId}`).digest("base64url");
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
    idempotencyKey: toolCallId,
  };
}

/** Whether the history holds an approval request for this call. */
function approvalRequested(messages: readonly ModelMessage[], toolCallId: string): boolean {
  return messages.some(
    (message) =>
      message.role === "assistant" &&
      typeof message.content !== "string" &&
      message.content.some((part) => part.type === "tool-approval-request" && part.toolCallId === toolCallId),
  );
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
