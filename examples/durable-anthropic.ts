// A run that pauses for a person and resumes in another process, in an Anthropic Messages agent loop.
// Process 1 asks the model, whose code needs an approval: the run pauses, and the conversation, the
// results already final and the paused call are stored. Process 2, like a later request of a web app,
// gets the person's decision, resumes the run by replay and answers every tool_use of the turn in one
// user message, as Anthropic requires.
// The model is scripted: a local Anthropic-compatible server on 127.0.0.1 plays it.
// Run: node --no-node-snapshot --import tsx examples/durable-anthropic.ts
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages/messages";
import { codeMode, Dispatcher, type PausedToolCall, type ToolResult, Toolset } from "cordon";
import { anthropicTools, finalResults, runToolUses, toolResultBlocks } from "cordon/anthropic";
import { startScriptedModelServer } from "cordon/testing";
import {
  checkpointKey,
  DURABLE_SCRIPT,
  durableShopTools,
  inAnotherProcess,
  QUESTION,
  stateDirectory,
} from "./durable-shop.js";

/** What the app stores between the two requests (in a database, in production). */
interface Stored {
  messages: MessageParam[];
  /** The turn's results that are final already. */
  results: ToolResult[];
  paused: PausedToolCall[];
}

const cm = codeMode({ tools: durableShopTools, approval: "pause", pause: { key: checkpointKey() } });
const dispatcher = new Dispatcher(new Toolset([cm.tool]));
const model = "scripted-model";
const system = `You help a shop's support team.\n\n${cm.instructions}`;

if (process.argv[2] === "--decide") {
  // Process 2: the person approved every pending call; resume them and finish the turn.
  const [, , , file, baseURL] = process.argv;
  const anthropic = new Anthropic({ apiKey: "scripted", baseURL });
  const stored = JSON.parse(readFileSync(file!, "utf8")) as Stored;
  const results = [...stored.results];
  for (const call of stored.paused) {
    const decisions = Object.fromEntries(call.paused.pending.map((p) => [p.id, true]));
    console.log(`process 2 (pid ${process.pid}): the person approves; resuming ${call.callId}`);
    const result = await cm.resumeCall(call, { decisions });
    console.log(`  run_code:\n    ${result.output.replaceAll("\n", "\n    ")}`);
    results.push(result);
  }
  stored.messages.push({ role: "user", content: toolResultBlocks(results) });
  const response = await anthropic.messages.create({
    model,
    max_tokens: 1_000,
    system,
    messages: stored.messages,
  });
  const text = response.content.find((block) => block.type === "text");
  console.log(`assistant: ${text?.type === "text" ? text.text : ""}`);
} else {
  // Process 1: the model asks for run_code; the run pauses at the refund.
  const server = await startScriptedModelServer(DURABLE_SCRIPT);
  const anthropic = new Anthropic({ apiKey: "scripted", baseURL: server.url });
  const messages: MessageParam[] = [{ role: "user", content: QUESTION }];
  const response = await anthropic.messages.create({
    model,
    max_tokens: 1_000,
    system,
    messages,
    tools: anthropicTools(dispatcher),
  });
  messages.push({ role: "assistant", content: response.content });
  const turn = await runToolUses(dispatcher, response);
  for (const call of turn.paused)
    for (const p of call.paused.pending)
      console.log(
        `process 1 (pid ${process.pid}) paused: ${p.tool}(${JSON.stringify(p.args)}) waits for ${p.kind}`,
      );
  const directory = stateDirectory();
  const file = join(directory, "conversation.json");
  const stored: Stored = { messages, results: finalResults(turn.results), paused: turn.paused };
  writeFileSync(file, JSON.stringify(stored));
  await cm.close(); // nothing is held while the person decides: no sandbox, no process, no timer
  await inAnotherProcess(import.meta.filename, ["--decide", file, server.url]);
  rmSync(directory, { recursive: true }); // the example leaves nothing behind
  await server.close();
}
await cm.close();
