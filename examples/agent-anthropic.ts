// An Anthropic agent loop (Messages API) where the model writes code against your tools.
// The model is scripted: a local Anthropic-compatible server on 127.0.0.1 plays it. For a real model,
// drop the server and use `new Anthropic()` (ANTHROPIC_API_KEY) with a model name like "claude-sonnet-4-5".
// Run: node --no-node-snapshot --import tsx examples/agent-anthropic.ts
import Anthropic from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages/messages";
import { codeMode, Dispatcher, Toolset } from "cordon";
import { anthropicTools, runToolUses } from "cordon/anthropic";
import { startScriptedModelServer } from "cordon/testing";
import { QUESTION, REFUND_SCRIPT } from "./scripted-refund-model.js";
import { shopTools } from "./shop-tools.js";

const server = await startScriptedModelServer(REFUND_SCRIPT);
const anthropic = new Anthropic({ apiKey: "scripted", baseURL: server.url });
const model = "scripted-model";

// 1. Code mode over your tools; the model sees one tool, run_code.
const cm = codeMode({ tools: shopTools });
const dispatcher = new Dispatcher(new Toolset([cm.tool]));

// 2. Your agent loop, unchanged but for the two cordon calls.
const messages: MessageParam[] = [{ role: "user", content: QUESTION }];
for (let step = 0; step < 10; step++) {
  const response = await anthropic.messages.create({
    model,
    max_tokens: 4096,
    system: `You help a shop's support team.\n\n${cm.instructions}`,
    messages,
    tools: anthropicTools(dispatcher),
  });
  messages.push({ role: "assistant", content: response.content });
  for (const block of response.content) if (block.type === "text") console.log(`assistant: ${block.text}`);
  if (response.stop_reason !== "tool_use") break;
  const turn = await runToolUses(dispatcher, response); // one tool_result per tool_use, is_error when it failed
  for (const result of turn.results)
    console.log(`  ${result.name} (${result.callId}):\n    ${result.output.replaceAll("\n", "\n    ")}`);
  messages.push(turn.message);
}

await cm.close();
await server.close();
