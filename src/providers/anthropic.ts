/**
 * `cordon/anthropic`: cordon in an Anthropic Messages agent loop, with the official `@anthropic-ai/sdk`
 * types. `tool_use` blocks become cordon tool calls; their results go back as `tool_result` blocks,
 * one for every call, with `is_error` set for every call that failed.
 */
import type {
  ContentBlock,
  ContentBlockParam,
  Tool,
  ToolResultBlockParam,
} from "@anthropic-ai/sdk/resources/messages/messages";
import { UserError } from "../../common/errors.js";
import type { Dispatcher } from "../dispatch/dispatcher.js";
import type { ToolCall, ToolResult } from "../dispatch/types.js";
import {
  type AnsweredCalls,
  argumentsOf,
  finalResults,
  type RunToolCallsOptions,
  runToolCalls,
  type ToolSource,
  toolsetOf,
} from "./run-tool-calls.js";

export { finalResults } from "./run-tool-calls.js";

/** An Anthropic message (the model's response, or a message param you stored), or its content blocks. */
export type MessageWithToolUse =
  | { content: string | readonly (ContentBlock | ContentBlockParam)[] }
  | readonly (ContentBlock | ContentBlockParam)[];

/** The user message that answers a turn's tool calls: `tool_result` blocks only. */
export interface ToolResultsMessage {
  role: "user";
  content: ToolResultBlockParam[];
}

/** The tools for the Messages API's `tools` parameter. */
export function anthropicTools(tools: ToolSource): Tool[] {
  return toolsetOf(tools)
    .list()
    .map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: { type: "object", ...t.parameters },
    }));
}

/** The `tool_use` blocks of a message, as cordon tool calls. */
export function toolUseCalls(message: MessageWithToolUse): ToolCall[] {
  const blocks = Array.isArray(message) ? message : (message as { content?: unknown })?.content;
  if (typeof blocks === "string") return [];
  if (!Array.isArray(blocks)) {
    throw new UserError(
      "toolUseCalls(message) takes an Anthropic message (like the response of messages.create) or its content.",
    );
  }
  const calls: ToolCall[] = [];
  for (const block of blocks as readonly (ContentBlock | ContentBlockParam)[]) {
    if (block.type === "tool_use") {
      calls.push({ id: block.id, name: block.name, arguments: argumentsOf(block.input) });
    }
  }
  return calls;
}

/** One `tool_result` block per result, in the order given; failed calls have `is_error: true`. */
export function toolResultBlocks(results: readonly ToolResult[]): ToolResultBlockParam[] {
  return results.map((result) => ({
    type: "tool_result",
    tool_use_id: result.callId,
    content: result.output,
    ...(result.ok ? {} : { is_error: true }),
  }));
}

/** The answer to a Messages API turn: the user message to append, and the results behind it. */
export interface AnthropicToolTurn extends AnsweredCalls {
  /**
   * The user message with one `tool_result` block per `tool_use` block, in their order. Its content
   * is empty when the message had no tool_use blocks: check `stop_reason === "tool_use"` first. A call
   * that paused (see `paused`) has no block yet, and Anthropic wants every block in one message: store
   * the turn, and send `toolResultBlocks([...finalResults(turn.results), ...resumed])` once every
   * paused call is resumed (`codeMode.resumeCall(call, { decisions })`).
   */
  message: ToolResultsMessage;
}

/**
 * Runs the `tool_use` blocks of a message through `dispatcher` (validation, approval, policies,
 * retries, events) and answers every one of them, also when the turn is cancelled or its budget runs out.
 */
export async function runToolUses<Deps>(
  dispatcher: Dispatcher<Deps>,
  message: MessageWithToolUse,
  options?: RunToolCallsOptions<Deps>,
): Promise<AnthropicToolTurn> {
  const answered = await runToolCalls(dispatcher, toolUseCalls(message), options);
  const content = toolResultBlocks(finalResults(answered.results));
  return { ...answered, message: { role: "user", content } };
}
