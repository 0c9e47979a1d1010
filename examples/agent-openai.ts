// An OpenAI agent loop (Chat Completions) where the model writes code against your tools.
// The model is scripted: a local OpenAI-compatible server on 127.0.0.1 plays it. For a real model,
// drop the server and use `new OpenAI()` (OPENAI_API_KEY) with a model name like "gpt-4.1".
// Run: node --no-node-snapshot --import tsx examples/agent-openai.ts
import { codeMode, Dispatcher, Toolset } from "cordon";
import { chatCompletionTools, runChatToolCalls } from "cordon/openai";
import { startScriptedModelServer } from "cordon/testing";
import OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { QUESTION, REFUND_SCRIPT } from "./scripted-refund-model.js";
import { shopTools } from "./shop-tools.js";

const server = await startScriptedModelServer(REFUND_SCRIPT);
const openai = new OpenAI({ apiKey: "scripted", baseURL: server.openaiBaseURL });
const model = "scripted-model";

// 1. Code mode over your tools; the model sees one tool, run_code.
const cm = codeMode({ tools: shopTools });
const dispatcher = new Dispatcher(new Toolset([cm.tool]));

// 2. Your agent loop, unchanged but for the two cordon calls.
const messages: ChatCompletionMessageParam[] = [
  { role: "system", content: `You help a shop's support team.\n\n${cm.instructions}` },
  { role: "user", content: QUESTION },
];
for (let step = 0; step < 10; step++) {
  const completion = await openai.chat.completions.create({
    model,
    messages,
    tools: chatCompletionTools(dispatcher),
  });
  const message = completion.choices[0]!.message;
  messages.push(message);
  if (!message.tool_calls?.length) {
    console.log(`assistant: ${message.content}`);
    break;
  }
  if (message.content) console.log(`assistant: ${message.content}`);
  const turn = await runChatToolCalls(dispatcher, message); // one tool message per call, always
  for (const result of turn.results)
    console.log(`  ${result.name} (${result.callId}):\n    ${result.output.replaceAll("\n", "\n    ")}`);
  messages.push(...turn.messages);
}

await cm.close();
await server.close();
