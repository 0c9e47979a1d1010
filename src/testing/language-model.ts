/**
 * A scripted model for the Vercel AI SDK, in-process: an object of the AI SDK's language model interface
 * (specification v3) that `generateText` and `streamText` take as their `model`, playing scripted turns.
 * Its types are written here rather than imported from `ai`, so `cordon/testing` needs no AI SDK unless
 * this model is used.
 */

import {
  argumentsText,
  type ScriptedTurn,
  type ScriptStep,
  scriptPlayer,
  type ToolResultSeen,
} from "./script.js";

/** What the scripted model reads of a call's options: the prompt, whose last message holds tool results. */
export interface ScriptedCallOptions {
  prompt: readonly { role: string; content: unknown }[];
}

/** A part of what the scripted model answers: text, or a tool call with its arguments as JSON text. */
export type ScriptedContent =
  | { type: "text"; text: string }
  | { type: "tool-call"; toolCallId: string; toolName: string; input: string };

/** Why the scripted model stopped: it made tool calls, or it answered. */
export interface ScriptedFinishReason {
  unified: "stop" | "tool-calls";
  raw: string | undefined;
}

/** Token usage, all zero: nothing was counted. */
export interface ScriptedUsage {
  inputTokens: { total: number; noCache: number; cacheRead: number; cacheWrite: number };
  outputTokens: { total: number; text: number; reasoning: number };
}

/** A part of the scripted model's stream, as `streamText` reads it. */
export type ScriptedStreamPart =
  | { type: "stream-start"; warnings: never[] }
  | { type: "text-start"; id: string }
  | { type: "text-delta"; id: string; delta: string }
  | { type: "text-end"; id: string }
  | { type: "tool-call"; toolCallId: string; toolName: string; input: string }
  | { type: "finish"; finishReason: ScriptedFinishReason; usage: ScriptedUsage };

/** The AI SDK language model that {@link scriptedLanguageModel} makes, and what it was asked. */
export interface ScriptedLanguageModel {
  readonly specificationVersion: "v3";
  readonly provider: string;
  readonly modelId: string;
  readonly supportedUrls: Record<string, RegExp[]>;
  /** Plays the next turn (`generateText`). */
  doGenerate(options: ScriptedCallOptions): Promise<{
    content: ScriptedContent[];
    finishReason: ScriptedFinishReason;
    usage: ScriptedUsage;
    warnings: never[];
  }>;
  /** Plays the next turn as a stream (`streamText`). */
  doStream(options: ScriptedCallOptions): Promise<{ stream: ReadableStream<ScriptedStreamPart> }>;
  /** The options of every call the AI SDK made, in order. */
  readonly requests: ScriptedCallOptions[];
  /** How many scripted turns are still to be played. */
  remaining(): number;
}

const NO_USAGE: ScriptedUsage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

/**
 * An AI SDK language model that plays `script`, one step per call of the model (a step of
 * `generateText` or `streamText`). A function step reads the tool results the AI SDK sent back. A call
 * past the script's end throws, so `generateText` rejects saying so.
 */
export function scriptedLanguageModel(
  script: readonly ScriptStep[],
  options: { modelId?: string } = {},
): ScriptedLanguageModel {
  const player = scriptPlayer(script, "scriptedLanguageModel");
  const requests: ScriptedCallOptions[] = [];
  let counter = 0;

  const play = (callOptions: ScriptedCallOptions): ScriptedContent[] => {
    requests.push(callOptions);
    const turn = player.next({
      api: "ai-sdk",
      body: callOptions as unknown as Record<string, unknown>,
      toolResults: toolResultsOf(callOptions),
    });
    if (turn instanceof Error) throw turn;
    counter++;
    return contentOf(turn, counter);
  };

  return {
    specificationVersion: "v3",
    provider: "cordon-scripted",
    modelId: options.modelId ?? "scripted-model",
    supportedUrls: {},
    requests,
    remaining: player.remaining,
    async doGenerate(callOptions) {
      const content = play(callOptions);
      return { content, finishReason: finishOf(content), usage: NO_USAGE, warnings: [] };
    },
    async doStream(callOptions) {
      const content = play(callOptions);
      const parts: ScriptedStreamPart[] = [{ type: "stream-start", warnings: [] }];
      content.forEach((part, i) => {
        if (part.type === "tool-call") {
          parts.push(part);
          return;
        }
        const id = `text_${counter}_${i}`;
        parts.push(
          { type: "text-start", id },
          { type: "text-delta", id, delta: part.text },
          { type: "text-end", id },
        );
      });
      parts.push({ type: "finish", finishReason: finishOf(content), usage: NO_USAGE });
      return {
        stream: new ReadableStream<ScriptedStreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
}

function contentOf(turn: ScriptedTurn, n: number): ScriptedContent[] {
  const content: ScriptedContent[] = turn.text === undefined ? [] : [{ type: "text", text: turn.text }];
  (turn.toolCalls ?? []).forEach((call, i) => {
    content.push({
      type: "tool-call",
      toolCallId: `call_scripted_${n}_${i}`,
      toolName: call.name,
      input: argumentsText(call),
    });
  });
  return content;
}

function finishOf(content: ScriptedContent[]): ScriptedFinishReason {
  const calls = content.some((part) => part.type === "tool-call");
  return calls ? { unified: "tool-calls", raw: "tool_calls" } : { unified: "stop", raw: "stop" };
}

/** The tool results of the prompt's last message, when it is the answers to the previous turn's calls. */
function toolResultsOf(options: ScriptedCallOptions): ToolResultSeen[] {
  const last = options.prompt.at(-1);
  if (last?.role !== "tool" || !Array.isArray(last.content)) return [];
  return last.content.flatMap((part: unknown): ToolResultSeen[] => {
    if (!isRecord(part) || part.type !== "tool-result") return [];
    return [{ callId: String(part.toolCallId), ...outputOf(part.output) }];
  });
}

/** What the model reads of one AI SDK tool output, and whether it is a failure. */
function outputOf(output: unknown): { output: string; isError: boolean } {
  if (!isRecord(output)) return { output: "", isError: false };
  const text = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));
  switch (output.type) {
    case "text":
    case "json":
      return { output: text(output.value), isError: false };
    case "error-text":
    case "error-json":
      return { output: text(output.value), isError: true };
    case "execution-denied":
      return { output: typeof output.reason === "string" ? output.reason : "denied", isError: true };
    case "content":
      return {
        output: (Array.isArray(output.value) ? output.value : [])
          .map((item: unknown) => (isRecord(item) && typeof item.text === "string" ? item.text : ""))
          .join(""),
        isError: false,
      };
    default:
      return { output: "", isError: false };
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
