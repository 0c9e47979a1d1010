/**
 * A local stand-in for a hosted model: an HTTP server on 127.0.0.1 that speaks the OpenAI Chat
 * Completions, OpenAI Responses and Anthropic Messages APIs well enough for the official clients, and
 * answers with scripted turns instead of a model. A test (or an example) points the official `openai`
 * and `@anthropic-ai/sdk` clients at it with `baseURL`.
 *
 * Like the real APIs, it rejects (HTTP 400) a history in which a tool call has no result, a result
 * answers no call, or a call is answered twice, so an agent loop that works here keeps the rule the
 * providers enforce. It does not stream.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  argumentsText,
  type ScriptedRequest,
  type ScriptedTurn,
  type ScriptStep,
  scriptPlayer,
  type ToolResultSeen,
} from "./script.js";

/** A running scripted model server. */
export interface ScriptedModelServer {
  /** `http://127.0.0.1:<port>`: the Anthropic client's `baseURL`. */
  readonly url: string;
  /** `http://127.0.0.1:<port>/v1`: the OpenAI client's `baseURL`. */
  readonly openaiBaseURL: string;
  /** Every request that reached the server, in order, with the status it got. */
  readonly requests: { api: string; body: Record<string, unknown>; status: number }[];
  /** How many scripted turns are still to be played. */
  remaining(): number;
  /** Stops the server and ends its open connections. */
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

/** A client error, answered in the error format of the API that was called. */
class RequestRejected extends Error {}

/**
 * Starts a server on 127.0.0.1 (a free port) that plays `script`, one step per model request, whichever
 * of the three APIs it comes through. A request past the script's end, or one whose history a real
 * provider would refuse, is answered with HTTP 400 in that API's error format, so the client throws.
 */
export async function startScriptedModelServer(script: readonly ScriptStep[]): Promise<ScriptedModelServer> {
  const player = scriptPlayer(script, "startScriptedModelServer");
  const requests: ScriptedModelServer["requests"] = [];
  const responses = new Map<string, Json[]>(); // Responses API: the full item history of each response id
  let counter = 0;

  const answer = (api: HttpApi, body: Json): Json => {
    if (body.stream === true) {
      throw new RequestRejected(
        "The scripted model server does not stream: call create() without stream: true.",
      );
    }
    const toolResults =
      api === "chat.completions"
        ? checkChatHistory(body)
        : api === "messages"
          ? checkMessagesHistory(body)
          : checkResponsesHistory(body, responses);
    const turn = player.next({ api, body, toolResults });
    if (turn instanceof Error) throw new RequestRejected(turn.message);
    counter++;
    if (api === "chat.completions") return chatCompletion(body, turn, counter);
    if (api === "messages") return anthropicMessage(body, turn, counter);
    const response = responsesResponse(body, turn, counter);
    responses.set(String(response.id), [...inputItems(body, responses), ...(response.output as Json[])]);
    return response;
  };

  const server = createServer((req, res) => {
    void handle(req, res);
  });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const api = apiOf(req.method, req.url);
    let body: Json = {};
    try {
      if (!api) throw new RequestRejected(`No such endpoint: ${req.method} ${req.url}`);
      body = await readJson(req);
      const result = answer(api, body);
      requests.push({ api, body, status: 200 });
      send(res, 200, result);
    } catch (error) {
      const status = error instanceof RequestRejected ? 400 : 500;
      requests.push({ api: api ?? String(req.url), body, status });
      const message = error instanceof Error ? error.message : String(error);
      send(res, status, errorBody(api, message));
    }
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    openaiBaseURL: `${url}/v1`,
    requests,
    remaining: player.remaining,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** The APIs the server speaks. */
type HttpApi = Exclude<ScriptedRequest["api"], "ai-sdk">;

function apiOf(method: string | undefined, url: string | undefined): HttpApi | undefined {
  if (method !== "POST") return undefined;
  const path = (url ?? "").split("?")[0];
  if (path === "/v1/chat/completions") return "chat.completions";
  if (path === "/v1/responses") return "responses";
  if (path === "/v1/messages") return "messages";
  return undefined;
}

async function readJson(req: IncomingMessage): Promise<Json> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    if (isObject(value)) return value;
  } catch {
    // answered below
  }
  throw new RequestRejected("The request body must be a JSON object.");
}

function send(res: ServerResponse, status: number, body: Json): void {
  res.writeHead(status, { "content-type": "application/json", "request-id": `req_${randomUUID()}` });
  res.end(JSON.stringify(body));
}

function errorBody(api: HttpApi | undefined, message: string): Json {
  if (api === "messages") return { type: "error", error: { type: "invalid_request_error", message } };
  return { error: { message, type: "invalid_request_error", param: null, code: null } };
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function list(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return list(content)
    .map((part) => (typeof part.text === "string" ? part.text : ""))
    .join("");
}

/** Chat Completions: every assistant tool call answered by exactly one following `tool` message. */
function checkChatHistory(body: Json): ToolResultSeen[] {
  const messages = list(body.messages);
  let pending = new Set<string>();
  let trailing: ToolResultSeen[] = [];
  const unanswered = () =>
    new RequestRejected(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...pending].join(", ")}`,
    );
  for (const message of messages) {
    if (message.role === "tool") {
      const id = String(message.tool_call_id);
      if (!pending.delete(id)) {
        throw new RequestRejected(
          `Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls'; tool_call_id ${id} answers no open call (or answers one twice).`,
        );
      }
      trailing.push({ callId: id, output: textOf(message.content), isError: false });
      continue;
    }
    if (pending.size > 0) throw unanswered();
    trailing = [];
    if (message.role === "assistant")
      pending = new Set(list(message.tool_calls).map((call) => String(call.id)));
  }
  if (pending.size > 0) throw unanswered();
  return trailing;
}

/** Anthropic Messages: each tool_use block answered by a tool_result block in the very next (user) message. */
function checkMessagesHistory(body: Json): ToolResultSeen[] {
  const messages = list(body.messages);
  let trailing: ToolResultSeen[] = [];
  messages.forEach((message, index) => {
    const blocks = list(message.content);
    const results = blocks.filter((block) => block.type === "tool_result");
    const previous = index > 0 ? list(messages[index - 1]!.content) : [];
    const asked = new Set(previous.filter((b) => b.type === "tool_use").map((b) => String(b.id)));
    const answered = new Set<string>();
    for (const result of results) {
      const id = String(result.tool_use_id);
      if (!asked.has(id) || answered.has(id)) {
        throw new RequestRejected(
          `messages.${index}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        );
      }
      answered.add(id);
    }
    const missing = [...asked].filter((id) => !answered.has(id));
    if (missing.length > 0) {
      throw new RequestRejected(
        `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      );
    }
    trailing = results.map((result) => ({
      callId: String(result.tool_use_id),
      output: textOf(result.content),
      isError: result.is_error === true,
    }));
  });
  const last = messages.at(-1);
  const lastAsked = last ? list(last.content).filter((b) => b.type === "tool_use") : [];
  if (lastAsked.length > 0) {
    throw new RequestRejected(
      `messages.${messages.length}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${lastAsked.map((b) => b.id).join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
    );
  }
  return trailing;
}

/** The input items of a Responses request, after the stored history of `previous_response_id`. */
function inputItems(body: Json, responses: Map<string, Json[]>): Json[] {
  const previous =
    typeof body.previous_response_id === "string" ? responses.get(body.previous_response_id) : [];
  if (previous === undefined) {
    throw new RequestRejected(`Previous response with id '${String(body.previous_response_id)}' not found.`);
  }
  const input = typeof body.input === "string" ? [{ role: "user", content: body.input }] : list(body.input);
  return [...previous, ...input];
}

/** Responses API: every function_call item answered by exactly one function_call_output item. */
function checkResponsesHistory(body: Json, responses: Map<string, Json[]>): ToolResultSeen[] {
  const items = inputItems(body, responses);
  const calls = new Set(
    items.filter((item) => item.type === "function_call").map((item) => String(item.call_id)),
  );
  const answered = new Set<string>();
  for (const item of items) {
    if (item.type !== "function_call_output") continue;
    const id = String(item.call_id);
    if (!calls.has(id) || answered.has(id)) {
      throw new RequestRejected(`No tool call found for function call output with call_id ${id}.`);
    }
    answered.add(id);
  }
  const missing = [...calls].filter((id) => !answered.has(id));
  if (missing.length > 0) throw new RequestRejected(`No tool output found for function call ${missing[0]}.`);
  const input = typeof body.input === "string" ? [] : list(body.input);
  return input
    .filter((item) => item.type === "function_call_output")
    .map((item) => ({ callId: String(item.call_id), output: textOf(item.output), isError: false }));
}

function chatCompletion(body: Json, turn: ScriptedTurn, n: number): Json {
  const toolCalls = (turn.toolCalls ?? []).map((call, i) => ({
    id: `call_scripted_${n}_${i}`,
    type: "function",
    function: { name: call.name, arguments: argumentsText(call) },
  }));
  return {
    id: `chatcmpl-scripted-${n}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: String(body.model),
    choices: [
      {
        index: 0,
        finish_reason: toolCalls.length > 0 ? "tool_calls" : "stop",
        logprobs: null,
        message: {
          role: "assistant",
          content: turn.text ?? null,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
      },
    ],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  };
}

function responsesResponse(body: Json, turn: ScriptedTurn, n: number): Json {
  const output: Json[] = [];
  if (turn.text !== undefined) {
    output.push({
      type: "message",
      id: `msg_scripted_${n}`,
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: turn.text, annotations: [] }],
    });
  }
  (turn.toolCalls ?? []).forEach((call, i) => {
    output.push({
      type: "function_call",
      id: `fc_scripted_${n}_${i}`,
      call_id: `call_scripted_${n}_${i}`,
      name: call.name,
      arguments: argumentsText(call),
      status: "completed",
    });
  });
  return {
    id: `resp_scripted_${n}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: "completed",
    model: String(body.model),
    output,
    parallel_tool_calls: true,
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    metadata: {},
    temperature: null,
    top_p: null,
    usage: {
      input_tokens: 0,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 0,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 0,
    },
  };
}

function anthropicMessage(body: Json, turn: ScriptedTurn, n: number): Json {
  const content: Json[] = [];
  if (turn.text !== undefined) content.push({ type: "text", text: turn.text });
  (turn.toolCalls ?? []).forEach((call, i) => {
    content.push({
      type: "tool_use",
      id: `toolu_scripted_${n}_${i}`,
      name: call.name,
      input: toolUseInput(call.arguments),
    });
  });
  return {
    id: `msg_scripted_${n}`,
    type: "message",
    role: "assistant",
    model: String(body.model),
    content,
    stop_reason: (turn.toolCalls ?? []).length > 0 ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 0, output_tokens: 0 },
  };
}

/** A tool_use block's `input`: an object, so arguments given as text must be a JSON object's. */
function toolUseInput(args: Record<string, unknown> | string): Record<string, unknown> {
  if (typeof args !== "string") return args;
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    // answered below
  }
  if (isObject(parsed)) return parsed;
  throw new RequestRejected(
    `The scripted model's arguments ${JSON.stringify(args.slice(0, 80))} are not a JSON object, which Anthropic's tool_use input must be: script them as an object.`,
  );
}
