import Anthropic from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages/messages";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isolateEnvironment } from "../../src/entries/in-process.js";
import { type ScriptedModelServer, startScriptedModelServer } from "../../src/entries/testing.js";
import { type CodeMode, codeMode, Dispatcher, Toolset } from "../../src/index.js";
import {
  anthropicTools,
  finalResults,
  runToolUses,
  toolResultBlocks,
  toolUseCalls,
} from "../../src/providers/anthropic.js";
import { getOrder, listOrders, lookedUp, REFUND_TOTAL_CODE, refund, waitForever } from "./tools.js";

const MODEL = "scripted-model";

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

function client(s: ScriptedModelServer): Anthropic {
  return new Anthropic({ apiKey: "scripted", baseURL: s.url, maxRetries: 0 });
}

/** Runs the agent loop until the model stops asking for tools; returns the final text and the history. */
async function agentLoop(anthropic: Anthropic, dispatcher: Dispatcher, system: string, question: string) {
  const messages: MessageParam[] = [{ role: "user", content: question }];
  for (let turn = 0; turn < 5; turn++) {
    const response = await anthropic.messages.create({
      model: MODEL,
      max_tokens: 1024,
      system,
      messages,
      tools: anthropicTools(dispatcher),
    });
    messages.push({ role: "assistant", content: response.content });
    if (response.stop_reason !== "tool_use") {
      const text = response.content.map((block) => (block.type === "text" ? block.text : "")).join("");
      return { text, messages };
    }
    const { message } = await runToolUses(dispatcher, response);
    messages.push(message);
  }
  throw new Error("the loop did not end");
}

describe("cordon/anthropic", () => {
  it("tool definitions use input_schema", () => {
    expect(anthropicTools([getOrder])).toEqual([
      { name: "get_order", description: "Look up one order by id.", input_schema: getOrder.parameters },
    ]);
  });

  it("toolUseCalls takes tool_use blocks and passes their input on as parsed arguments", () => {
    const calls = toolUseCalls({
      content: [
        { type: "text", text: "Let me look.", citations: null },
        {
          type: "tool_use",
          id: "toolu_1",
          name: "get_order",
          input: { order_id: "A1" },
          caller: { type: "direct" },
        },
      ],
    });
    expect(calls).toEqual([{ id: "toolu_1", name: "get_order", arguments: { order_id: "A1" } }]);
    expect(toolUseCalls({ content: "just text" })).toEqual([]);
  });

  it("(scripted model) the model asks for run_code, the code calls tools, the result goes back, the model answers", async () => {
    server = await startScriptedModelServer([
      {
        text: "I will compute it.",
        toolCalls: [{ name: "run_code", arguments: { code: REFUND_TOTAL_CODE } }],
      },
      ({ toolResults }) => ({
        text: `The refunded orders total ${/result: (\d+)/.exec(toolResults[0]!.output)?.[1]}.`,
      }),
    ]);
    cm = codeMode({ tools: [listOrders, getOrder], environment: isolateEnvironment() });
    const dispatcher = new Dispatcher(new Toolset([cm.tool]));
    const { text, messages } = await agentLoop(
      client(server),
      dispatcher,
      cm.instructions,
      "Total the refunds.",
    );
    expect(text).toBe("The refunded orders total 17.");
    expect(lookedUp.sort()).toEqual(["A1", "A2", "A3"]);
    expect(messages[2]).toEqual({
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_scripted_1_0",
          content: expect.stringContaining("result: 17"),
        },
      ],
    });
    expect(server.requests[0]!.body.tools).toEqual([
      expect.objectContaining({
        name: "run_code",
        input_schema: expect.objectContaining({ type: "object" }),
      }),
    ]);
  });

  it("(scripted model) failed calls come back with is_error, successful ones without", async () => {
    server = await startScriptedModelServer([
      {
        toolCalls: [
          { name: "get_order", arguments: { order_id: "A1" } },
          { name: "get_order", arguments: { order_id: "Z9" } },
          { name: "get_order", arguments: { order_id: 12 } },
        ],
      },
      ({ toolResults }) => ({ text: toolResults.map((r) => `${r.callId}:${r.isError}`).join(",") }),
    ]);
    const dispatcher = new Dispatcher(new Toolset([getOrder]));
    const { text, messages } = await agentLoop(client(server), dispatcher, "", "Look up orders.");
    expect(text).toBe("toolu_scripted_1_0:false,toolu_scripted_1_1:true,toolu_scripted_1_2:true");
    const blocks = messages[2]!.content as { content: string }[];
    expect(blocks[1]!.content).toBe("Tool error: Order Z9 does not exist.");
    expect(blocks[2]!.content).toContain("Invalid arguments for get_order");
  });

  // The run_code tool does not yet report a failed run as a failed call (ToolResult.ok stays true for a
  // run whose status is not "ok"); another change in flight makes it so. Flip this to `it` once it lands.
  it("(scripted model) a run_code run that failed comes back with is_error", async () => {
    server = await startScriptedModelServer([
      {
        toolCalls: [
          { name: "run_code", arguments: { code: "const x = await tools.get_order({ order_id: 'Z9' });" } },
        ],
      },
      ({ toolResults }) => ({ text: String(toolResults[0]!.isError) }),
    ]);
    cm = codeMode({ tools: [getOrder], environment: isolateEnvironment() });
    const dispatcher = new Dispatcher(new Toolset([cm.tool]));
    const { text, messages } = await agentLoop(client(server), dispatcher, cm.instructions, "Look up Z9.");
    expect((messages[2]!.content as { content: string }[])[0]!.content).toContain("status: error");
    expect(text).toBe("true");
  });

  it("(scripted model) a cancelled turn answers every tool_use, and the provider accepts the history", async () => {
    server = await startScriptedModelServer([
      {
        toolCalls: [
          { name: "wait_forever", arguments: {} },
          { name: "get_order", arguments: { order_id: "A1" } },
        ],
      },
      ({ toolResults }) => ({ text: toolResults.map((r) => r.output).join(" / ") }),
    ]);
    const dispatcher = new Dispatcher(new Toolset([waitForever, getOrder]), { maxConcurrency: 1 });
    const anthropic = client(server);
    const messages: MessageParam[] = [{ role: "user", content: "Wait." }];
    const first = await anthropic.messages.create({ model: MODEL, max_tokens: 100, messages });
    messages.push({ role: "assistant", content: first.content });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const turn = await runToolUses(dispatcher, first, { signal: controller.signal });
    messages.push(turn.message);
    expect(turn.message.content.map((b) => [b.tool_use_id, b.is_error])).toEqual([
      ["toolu_scripted_1_0", true],
      ["toolu_scripted_1_1", true],
    ]);
    const second = await anthropic.messages.create({ model: MODEL, max_tokens: 100, messages });
    expect(second.content[0]).toMatchObject({ type: "text", text: expect.stringContaining("was not run") });
  });

  it("the scripted server rejects a tool_use without its tool_result, as the provider does", async () => {
    server = await startScriptedModelServer([
      { toolCalls: [{ name: "get_order", arguments: { order_id: "A1" } }] },
      { text: "never reached" },
    ]);
    const anthropic = client(server);
    const first = await anthropic.messages.create({
      model: MODEL,
      max_tokens: 100,
      messages: [{ role: "user", content: "Look up A1." }],
    });
    const messages: MessageParam[] = [
      { role: "user", content: "Look up A1." },
      { role: "assistant", content: first.content },
      { role: "user", content: toolResultBlocks([]) },
    ];
    await expect(
      anthropic.messages.create({ model: MODEL, max_tokens: 100, messages }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("`tool_use` ids were found without `tool_result` blocks"),
    });
  });
});

describe("cordon/anthropic with runs that pause (scripted model)", () => {
  it("a paused run_code call has no tool_result yet; once resumed, one user message answers every tool_use of the turn", async () => {
    server = await startScriptedModelServer([
      {
        toolCalls: [
          { name: "get_order", arguments: { order_id: "A1" } },
          {
            name: "run_code",
            arguments: { code: `return await tools.refund({ order_id: "A3" });` },
          },
        ],
      },
      ({ toolResults }) => ({
        text: toolResults.map((r) => r.output.includes("A3") || r.output.includes("A1")).join(","),
      }),
    ]);
    cm = codeMode({
      tools: [refund],
      environment: isolateEnvironment(),
      approval: "pause",
      pause: { key: "an app's checkpoint key of 32 bytes" },
    });
    const dispatcher = new Dispatcher(new Toolset([getOrder, cm.tool]));
    const anthropic = client(server);
    const messages: MessageParam[] = [{ role: "user", content: "Look up A1 and refund A3." }];
    const response = await anthropic.messages.create({
      model: MODEL,
      max_tokens: 1_000,
      messages,
      tools: anthropicTools(dispatcher),
    });
    messages.push({ role: "assistant", content: response.content });
    const turn = await runToolUses(dispatcher, response);
    expect(turn.message.content.map((block) => block.tool_use_id)).toEqual(["toolu_scripted_1_0"]);
    expect(turn.paused.map((call) => call.callId)).toEqual(["toolu_scripted_1_1"]);
    const [call] = turn.paused;
    const resumed = await cm.resumeCall(call!, { decisions: { [call!.paused.pending[0]!.id]: true } });
    messages.push({ role: "user", content: toolResultBlocks([...finalResults(turn.results), resumed]) });
    const next = await anthropic.messages.create({ model: MODEL, max_tokens: 1_000, messages });
    expect(next.content).toEqual([expect.objectContaining({ type: "text", text: "true,true" })]);
  });
});
