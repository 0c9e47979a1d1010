// A run that pauses for a person and resumes in another process, in an OpenAI agent loop (Chat
// Completions). Process 1 asks the model, whose code needs an approval: the run pauses, and the
// conversation and the paused call are stored. Process 2, like a later request of a web app, gets the
// person's decision, resumes the run by replay (the order lookup is not repeated; the refund runs
// once) and sends the model the result under the same tool_call_id.
// The model is scripted: a local OpenAI-compatible server on 127.0.0.1 plays it.
// Run: node --no-node-snapshot --import tsx examples/durable-openai.ts
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { codeMode, Dispatcher, type PausedToolCall, Toolset } from "cordon";
import { chatCompletionTools, chatToolMessages, runChatToolCalls } from "cordon/openai";
import { startScriptedModelServer } from "cordon/testing";
import OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
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
  messages: ChatCompletionMessageParam[];
  paused: PausedToolCall[];
}

const cm = codeMode({ tools: durableShopTools, approval: "pause", pause: { key: checkpointKey() } });
const dispatcher = new Dispatcher(new Toolset([cm.tool]));
const model = "scripted-model";

if (process.argv[2] === "--decide") {
  // Process 2: the person approved every pending call; resume them and finish the turn.
  const [, , , file, baseURL] = process.argv;
  const openai = new OpenAI({ apiKey: "scripted", baseURL });
  const stored = JSON.parse(readFileSync(file!, "utf8")) as Stored;
  for (const call of stored.paused) {
    const decisions = Object.fromEntries(call.paused.pending.map((p) => [p.id, true]));
    console.log(`process 2 (pid ${process.pid}): the person approves; resuming ${call.callId}`);
    const result = await cm.resumeCall(call, { decisions });
    console.log(`  run_code:\n    ${result.output.replaceAll("\n", "\n    ")}`);
    stored.messages.push(...chatToolMessages([result]));
  }
  const completion = await openai.chat.completions.create({ model, messages: stored.messages });
  console.log(`assistant: ${completion.choices[0]!.message.content}`);
} else {
  // Process 1: the model asks for run_code; the run pauses at the refund.
  const server = await startScriptedModelServer(DURABLE_SCRIPT);
  const openai = new OpenAI({ apiKey: "scripted", baseURL: server.openaiBaseURL });
  const messages: ChatCompletionMessageParam[] = [
    { role: "system", content: `You help a shop's support team.\n\n${cm.instructions}` },
    { role: "user", content: QUESTION },
  ];
  const completion = await openai.chat.completions.create({
    model,
    messages,
    tools: chatCompletionTools(dispatcher),
  });
  const message = completion.choices[0]!.message;
  messages.push(message);
  console.log(`assistant: ${message.content}`);
  const turn = await runChatToolCalls(dispatcher, message);
  messages.push(...turn.messages);
  for (const call of turn.paused)
    for (const p of call.paused.pending)
      console.log(
        `process 1 (pid ${process.pid}) paused: ${p.tool}(${JSON.stringify(p.args)}) waits for ${p.kind}`,
      );
  const directory = stateDirectory();
  const file = join(directory, "conversation.json");
  writeFileSync(file, JSON.stringify({ messages, paused: turn.paused } satisfies Stored));
  await cm.close(); // nothing is held while the person decides: no sandbox, no process, no timer
  await inAnotherProcess(import.meta.filename, ["--decide", file, server.openaiBaseURL]);
  rmSync(directory, { recursive: true }); // the example leaves nothing behind
  await server.close();
}
await cm.close();
