// A run that pauses for a person and resumes in another process, with the Vercel AI SDK. The call from
// code that needs approval becomes the AI SDK's own approval request for run_code (what `useChat` UIs
// show as Allow and Deny). Process 1 stops there and stores the conversation; process 2, like the next
// request after the person's click, sends the approval: the AI SDK executes run_code, which resumes the
// paused run by replay from the shared checkpoint store.
// The model is scripted: a local OpenAI-compatible server on 127.0.0.1 plays it.
// Run: node --no-node-snapshot --import tsx examples/durable-ai-sdk.ts
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, type ModelMessage, stepCountIs } from "ai";
import { codeMode, fileCheckpointStore, Toolset } from "cordon";
import { aiSdkTools, pausedRunCode } from "cordon/ai-sdk";
import { startScriptedModelServer } from "cordon/testing";
import {
  checkpointKey,
  DURABLE_SCRIPT,
  durableShopTools,
  inAnotherProcess,
  QUESTION,
  stateDirectory,
} from "./durable-shop.js";

const [mode, directory = stateDirectory(), baseURL] = process.argv.slice(2);
const cm = codeMode({ tools: durableShopTools, approval: "pause", pause: { key: checkpointKey() } });
// Where paused runs wait for the approval: a store both processes reach (a directory here).
const pausing = { codeMode: cm, store: fileCheckpointStore(join(directory, "checkpoints")) };
const tools = aiSdkTools(new Toolset([cm.tool]), { pausing });
const system = `You help a shop's support team.\n\n${cm.instructions}`;
const file = join(directory, "conversation.json");

if (mode === "--decide") {
  // Process 2: the person clicked Allow; the AI SDK runs the approved run_code, which resumes.
  const provider = createOpenAI({ apiKey: "scripted", baseURL });
  const { messages, approvalId } = JSON.parse(readFileSync(file, "utf8")) as {
    messages: ModelMessage[];
    approvalId: string;
  };
  console.log(`process 2 (pid ${process.pid}): the person approves ${approvalId}`);
  messages.push({ role: "tool", content: [{ type: "tool-approval-response", approvalId, approved: true }] });
  const result = await generateText({
    model: provider.chat("scripted-model"),
    system,
    messages,
    tools,
    stopWhen: stepCountIs(5),
  });
  console.log(`assistant: ${result.text}`);
} else {
  // Process 1: the model asks for run_code; its code needs an approval, which the AI SDK asks for.
  const server = await startScriptedModelServer(DURABLE_SCRIPT);
  const provider = createOpenAI({ apiKey: "scripted", baseURL: server.openaiBaseURL });
  const messages: ModelMessage[] = [{ role: "user", content: QUESTION }];
  const result = await generateText({
    model: provider.chat("scripted-model"),
    system,
    messages,
    tools,
    stopWhen: stepCountIs(5),
  });
  const request = result.content.find((part) => part.type === "tool-approval-request");
  if (!request) throw new Error("expected the AI SDK to ask for approval of run_code");
  const waiting = await pausedRunCode(pausing, request.toolCall.toolCallId);
  for (const p of waiting?.pending ?? [])
    console.log(`process 1 (pid ${process.pid}) approval requested: ${p.tool}(${JSON.stringify(p.args)})`);
  messages.push(...result.response.messages);
  writeFileSync(file, JSON.stringify({ messages, approvalId: request.approvalId }));
  await cm.close(); // nothing is held while the person decides: no sandbox, no process, no timer
  await inAnotherProcess(import.meta.filename, ["--decide", directory, server.openaiBaseURL]);
  rmSync(directory, { recursive: true }); // the example leaves nothing behind
  await server.close();
}
await cm.close();
