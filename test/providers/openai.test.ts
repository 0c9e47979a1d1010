import OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isolateEnvironment } from "../../src/entries/in-process.js";
import { type ScriptedModelServer, startScriptedModelServer } from "../../src/entries/testing.js";
import { Budget, type CodeMode, codeMode, Dispatcher, Toolset } from "../../src/index.js";
import {
  chatCompletionTools,
  chatToolCalls,
  chatToolMessages,
  responsesTools,
  runChatToolCalls,
  runResponseToolCalls,
} from "../../src/providers/openai.js";
import { getOrder, listOrders, lookedUp, REFUND_TOTAL_CODE, refund, waitForever } from "./tools.js";

const PAUSE_KEY = "an app's checkpoint key of 32 bytes";

const MODEL = "scripted-model";
const answerWithResult = ({ toolResults }: { toolResults: { output: string }[] }) => ({
  text: `The refunded orders total ${/result: (\d+)/.exec(toolResults[0]?.output ?? "")?.[1] ?? "?"}.`,
});

let server: ScriptedModelServer | undefined;
let cm: CodeMode | undefined;
afterEach(async () => {
  await server?.close();
  await cm?.close();
  server = undefined;
  cm = undefined;
});
beforeEach(() => {
  lookedUp.length = 0;
});

function client(s: ScriptedModelServer): OpenAI {
  return new OpenAI({ apiKey: "scripted", baseURL: s.openaiBaseURL, maxRetries: 0 });
}

describe("cordon/openai tool definitions", () => {
  it("Chat Completions tools carry strict: true only for strict tools", () => {
    const [list, get] = chatCompletionTools(new Toolset([listOrders, getOrder]));
    expect(list).toEqual({
      type: "function",
      function: {
        name: "list_orders",
        description: "List every order id.",
        parameters: listOrders.parameters,
      },
    });
    expect(get!.function.strict).toBe(true);
    expect(get!.function.parameters).toMatchObject({ additionalProperties: false, required: ["order_id"] });
  });

  it("Responses tools say strict explicitly, false for tools not defined strict", () => {
    const tools = responsesTools([listOrders, getOrder]);
    expect(tools.map((t) => [t.name, t.strict])).toEqual([
      ["list_orders", false],
      ["get_order", true],
    ]);
    expect(tools[0]).toMatchObject({ type: "function", description: "List every order id." });
  });

  it("chatToolCalls takes function calls and leaves custom tool calls alone", () => {
    const calls = chatToolCalls({
      tool_calls: [
        { id: "c1", type: "function", function: { name: "get_order", arguments: '{"order_id":"A1"}' } },
        { id: "c2", type: "custom", custom: { name: "grammar_tool", input: "free text" } },
      ],
    });
    expect(calls).toEqual([{ id: "c1", name: "get_order", arguments: '{"order_id":"A1"}' }]);
    expect(() => chatToolCalls(null as never)).toThrow(/takes a Chat Completions message/);
  });
});

describe("cordon/openai with the official client (scripted model)", () => {
  it("Chat Completions: the model asks for run_code, the code calls tools, the result goes back, the model answers", async () => {
    server = await startScriptedModelServer([
      { toolCalls: [{ name: "run_code", arguments: { code: REFUND_TOTAL_CODE } }] },
      answerWithResult,
    ]);
    cm = codeMode({ tools: [listOrders, getOrder], environment: isolateEnvironment() });
    const dispatcher = new Dispatcher(new Toolset([cm.tool]));
    const openai = client(server);

    const messages: ChatCompletionMessageParam[] = [
      { role: "system", content: cm.instructions },
      { role: "user", content: "What do the refunded orders add up to?" },
    ];
    let answer: string | null = null;
    for (let turn = 0; turn < 5; turn++) {
      const completion = await openai.chat.completions.create({
        model: MODEL,
        messages,
        tools: chatCompletionTools(dispatcher),
      });
      const message = completion.choices[0]!.message;
      messages.push(message);
      if (!message.tool_calls?.length) {
        answer = message.content;
        break;
      }
      const { messages: toolMessages } = await runChatToolCalls(dispatcher, message);
      messages.push(...toolMessages);
    }

    expect(answer).toBe("The refunded orders total 17.");
    expect(lookedUp.sort()).toEqual(["A1", "A2", "A3"]);
    const sentTools = server.requests[0]!.body.tools as { function: { name: string } }[];
    expect(sentTools.map((t) => t.function.name)).toEqual(["run_code"]);
    const toolMessage = messages.find((m) => m.role === "tool")!;
    expect(toolMessage).toMatchObject({ tool_call_id: "call_scripted_1_0" });
    expect(server.remaining()).toBe(0);
  });

  it("Responses API: function_call items in, function_call_output items out, end to end with run_code", async () => {
    server = await startScriptedModelServer([
      { toolCalls: [{ name: "run_code", arguments: { code: REFUND_TOTAL_CODE } }] },
      answerWithResult,
    ]);
    cm = codeMode({ tools: [listOrders, getOrder], environment: isolateEnvironment() });
    const dispatcher = new Dispatcher(new Toolset([cm.tool]));
    const openai = client(server);

    const input: ResponseInputItem[] = [{ role: "user", content: "What do the refunded orders add up to?" }];
    let response = await openai.responses.create({
      model: MODEL,
      instructions: cm.instructions,
      input,
      tools: responsesTools(dispatcher),
    });
    const turn = await runResponseToolCalls(dispatcher, response);
    expect(turn.items).toEqual([
      {
        type: "function_call_output",
        call_id: "call_scripted_1_0",
        output: expect.stringContaining("result: 17"),
      },
    ]);
    response = await openai.responses.create({
      model: MODEL,
      previous_response_id: response.id,
      input: turn.items,
      tools: responsesTools(dispatcher),
    });
    expect(response.output_text).toBe("The refunded orders total 17.");
    const sent = server.requests[0]!.body.tools as { name: string; strict: boolean }[];
    expect(sent).toEqual([expect.objectContaining({ name: "run_code", strict: false })]);
  });

  it("any tool, several calls in one turn: every call answered in order, failures as error text", async () => {
    server = await startScriptedModelServer([
      {
        toolCalls: [
          { name: "get_order", arguments: { order_id: "A2" } },
          { name: "get_order", arguments: { order_id: "Z9" } },
          { name: "getOrderTool", arguments: '{"order_id": "A1",}' },
          { name: "delete_everything", arguments: {} },
        ],
      },
      ({ toolResults }) => ({ text: toolResults.map((r) => r.output.split("\n")[0]).join(" | ") }),
    ]);
    const dispatcher = new Dispatcher(new Toolset([getOrder]));
    const openai = client(server);
    const messages: ChatCompletionMessageParam[] = [{ role: "user", content: "Look up some orders." }];
    const first = await openai.chat.completions.create({
      model: MODEL,
      messages,
      tools: chatCompletionTools(dispatcher),
    });
    messages.push(first.choices[0]!.message);
    const turn = await runChatToolCalls(dispatcher, first.choices[0]!.message);
    messages.push(...turn.messages);
    expect(turn.messages.map((m) => m.tool_call_id)).toEqual([
      "call_scripted_1_0",
      "call_scripted_1_1",
      "call_scripted_1_2",
      "call_scripted_1_3",
    ]);
    expect(turn.results.map((r) => r.ok)).toEqual([true, false, true, false]);
    const second = await openai.chat.completions.create({ model: MODEL, messages });
    const text = second.choices[0]!.message.content!;
    expect(text).toContain('{"id":"A2","amount":25,"status":"shipped"}');
    expect(text).toContain("Order Z9 does not exist.");
    expect(text).toContain('There is no tool named "delete_everything"');
  });

  it("a cancelled turn still answers every call, and the provider accepts the history", async () => {
    server = await startScriptedModelServer([
      {
        toolCalls: [
          { name: "wait_forever", arguments: {} },
          { name: "wait_forever", arguments: {} },
          { name: "get_order", arguments: { order_id: "A1" } },
        ],
      },
      ({ toolResults }) => ({ text: `got ${toolResults.length} results` }),
    ]);
    const dispatcher = new Dispatcher(new Toolset([waitForever, getOrder]), { maxConcurrency: 2 });
    const openai = client(server);
    const messages: ChatCompletionMessageParam[] = [{ role: "user", content: "Wait." }];
    const first = await openai.chat.completions.create({ model: MODEL, messages });
    messages.push(first.choices[0]!.message);
    const controller = new AbortController();
    setTimeout(() => controller.abort("the user pressed stop"), 20);
    const turn = await runChatToolCalls(dispatcher, first.choices[0]!.message, { signal: controller.signal });
    messages.push(...turn.messages);

    expect(turn.stopped?.name).toBe("RunCancelled");
    expect(turn.messages).toHaveLength(3);
    expect(turn.results.map((r) => r.error?.kind)).toEqual(["cancelled", "cancelled", "cancelled"]);
    expect(lookedUp).toEqual([]);
    const second = await openai.chat.completions.create({ model: MODEL, messages });
    expect(second.choices[0]!.message.content).toBe("got 3 results");
  });

  it("a turn ended by its budget answers the calls it did not run as budget results", async () => {
    server = await startScriptedModelServer([
      {
        toolCalls: ["A1", "A2", "A3"].map((order_id) => ({ name: "get_order", arguments: { order_id } })),
      },
      { text: "done" },
    ]);
    const dispatcher = new Dispatcher(new Toolset([getOrder]));
    const openai = client(server);
    const input: ResponseInputItem[] = [{ role: "user", content: "Look them up." }];
    const first = await openai.responses.create({ model: MODEL, input, tools: responsesTools(dispatcher) });
    const turn = await runResponseToolCalls(dispatcher, first, { budget: new Budget({ toolCalls: 1 }) });
    expect(turn.stopped?.name).toBe("BudgetExceeded");
    expect(turn.results.map((r) => r.error?.kind ?? "ok")).toEqual(["ok", "budget", "budget"]);
    // Stateless: the whole history goes back, the model's function_call items included.
    const second = await openai.responses.create({
      model: MODEL,
      input: [...input, ...(first.output as ResponseInputItem[]), ...turn.items],
    });
    expect(second.output_text).toBe("done");
  });

  it("approvals: a reader of the events rejects a call, and the model reads why", async () => {
    server = await startScriptedModelServer([
      { toolCalls: [{ name: "refund", arguments: { order_id: "A2" } }] },
      ({ toolResults }) => ({ text: toolResults[0]!.output }),
    ]);
    const dispatcher = new Dispatcher(new Toolset([refund]));
    const openai = client(server);
    const messages: ChatCompletionMessageParam[] = [{ role: "user", content: "Refund A2." }];
    const first = await openai.chat.completions.create({ model: MODEL, messages });
    messages.push(first.choices[0]!.message);
    const seen: string[] = [];
    const turn = await runChatToolCalls(dispatcher, first.choices[0]!.message, {
      onStreamEvent: (event) => {
        seen.push(event.type);
        if (event.type === "approval_required") event.reject("refunds are frozen today");
      },
    });
    messages.push(...turn.messages);
    expect(seen).toContain("approval_required");
    const second = await openai.chat.completions.create({ model: MODEL, messages });
    expect(second.choices[0]!.message.content).toBe(
      "Tool error: refund was not run: the call was denied: refunds are frozen today",
    );
  });

  it("the scripted server rejects a history with an unanswered tool call, as the provider does", async () => {
    server = await startScriptedModelServer([
      { toolCalls: [{ name: "get_order", arguments: { order_id: "A1" } }] },
      { text: "never reached" },
    ]);
    const openai = client(server);
    const messages: ChatCompletionMessageParam[] = [{ role: "user", content: "Look up A1." }];
    const first = await openai.chat.completions.create({ model: MODEL, messages });
    messages.push(first.choices[0]!.message);
    await expect(openai.chat.completions.create({ model: MODEL, messages })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("did not have response messages: call_scripted_1_0"),
    });
  });
});

describe("cordon/openai with runs that pause (scripted model)", () => {
  it("a run_code call whose code needs an approval is listed in paused, gets no message yet, and answered in a later request by resumeCall with the same tool_call_id", async () => {
    server = await startScriptedModelServer([
      {
        toolCalls: [
          {
            name: "run_code",
            arguments: {
              code: `const o = await tools.get_order({ order_id: "A2" }); return await tools.refund({ order_id: o.id });`,
            },
          },
        ],
      },
      ({ toolResults }) => ({ text: `Done: ${toolResults[0]?.output.includes('"refunded":"A2"')}` }),
    ]);
    const pausing = {
      approval: "pause" as const,
      pause: { key: PAUSE_KEY },
      environment: isolateEnvironment(),
    };
    cm = codeMode({ tools: [getOrder, refund], ...pausing });
    const openai = client(server);
    const messages: ChatCompletionMessageParam[] = [{ role: "user", content: "Refund A2." }];
    const completion = await openai.chat.completions.create({
      model: MODEL,
      messages,
      tools: chatCompletionTools([cm.tool]),
    });
    const message = completion.choices[0]!.message;
    messages.push(message);
    const turn = await runChatToolCalls(new Dispatcher(new Toolset([cm.tool])), message);
    expect(turn.messages).toEqual([]);
    expect(turn.paused).toHaveLength(1);
    expect(turn.paused[0]!.paused.pending).toEqual([
      { id: expect.any(String), tool: "refund", args: { order_id: "A2" }, kind: "approval" },
    ]);
    const stored = JSON.stringify(turn.paused); // kept with the conversation until the person decides

    // A later request, another code mode (as in another process): the person approved.
    const later = codeMode({ tools: [getOrder, refund], ...pausing, environment: isolateEnvironment() });
    try {
      const [call] = JSON.parse(stored) as typeof turn.paused;
      const result = await later.resumeCall(call!, { decisions: { [call!.paused.pending[0]!.id]: true } });
      expect(result).toMatchObject({ callId: message.tool_calls![0]!.id, ok: true });
      messages.push(...chatToolMessages([result]));
      const next = await openai.chat.completions.create({ model: MODEL, messages });
      expect(next.choices[0]!.message.content).toBe("Done: true");
      expect(lookedUp).toEqual(["A2"]);
    } finally {
      await later.close();
    }
  });
});
