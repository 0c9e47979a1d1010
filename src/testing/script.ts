/**
 * A scripted model's script: the turns it plays, one per request, in order. Shared by the scripted model
 * server (OpenAI and Anthropic over HTTP) and the AI SDK's in-process scripted model.
 */

import { UserError } from "../../common/errors.js";

/** A tool call the scripted model makes. */
export interface ScriptedToolCall {
  /** The tool's name, as the model would write it (`run_code`, `get_order`). */
  name: string;
  /** An object (sent as JSON) or the exact text the model sends as arguments. */
  arguments: Record<string, unknown> | string;
}

/** One scripted model turn: text, tool calls, or both. */
export interface ScriptedTurn {
  text?: string;
  toolCalls?: ScriptedToolCall[];
}

/** The results the client sent back for the previous turn's tool calls, as the scripted model sees them. */
export interface ToolResultSeen {
  callId: string;
  /** The text the model reads (a JSON result as JSON text). */
  output: string;
  /** Whether the client marked it a failure (Anthropic's `is_error`, the AI SDK's error outputs); the OpenAI APIs have no such flag. */
  isError: boolean;
}

/** What a script step is told about the request it answers. */
export interface ScriptedRequest {
  /** Which API was called: OpenAI's two, Anthropic's, or the AI SDK's language model interface. */
  api: "chat.completions" | "responses" | "messages" | "ai-sdk";
  /** The request as the client sent it: the JSON body over HTTP, the call options in the AI SDK. */
  body: Record<string, unknown>;
  /** The tool results at the end of the history (the answers to the previous turn's calls). */
  toolResults: ToolResultSeen[];
}

/** A turn, or a function that writes the turn from the request (to answer with what a tool returned). */
export type ScriptStep = ScriptedTurn | ((request: ScriptedRequest) => ScriptedTurn);

/**
 * A turn whose one tool call is code mode's `run_code` with `code`: what a model that writes code sends.
 * `text` is what it says beside the call, if anything.
 */
export function runCodeTurn(code: string, text?: string): ScriptedTurn {
  if (typeof code !== "string")
    throw new UserError(`runCodeTurn: code must be a string, got ${typeof code}.`);
  return { ...(text === undefined ? {} : { text }), toolCalls: [{ name: "run_code", arguments: { code } }] };
}

/** Why `turn` cannot be played, or undefined when it can. */
function turnProblem(turn: unknown): string | undefined {
  if (typeof turn !== "object" || turn === null || Array.isArray(turn)) {
    return `a turn must be an object ({ text?, toolCalls? }), got ${Array.isArray(turn) ? "an array" : String(turn)}`;
  }
  const { text, toolCalls } = turn as ScriptedTurn;
  if (text !== undefined && typeof text !== "string") return `text must be a string, got ${typeof text}`;
  if (toolCalls === undefined)
    return text === undefined ? "a turn needs text, tool calls or both" : undefined;
  if (!Array.isArray(toolCalls)) return "toolCalls must be an array";
  for (const [i, call] of toolCalls.entries()) {
    if (typeof call !== "object" || call === null)
      return `toolCalls[${i}] must be an object ({ name, arguments })`;
    if (typeof call.name !== "string" || call.name === "")
      return `toolCalls[${i}].name must be a tool's name`;
    const args: unknown = call.arguments;
    if (typeof args === "string") continue;
    if (typeof args !== "object" || args === null || Array.isArray(args)) {
      return `toolCalls[${i}].arguments must be an object or the arguments' JSON text`;
    }
  }
  if (toolCalls.length === 0 && text === undefined) return "a turn needs text, tool calls or both";
  return undefined;
}

/**
 * Plays `script` one step per request: the turn the next request gets, checked, or an Error that says
 * why there is none. Steps that are turns are checked at once, so a wrong script fails where it is made.
 */
export function scriptPlayer(script: readonly ScriptStep[], maker: string) {
  if (!Array.isArray(script)) throw new UserError(`${maker}: the script must be an array of turns.`);
  for (const [i, step] of script.entries()) {
    if (typeof step === "function") continue;
    const problem = turnProblem(step);
    if (problem) throw new UserError(`${maker}: script[${i}]: ${problem}.`);
  }
  const steps = [...script];
  let played = 0;
  return {
    /** How many steps are still to be played. */
    remaining: () => steps.length,
    /** The next step's turn for `request`. */
    next(request: ScriptedRequest): ScriptedTurn | Error {
      const step = steps.shift();
      if (step === undefined) {
        return new Error(
          `The scripted model has no turn left to play: its script had ${played} turns, and this is request ${played + 1}.`,
        );
      }
      const index = played++;
      let turn: unknown = step;
      if (typeof step === "function") {
        try {
          turn = step(request);
        } catch (error) {
          return new Error(
            `The scripted model's script[${index}] threw: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
      const problem = turnProblem(turn);
      if (problem)
        return new Error(`The scripted model's script[${index}] returned no playable turn: ${problem}.`);
      return turn as ScriptedTurn;
    },
  };
}

/** The arguments of `call` as JSON text. */
export function argumentsText(call: ScriptedToolCall): string {
  return typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
}
