/**
 * `cordon/testing`: scripted models to test an agent with, no model and no network needed. Give one a
 * script, a list of turns (text, tool calls such as a `run_code` call with given code, or a function that
 * writes the turn from the tool results it was sent back), and point your agent at it:
 * `startScriptedModelServer()` for the official OpenAI and Anthropic clients (a server on 127.0.0.1), and
 * `scriptedLanguageModel()` for the AI SDK (in-process).
 */

export {
  type ScriptedCallOptions,
  type ScriptedContent,
  type ScriptedFinishReason,
  type ScriptedLanguageModel,
  type ScriptedStreamPart,
  type ScriptedUsage,
  scriptedLanguageModel,
} from "../testing/language-model.js";
export { type ScriptedModelServer, startScriptedModelServer } from "../testing/model-server.js";
export {
  runCodeTurn,
  type ScriptedRequest,
  type ScriptedToolCall,
  type ScriptedTurn,
  type ScriptStep,
  type ToolResultSeen,
} from "../testing/script.js";
