// run_code called as an MCP task (spec 2025-11-25) against a real `cordon mcp --http` process and the
// official SDK client: a gated call pauses the run, the task goes input_required, the answer given to
// tasks/result resumes it by replay, also after the server was killed and started again on the same state.

import { type ChildProcess, spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateTaskResultSchema } from "@modelcontextprotocol/sdk/experimental/tasks";
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CORDON_BIN, root } from "../cli/helpers.js";
import { callAsTask, connectStdio, statusReaches, textOf } from "./helpers.js";

const TOOLS = join(root, "test/mcp/fixtures/refund-tools.ts");
const KEY = "a test checkpoint key of enough bytes";

const REFUND_CODE = `
const order = await tools.lookup({ order: "A1" });
const refund = await tools.refund({ order: "A1", amount: order.amount });
return { refunded: refund.refunded, amount: refund.amount };
`;

let dir: string;
let refundLog: string;
let stateDir: string;
const children: ChildProcess[] = [];
const clients: Client[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "cordon-mcp-tasks-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {});
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

let fresh = 0;
function freshState(): void {
  fresh += 1;
  refundLog = join(dir, `refunds-${fresh}.log`);
  stateDir = join(dir, `state-${fresh}`);
  writeFileSync(refundLog, "");
}

/** Starts `cordon mcp --http 0` on the test's state; resolves with its URL. */
async function startServer(extra: readonly string[] = []): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [CORDON_BIN, "mcp", "--http", "0", "--tools", TOOLS, "--task-dir", stateDir, ...extra],
    {
      cwd: root,
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, CORDON_CHECKPOINT_KEY: KEY, REFUND_LOG: refundLog },
    },
  );
  children.push(child);
  let stderr = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
      const match = /serving on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`cordon mcp exited (${code}): ${stderr}`)));
  });
  return { url, child };
}

/** A client that supports form elicitation, answering each question with `answer`. */
async function connect(url: string, answer?: (message: string) => ElicitResult): Promise<Client> {
  const client = new Client(
    { name: "tasks-test", version: "1.0.0" },
    answer ? { capabilities: { elicitation: { form: {} } } } : {},
  );
  if (answer)
    client.setRequestHandler(ElicitRequestSchema, async (request) => answer(request.params.message));
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  clients.push(client);
  return client;
}

/** Reads the approval page and POSTs "allow" as its own form does; resolves with the POST's status. */
async function allowOnPage(page: string): Promise<number> {
  const html = await (await fetch(page)).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";
  const response = await fetch(page, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: new URL(page).origin,
      "sec-fetch-site": "same-origin",
    },
    body: new URLSearchParams({ csrf, decision: "allow" }).toString(),
  });
  return response.status;
}

const approve = (): ElicitResult => ({ action: "accept", content: { allow: true } });
const lines = () => readFileSync(refundLog, "utf8").split("\n").filter(Boolean);

describe("run_code as a task", () => {
  it("a gated refund waits as input_required, survives a SIGKILL of the server, and runs exactly once when answered after the restart", async () => {
    freshState();
    const first = await startServer();
    const before = await connect(first.url);
    const tools = await before.listTools();
    expect(tools.tools.find((tool) => tool.name === "run_code")?.execution?.taskSupport).toBe("optional");
    const task = await callAsTask(before, REFUND_CODE);
    expect(task.status).toBe("working");
    await statusReaches(before, task.taskId, "input_required");
    expect(lines()).toEqual(["lookup A1"]);

    first.child.kill("SIGKILL");
    await new Promise((resolve) => first.child.once("exit", resolve));
    const second = await startServer();
    const questions: string[] = [];
    const after = await connect(second.url, (message) => {
      questions.push(message);
      return approve();
    });
    expect((await after.experimental.tasks.getTask(task.taskId)).status).toBe("input_required");
    const result = await after.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.isError).toBe(false);
    expect(textOf(result)).toContain('result: {"refunded":"A1","amount":42}');
    expect(questions).toHaveLength(1);
    expect(questions[0]).toContain("refund");
    // The lookup was replayed from the checkpoint, the refund ran once.
    expect(lines()).toEqual(["lookup A1", "A1 42"]);
    expect((await after.experimental.tasks.getTask(task.taskId)).status).toBe("completed");
    // The task's files are readable by their owner only.
    const records = join(stateDir, "tasks");
    for (const name of readdirSync(records)) expect(statSync(join(records, name)).mode & 0o777).toBe(0o600);
    expect(statSync(stateDir).mode & 0o777).toBe(0o700);
  });

  it("a denied refund completes the task with the denial the code saw, and the refund never runs", async () => {
    freshState();
    const { url } = await startServer();
    const client = await connect(url, () => ({ action: "decline" }));
    const task = await callAsTask(client, REFUND_CODE);
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/denied/);
    expect(lines()).toEqual(["lookup A1"]);
  });

  it("a cancelled task runs nothing more: answering it later is refused and the refund never runs", async () => {
    freshState();
    const { url } = await startServer();
    const client = await connect(url, approve);
    const task = await callAsTask(client, REFUND_CODE);
    await statusReaches(client, task.taskId, "input_required");
    const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled.status).toBe("cancelled");
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.isError).toBe(true);
    expect(lines()).toEqual(["lookup A1"]);
    await expect(client.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(/cancelled already/);
  });

  it("cancelling a working task aborts its run: the call in flight is aborted and the refund after it never runs", async () => {
    freshState();
    const { url } = await startServer();
    const client = await connect(url, approve);
    const task = await callAsTask(client, `await tools.wait({});\n${REFUND_CODE}`);
    while (!lines().includes("wait started")) await new Promise((resolve) => setTimeout(resolve, 25));
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe("working");
    expect((await client.experimental.tasks.cancelTask(task.taskId)).status).toBe("cancelled");
    while (!lines().includes("wait aborted")) await new Promise((resolve) => setTimeout(resolve, 25));
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(textOf(result)).toContain("cancelled");
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe("cancelled");
    expect(lines()).toEqual(["wait started", "wait aborted"]);
  });

  it("tasks/list shows the connection's tasks, tasks/get the status of each", async () => {
    freshState();
    const { url } = await startServer();
    const client = await connect(url);
    const other = await connect(url);
    const a = await callAsTask(client, "return 1");
    const b = await callAsTask(client, REFUND_CODE);
    await statusReaches(client, a.taskId, "completed");
    await statusReaches(client, b.taskId, "input_required");
    const { tasks } = await client.experimental.tasks.listTasks();
    expect(tasks.map((task) => [task.taskId, task.status])).toEqual([
      [a.taskId, "completed"],
      [b.taskId, "input_required"],
    ]);
    expect((await other.experimental.tasks.listTasks()).tasks).toEqual([]);
    const done = await client.experimental.tasks.getTaskResult(a.taskId, CallToolResultSchema);
    expect(textOf(done)).toContain("result: 1");
    await expect(client.experimental.tasks.getTask("not-a-task")).rejects.toThrow(/Task not found/);
    // Only run_code runs as a task.
    await expect(
      client.request(
        { method: "tools/call", params: { name: "lookup", arguments: {}, task: { ttl: 1_000 } } },
        CreateTaskResultSchema,
      ),
    ).rejects.toThrow(/-32601.*Only run_code can be called as a task/);
  });

  it("a task expires after its ttl: tasks/get no longer finds it and its record is deleted", async () => {
    freshState();
    const { url } = await startServer();
    const client = await connect(url);
    // Long enough for the run to reach its gated call on a busy machine, short enough to wait for.
    const ttl = 5_000;
    const created = Date.now();
    const task = await callAsTask(client, REFUND_CODE, ttl);
    expect(task.ttl).toBe(ttl);
    await statusReaches(client, task.taskId, "input_required");
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, created + ttl + 100 - Date.now())));
    await expect(client.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/Task not found/);
    expect(existsSync(join(stateDir, "tasks", `${task.taskId}.json`))).toBe(false);
    expect(lines()).toEqual(["lookup A1"]);
  });

  it("a task record altered on disk is refused, and nothing of it runs", async () => {
    freshState();
    const first = await startServer();
    const client = await connect(first.url);
    const task = await callAsTask(client, REFUND_CODE);
    await statusReaches(client, task.taskId, "input_required");
    first.child.kill("SIGKILL");
    await new Promise((resolve) => first.child.once("exit", resolve));
    const file = join(stateDir, "tasks", `${task.taskId}.json`);
    const stored = JSON.parse(readFileSync(file, "utf8")) as { body: string };
    stored.body = stored.body.replace('"input_required"', '"completed"');
    writeFileSync(file, JSON.stringify(stored));
    const second = await startServer();
    const again = await connect(second.url, approve);
    await expect(again.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/was altered/);
    await expect(again.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).rejects.toThrow(
      /was altered/,
    );
    expect(lines()).toEqual(["lookup A1"]);
  });

  it("a checkpoint altered inside a re-sealed record is refused by its own seal: the task fails and the refund never runs", async () => {
    freshState();
    const first = await startServer();
    const client = await connect(first.url);
    const task = await callAsTask(client, REFUND_CODE);
    await statusReaches(client, task.taskId, "input_required");
    first.child.kill("SIGKILL");
    await new Promise((resolve) => first.child.once("exit", resolve));
    // Whoever holds the key can seal a record, but not make a checkpoint it did not seal pass.
    const file = join(stateDir, "tasks", `${task.taskId}.json`);
    const stored = JSON.parse(readFileSync(file, "utf8")) as { body: string };
    const record = JSON.parse(stored.body) as { checkpoint: string };
    const middle = Math.floor(record.checkpoint.length / 2);
    const flipped = record.checkpoint[middle] === "A" ? "B" : "A";
    record.checkpoint = record.checkpoint.slice(0, middle) + flipped + record.checkpoint.slice(middle + 1);
    const body = JSON.stringify(record);
    const recordKey = createHmac("sha256", Buffer.from(KEY)).update("cordon mcp task records v1").digest();
    const mac = createHmac("sha256", recordKey).update(body).digest("base64url");
    writeFileSync(file, JSON.stringify({ v: 1, body, mac }));
    const second = await startServer();
    const again = await connect(second.url, approve);
    const result = await again.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/could not go on: .*(altered|malformed)/);
    expect((await again.experimental.tasks.getTask(task.taskId)).status).toBe("failed");
    expect(lines()).toEqual(["lookup A1"]);
  });

  it("a question (ask_human) in a task is asked with a form on tasks/result, and the code gets the answer", async () => {
    freshState();
    const { url } = await startServer();
    const asked: string[] = [];
    const client = await connect(url, (message) => {
      asked.push(message);
      return { action: "accept", content: { answer: "blue" } };
    });
    const task = await callAsTask(
      client,
      'return "colour: " + (await tools.ask_human({ question: "Which colour?" }));',
    );
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(textOf(result)).toContain('result: "colour: blue"');
    expect(asked).toEqual(["Code running in cordon's sandbox asks: Which colour?"]);
  });

  it("a client that supports only URL-mode elicitation decides on cordon's approval page", async () => {
    freshState();
    const { url } = await startServer();
    const client = new Client(
      { name: "url-only", version: "1.0.0" },
      { capabilities: { elicitation: { url: {} } } },
    );
    const decided: Promise<number>[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const page = (request.params as { url?: string }).url!;
      decided.push(allowOnPage(page));
      return { action: "accept" };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    clients.push(client);
    const task = await callAsTask(client, REFUND_CODE);
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(await Promise.all(decided)).toEqual([200]);
    expect(result.isError).toBe(false);
    expect(lines()).toEqual(["lookup A1", "A1 42"]);
  });

  it("with --approve all the refund runs without asking anyone, and the task completes", async () => {
    freshState();
    const { url } = await startServer(["--approve", "all"]);
    const asked: string[] = [];
    const client = await connect(url, (message) => {
      asked.push(message);
      return { action: "decline" };
    });
    const task = await callAsTask(client, REFUND_CODE);
    await statusReaches(client, task.taskId, "completed");
    expect(asked).toEqual([]);
    expect(lines()).toEqual(["lookup A1", "A1 42"]);
  });

  it("over stdio too: a gated refund called as a task is answered through tasks/result and runs once", async () => {
    freshState();
    process.env.REFUND_LOG = refundLog;
    try {
      const mcp = await connectStdio(["--tools", TOOLS, "--task-dir", stateDir], approve);
      clients.push(mcp.client);
      const task = await callAsTask(mcp.client, REFUND_CODE);
      const result = await mcp.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
      expect(result.isError).toBe(false);
      expect(mcp.questions).toHaveLength(1);
      expect(lines()).toEqual(["lookup A1", "A1 42"]);
    } finally {
      delete process.env.REFUND_LOG;
    }
  });

  it("a client without tasks is unchanged: its run_code call waits for the approval on its own request", async () => {
    freshState();
    const { url } = await startServer();
    const client = await connect(url, approve);
    const result = await client.callTool({ name: "run_code", arguments: { code: REFUND_CODE } });
    expect(result.isError).toBe(false);
    expect(lines()).toEqual(["lookup A1", "A1 42"]);
    expect(existsSync(join(stateDir, "tasks"))).toBe(false);
  });
});
