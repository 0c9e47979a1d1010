// cordon/testing as a user's test drives it: an agent loop with each adapter (OpenAI Chat Completions and
// Responses, Anthropic Messages, the AI SDK's generateText and streamText) against a scripted model whose
// first turn is a run_code call with given code and whose second answers from what run_code returned.
import Anthropic from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages/messages";
import { generateText, stepCountIs, streamText } from "ai";
import { type CodeMode, codeMode, Dispatcher, Toolset, UserError } from "cordon";
import { aiSdkTools } from "cordon/ai-sdk";
import { anthropicTools, runToolUses } from "cordon/anthropic";
import { isolateEnvironment } from "cordon/in-process";
import { chatCompletionTools, responsesTools, runChatToolCalls, runResponseToolCalls } from "cordon/openai";
import {
  runCodeTurn,
  type ScriptedModelServer,
  type ScriptStep,
  scriptedLanguageModel,
  startScriptedModelServer,
} from "cordon/testing";
import OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getOrder, listOrders, lookedUp, REFUND_TOTAL_CODE } from "../providers/tools.js";

const QUESTION = "What do the refunded orders add up to?";

/** The script: a run_code call, then an answer written from run_code's result line. */
const SCRIPT: ScriptStep[] = [
  runCodeTurn(REFUND_TOTAL_CODE, "Let me add them up."),
  ({ toolResults }) => ({
    text: `The refunded orders total ${/result: (\d+)/.exec(toolResults[0]?.output ?? "")?.[1] ?? "?"}.`,
  }),
];

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

/** Code mode over the test's order book, in-process; the model sees run_code alone. */
function codeModeOfOrders(): { cm: CodeMode; dispatcher: Dispatcher } {
  cm = codeMode({ tools: [listOrders, getOrder], environment: isolateEnvironment() });
  return { cm, dispatcher: new Dispatcher(new Toolset([cm.tool])) };
}

describe("cordon/testing: startScriptedModelServer with the official clients", () => {
  it("an OpenAI Chat Completions agent loop runs the scripted run_code call and reads the scripted answer", async () => {
    server = await startScriptedModelServer(SCRIPT);
    const openai = new OpenAI({ apiKey: "test", baseURL: server.openaiBaseURL, maxRetries: 0 });
    const { cm, dispatcher } = codeModeOfOrders();
    const messages: ChatCompletionMessageParam[] = [
      { role: "system", content: cm.instructions },
      { role: "user", content: QUESTION },
    ];
    let answer: string | null = null;
    for (let step = 0; step < 5 && answer === null; step++) {
      const completion = await openai.chat.completions.create({
        model: "scripted-model",
        messages,
        tools: chatCompletionTools(dispatcher),
      });
      const message = completion.choices[0]!.message;
      messages.push(message);
      if (!message.tool_calls?.length) answer = message.content;
      else messages.push(...(await runChatToolCalls(dispatcher, message)).messages);
    }
    expect(answer).toBe("The refunded orders total 17.");
    expect(lookedUp.sort()).toEqual(["A1", "A2", "A3"]);
    expect(server.remaining()).toBe(0);
  });

  it("an OpenAI Responses agent loop does the same", async () => {
    server = await startScriptedModelServer(SCRIPT);
    const openai = new OpenAI({ apiKey: "test", baseURL: server.openaiBaseURL, maxRetries: 0 });
    const { cm, dispatcher } = codeModeOfOrders();
    let response = await openai.responses.create({
      model: "scripted-model",
      instructions: cm.instructions,
      input: QUESTION,
      tools: responsesTools(dispatcher),
    });
    const turn = await runResponseToolCalls(dispatcher, response);
    response = await openai.responses.create({
      model: "scripted-model",
      previous_response_id: response.id,
      input: turn.items,
      tools: responsesTools(dispatcher),
    });
    expect(response.output_text).toBe("The refunded orders total 17.");
    expect(server.remaining()).toBe(0);
  });

  it("an Anthropic Messages agent loop does the same", async () => {
    server = await startScriptedModelServer(SCRIPT);
    const anthropic = new Anthropic({ apiKey: "test", baseURL: server.url, maxRetries: 0 });
    const { cm, dispatcher } = codeModeOfOrders();
    const messages: MessageParam[] = [{ role: "user", content: QUESTION }];
    let answer = "";
    for (let step = 0; step < 5 && !answer; step++) {
      const response = await anthropic.messages.create({
        model: "scripted-model",
        max_tokens: 1_000,
        system: cm.instructions,
        messages,
        tools: anthropicTools(dispatcher),
      });
      messages.push({ role: "assistant", content: response.content });
      if (response.stop_reason !== "tool_use") {
        answer = response.content.map((block) => (block.type === "text" ? block.text : "")).join("");
      } else messages.push((await runToolUses(dispatcher, response)).message);
    }
    expect(answer).toBe("The refunded orders total 17.");
    expect(lookedUp.sort()).toEqual(["A1", "A2", "A3"]);
  });

  it("a request past the script's end fails in the client, saying the script ran out", async () => {
    server = await startScriptedModelServer([{ text: "Only one turn." }]);
    const openai = new OpenAI({ apiKey: "test", baseURL: server.openaiBaseURL, maxRetries: 0 });
    const ask = () =>
      openai.chat.completions.create({ model: "m", messages: [{ role: "user", content: "Hi" }] });
    expect((await ask()).choices[0]!.message.content).toBe("Only one turn.");
    await expect(ask()).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("no turn left to play: its script had 1 turns, and this is request 2"),
    });
  });

  it("a script step that throws is a 400 naming the step, and the client is not left retrying other steps", async () => {
    server = await startScriptedModelServer([
      () => {
        throw new Error("the test's own bug");
      },
      { text: "never played" },
    ]);
    const openai = new OpenAI({ apiKey: "test", baseURL: server.openaiBaseURL });
    await expect(
      openai.chat.completions.create({ model: "m", messages: [{ role: "user", content: "Hi" }] }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("script[0] threw: the test's own bug"),
    });
    expect(server.remaining()).toBe(1);
  });

  it("arguments scripted as text that is not a JSON object are refused for Anthropic, whose input is an object", async () => {
    server = await startScriptedModelServer([{ toolCalls: [{ name: "run_code", arguments: "not json" }] }]);
    const anthropic = new Anthropic({ apiKey: "test", baseURL: server.url, maxRetries: 0 });
    await expect(
      anthropic.messages.create({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "Hi" }] }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining("script them as an object") });
  });
});

describe("cordon/testing: scriptedLanguageModel with the AI SDK", () => {
  it("generateText runs the scripted run_code call and reads the scripted answer", async () => {
    const { cm } = codeModeOfOrders();
    const model = scriptedLanguageModel(SCRIPT);
    const result = await generateText({
      model,
      system: cm.instructions,
      prompt: QUESTION,
      tools: aiSdkTools(new Toolset([cm.tool])),
      stopWhen: stepCountIs(5),
    });
    expect(result.text).toBe("The refunded orders total 17.");
    expect(lookedUp.sort()).toEqual(["A1", "A2", "A3"]);
    expect(model.requests).toHaveLength(2);
    expect(model.remaining()).toBe(0);
  });

  it("streamText does the same, streamed", async () => {
    const { cm } = codeModeOfOrders();
    const result = streamText({
      model: scriptedLanguageModel(SCRIPT),
      prompt: QUESTION,
      tools: aiSdkTools(new Toolset([cm.tool])),
      stopWhen: stepCountIs(5),
    });
    let text = "";
    for await (const delta of result.textStream) text += delta;
    expect(text).toBe("Let me add them up.The refunded orders total 17.");
  });

  it("a failed call reaches the script as an error result", async () => {
    const { cm } = codeModeOfOrders();
    const seen: { output: string; isError: boolean }[] = [];
    const result = await generateText({
      model: scriptedLanguageModel([
        runCodeTurn("throw new Error('no such order')"),
        ({ toolResults }) => {
          seen.push(...toolResults);
          return { text: "done" };
        },
      ]),
      prompt: QUESTION,
      tools: aiSdkTools(new Toolset([cm.tool])),
      stopWhen: stepCountIs(5),
    });
    expect(result.text).toBe("done");
    expect(seen).toEqual([
      { callId: "call_scripted_1_0", output: expect.stringContaining("no such order"), isError: true },
    ]);
  });

  it("a call past the script's end makes generateText reject, saying the script ran out", async () => {
    await expect(generateText({ model: scriptedLanguageModel([]), prompt: "Hi" })).rejects.toThrow(
      /no turn left to play: its script had 0 turns/,
    );
  });
});

describe("cordon/testing: a wrong script", () => {
  it.each([
    ["a turn with neither text nor tool calls", [{}], "script[0]: a turn needs text, tool calls or both"],
    ["a tool call without a name", [{ toolCalls: [{ arguments: {} }] }], "script[0]: toolCalls[0].name"],
    [
      "arguments that are an array",
      [{ toolCalls: [{ name: "x", arguments: [1] }] }],
      "toolCalls[0].arguments must be",
    ],
  ])("is refused when the model is made: %s", async (_what, script, message) => {
    const wrong = script as unknown as ScriptStep[];
    expect(() => scriptedLanguageModel(wrong)).toThrow(UserError);
    expect(() => scriptedLanguageModel(wrong)).toThrow(message);
    await expect(startScriptedModelServer(wrong)).rejects.toThrow(message);
  });

  it("runCodeTurn refuses code that is not a string", () => {
    expect(() => runCodeTurn(42 as unknown as string)).toThrow(
      "runCodeTurn: code must be a string, got number.",
    );
  });
});
