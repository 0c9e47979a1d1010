/**
 * `cordon/openai`: cordon in an OpenAI agent loop, with the official `openai` package's own types.
 * Chat Completions `tool_calls` and Responses API `function_call` items become cordon tool calls; their
 * results go back as `role: "tool"` messages and `function_call_output` items, one for every call.
 */
import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageToolCall,
  ChatCompletionToolMessageParam,
} from "openai/resources/chat/completions";
import type {
  FunctionTool,
  ResponseInputItem,
  ResponseOutputItem,
} from "openai/resources/responses/responses";
import { UserError } from "../../common/errors.js";
import type { Dispatcher } from "../dispatch/dispatcher.js";
import type { ToolCall, ToolResult } from "../dispatch/types.js";
import {
  type AnsweredCalls,
  finalResults,
  type RunToolCallsOptions,
  runToolCalls,
  type ToolSource,
  toolsetOf,
} from "./run-tool-calls.js";

export { finalResults } from "./run-tool-calls.js";

/** A `function_call_output` item of the Responses API. */
export type FunctionCallOutput = ResponseInputItem.FunctionCallOutput;

/** A Chat Completions message that may carry tool calls: the model's `message`, or the assistant message you stored. */
export interface ChatMessageWithToolCalls {
  tool_calls?: readonly ChatCompletionMessageToolCall[] | null;
}

/** A Responses API response, or its `output` items. */
export type ResponseWithToolCalls = { output: readonly ResponseOutputItem[] } | readonly ResponseOutputItem[];

/**
 * The tools for Chat Completions' `tools` parameter. Tools defined with `strict: true` get
 * `strict: true`, and their schema is already in the form strict mode requires.
 */
export function chatCompletionTools(tools: ToolSource): ChatCompletionFunctionTool[] {
  return toolsetOf(tools).toOpenAITools();
}

/**
 * The tools for the Responses API's `tools` parameter. `strict` is always explicit, because the
 * Responses API makes a function strict when it is left out, and only tools defined with
 * `strict: true` have a schema strict mode accepts.
 */
export function responsesTools(tools: ToolSource): FunctionTool[] {
  return toolsetOf(tools)
    .list()
    .map((t) => ({
      type: "function",
      name: t.name,
      description: t.description,
      parameters: t.parameters,
      strict: t.options.strict === true,
    }));
}

/**
 * The function tool calls of a Chat Completions message, as cordon tool calls. Custom tool calls
 * (free-form input, `type: "custom"`) are not cordon's tools and are left for you to answer.
 */
export function chatToolCalls(message: ChatMessageWithToolCalls): ToolCall[] {
  if (message === null || typeof message !== "object") {
    throw new UserError(
      "chatToolCalls(message) takes a Chat Completions message, like completion.choices[0].message.",
    );
  }
  const calls: ToolCall[] = [];
  for (const call of message.tool_calls ?? []) {
    if (call.type === "function") {
      calls.push({ id: call.id, name: call.function.name, arguments: call.function.arguments });
    }
  }
  return calls;
}

/** One `role: "tool"` message per result, in the order given. */
export function chatToolMessages(results: readonly ToolResult[]): ChatCompletionToolMessageParam[] {
  return results.map((result) => ({ role: "tool", tool_call_id: result.callId, content: result.output }));
}

/** The answer to a Chat Completions turn: the tool messages to append, and the results behind them. */
export interface ChatToolTurn extends AnsweredCalls {
  /**
   * One `role: "tool"` message per tool call, in the order of the calls: append them after the assistant
   * message. A call that paused (see `paused`) has none yet: append its message once it is resumed
   * (`chatToolMessages([await codeMode.resumeCall(call, { decisions })])`) before asking the model again.
   */
  messages: ChatCompletionToolMessageParam[];
}

/**
 * Runs the function tool calls of a Chat Completions message through `dispatcher` (validation,
 * approval, policies, retries, events) and answers every one of them, also when the turn is
 * cancelled or its budget runs out.
 */
export async function runChatToolCalls<Deps>(
  dispatcher: Dispatcher<Deps>,
  message: ChatMessageWithToolCalls,
  options?: RunToolCallsOptions<Deps>,
): Promise<ChatToolTurn> {
  const answered = await runToolCalls(dispatcher, chatToolCalls(message), options);
  return { ...answered, messages: chatToolMessages(finalResults(answered.results)) };
}

/** The `function_call` items of a Responses API response, as cordon tool calls (`id` is the item's `call_id`). */
export function responseToolCalls(response: ResponseWithToolCalls): ToolCall[] {
  const items = Array.isArray(response) ? response : (response as { output?: unknown })?.output;
  if (!Array.isArray(items)) {
    throw new UserError("responseToolCalls(response) takes a Responses API response or its output items.");
  }
  const calls: ToolCall[] = [];
  for (const item of items as readonly ResponseOutputItem[]) {
    if (item.type === "function_call") {
      calls.push({ id: item.call_id, name: item.name, arguments: item.arguments });
    }
  }
  return calls;
}

/** One `function_call_output` item per result, in the order given. */
export function functionCallOutputs(results: readonly ToolResult[]): FunctionCallOutput[] {
  return results.map((result) => ({
    type: "function_call_output",
    call_id: result.callId,
    output: result.output,
  }));
}

/** The answer to a Responses API turn: the input items to send next, and the results behind them. */
export interface ResponseToolTurn extends AnsweredCalls {
  /**
   * One `function_call_output` item per function call, in the order of the calls; a call that paused
   * (see `paused`) has none until it is resumed (`functionCallOutputs([await codeMode.resumeCall(…)])`).
   */
  items: FunctionCallOutput[];
}

/**
 * Runs the `function_call` items of a Responses API response through `dispatcher` and answers every
 * one of them, also when the turn is cancelled or its budget runs out.
 */
export async function runResponseToolCalls<Deps>(
  dispatcher: Dispatcher<Deps>,
  response: ResponseWithToolCalls,
  options?: RunToolCallsOptions<Deps>,
): Promise<ResponseToolTurn> {
  const answered = await runToolCalls(dispatcher, responseToolCalls(response), options);
  return { ...answered, items: functionCallOutputs(finalResults(answered.results)) };
}
