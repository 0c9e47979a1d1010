/** Connects the official MCP client to a real `cordon mcp` process, over stdio or Streamable HTTP. */

import { spawn } from "node:child_process";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateTaskResultSchema } from "@modelcontextprotocol/sdk/experimental/tasks";
import {
  type CallToolResult,
  type CreateMessageRequestParams,
  CreateMessageRequestSchema,
  type CreateMessageResult,
  ElicitRequestSchema,
  type ElicitResult,
  ListRootsRequestSchema,
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
  type Root,
  type Task,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { CORDON_BIN, root } from "../cli/helpers.js";

/** The command that starts the test upstream MCP server (the SDK's McpServer over stdio). */
export const UPSTREAM_COMMAND = `${process.execPath} --import tsx ${join(root, "test/mcp/fixtures/upstream-server.ts")}`;

/** The command that starts the asking test upstream (fixtures/asking-server.ts: elicitation, sampling, roots, progress). */
export const ASKING_COMMAND = `${process.execPath} --import tsx ${join(root, "test/mcp/fixtures/asking-server.ts")}`;

/** How the test client answers elicitation requests; absent: the client does not support elicitation. */
export type ElicitAnswer = (message: string) => ElicitResult;

/** What else the test client declares and answers (each absent: the client does not support it). */
export interface MoreClientOptions {
  /** Answers sampling requests. */
  sampling?: (params: CreateMessageRequestParams) => CreateMessageResult;
  /** The client's roots, read at each request (change the array to change them). */
  roots?: Root[];
}

/** A connected client, what cordon logged on stderr, and how many list_changed notifications arrived. */
export interface Connected {
  client: Client;
  stderr: () => string;
  listChanged: () => number;
  /** The messages of the elicitation requests the client received. */
  questions: string[];
  /** The elicitation requests themselves (message and requested schema). */
  elicitations: unknown[];
  /** The log messages (`notifications/message`) the client received. */
  logs: LoggingMessageNotification["params"][];
  close(): Promise<void>;
}

function newClient(
  answer: ElicitAnswer | undefined,
  questions: string[],
  onListChanged: () => void,
  elicitations: unknown[] = [],
  elicitation: Record<string, object> = { form: {} },
  more: MoreClientOptions = {},
  logs: LoggingMessageNotification["params"][] = [],
): Client {
  const capabilities = {
    ...(answer ? { elicitation } : {}),
    ...(more.sampling ? { sampling: {} } : {}),
    ...(more.roots ? { roots: { listChanged: true } } : {}),
  };
  const client = new Client(
    { name: "cordon-test-client", version: "1.0.0" },
    Object.keys(capabilities).length > 0 ? { capabilities } : {},
  );
  const { sampling, roots } = more;
  if (sampling)
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => sampling(request.params));
  if (roots) client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots }));
  client.setNotificationHandler(LoggingMessageNotificationSchema, async (notification) => {
    logs.push(notification.params);
  });
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      questions.push(request.params.message);
      elicitations.push(request.params);
      return answer(request.params.message);
    });
  }
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => onListChanged());
  return client;
}

/** Starts `cordon mcp ...args` and connects the official client over stdio. */
export async function connectStdio(
  args: readonly string[],
  answer?: ElicitAnswer,
  /** The elicitation modes the client declares (with an `answer`): form mode unless said. */
  elicitation?: Record<string, object>,
  more?: MoreClientOptions,
): Promise<Connected> {
  let stderr = "";
  let changes = 0;
  const questions: string[] = [];
  const elicitations: unknown[] = [];
  const logs: LoggingMessageNotification["params"][] = [];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CORDON_BIN, "mcp", ...args],
    cwd: root,
    stderr: "pipe",
    env: { ...(process.env as Record<string, string>) },
  });
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const client = newClient(answer, questions, () => changes++, elicitations, elicitation, more, logs);
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    listChanged: () => changes,
    questions,
    elicitations,
    logs,
    close: () => client.close(),
  };
}

/** Starts `cordon mcp --http 0 ...args`, waits for its URL on stderr, and connects over Streamable HTTP. */
export async function connectHttp(
  args: readonly string[],
  answer?: ElicitAnswer,
  more?: MoreClientOptions,
): Promise<Connected & { url: string }> {
  const child = spawn(process.execPath, [CORDON_BIN, "mcp", "--http", "0", ...args], {
    cwd: root,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`cordon mcp --http printed no URL: ${stderr}`)), 30_000);
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
      const match = /serving on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.on("exit", (code) => reject(new Error(`cordon mcp --http exited (${code}): ${stderr}`)));
  });
  let changes = 0;
  const questions: string[] = [];
  const elicitations: unknown[] = [];
  const logs: LoggingMessageNotification["params"][] = [];
  const client = newClient(answer, questions, () => changes++, elicitations, undefined, more, logs);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    client,
    url,
    stderr: () => stderr,
    listChanged: () => changes,
    questions,
    elicitations,
    logs,
    async close() {
      await client.close();
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** The text of a tool result's content. */
export function textOf(result: unknown): string {
  return ((result as CallToolResult).content ?? [])
    .map((block) => (block.type === "text" ? block.text : `[${block.type}]`))
    .join("\n");
}

/** Calls run_code with `code`. */
export async function runCode(client: Client, code: string): Promise<CallToolResult> {
  return (await client.callTool({ name: "run_code", arguments: { code } })) as CallToolResult;
}

/**
 * Runs `code` and parses the value it returned (the report's `result:` line, as JSON); throws with the
 * whole report when the run failed or returned nothing.
 */
export async function returnedBy(connected: Pick<Connected, "client">, code: string): Promise<unknown> {
  const result = await runCode(connected.client, code);
  const text = textOf(result);
  const value = /^result: (.*)$/m.exec(text)?.[1];
  if (result.isError === true || value === undefined) {
    throw new Error(`the run did not return a value:\n${text}`);
  }
  return JSON.parse(value);
}

/** Calls run_code with `code` as a task (kept `ttl` ms); resolves with the task as created. */
export async function callAsTask(client: Client, code: string, ttl = 600_000): Promise<Task> {
  const created = await client.request(
    { method: "tools/call", params: { name: "run_code", arguments: { code }, task: { ttl } } },
    CreateTaskResultSchema,
  );
  return created.task;
}

/** Polls tasks/get until the task has `status`; throws if it ends in another. */
export async function statusReaches(client: Client, taskId: string, status: Task["status"]): Promise<Task> {
  for (;;) {
    const task = await client.experimental.tasks.getTask(taskId);
    if (task.status === status) return task;
    if (["completed", "failed", "cancelled"].includes(task.status)) {
      throw new Error(`task ${taskId} is ${task.status} (${task.statusMessage}), not ${status}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
