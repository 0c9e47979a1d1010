// A Vercel AI SDK agent (generateText with tools) where the model writes code against your tools.
// The model is scripted: a local OpenAI-compatible server on 127.0.0.1 plays it, reached through the
// AI SDK's own OpenAI provider. For a real model, use `openai("gpt-4.1")` from "@ai-sdk/openai" (or any
// other AI SDK provider) and drop the server.
// Run: node --no-node-snapshot --import tsx examples/agent-ai-sdk.ts
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, stepCountIs } from "ai";
import { codeMode, Toolset } from "cordon";
import { aiSdkTools } from "cordon/ai-sdk";
import { startScriptedModelServer } from "cordon/testing";
import { QUESTION, REFUND_SCRIPT } from "./scripted-refund-model.js";
import { shopTools } from "./shop-tools.js";

const server = await startScriptedModelServer(REFUND_SCRIPT);
const provider = createOpenAI({ apiKey: "scripted", baseURL: server.openaiBaseURL });

// Code mode over your tools; the model sees one tool, run_code, which the AI SDK calls through cordon.
const cm = codeMode({ tools: shopTools });

const result = await generateText({
  model: provider.chat("scripted-model"),
  system: `You help a shop's support team.\n\n${cm.instructions}`,
  prompt: QUESTION,
  tools: aiSdkTools(new Toolset([cm.tool])),
  stopWhen: stepCountIs(10),
});
for (const step of result.steps) {
  if (step.text) console.log(`assistant: ${step.text}`);
  for (const part of step.content) {
    if (part.type === "tool-result")
      console.log(
        `  ${part.toolName} (${part.toolCallId}):\n    ${String(part.output).replaceAll("\n", "\n    ")}`,
      );
    if (part.type === "tool-error")
      console.log(`  ${part.toolName} (${part.toolCallId}) failed: ${String(part.error)}`);
  }
}

await cm.close();
await server.close();
