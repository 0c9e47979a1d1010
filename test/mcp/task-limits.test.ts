/**
 * The bounds and notices of run_code called as a task, against cordon's HTTP server in this process and
 * the official SDK client: a tenant's live tasks are capped, tasks/list pages with a cursor, and the
 * session that follows a task is sent notifications/tasks/status at each change of its status.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListTasksResultSchema,
  McpError,
  type Task,
  TaskStatusNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import { fileCheckpointStore } from "../../src/codemode/pause/checkpoint-store.js";
import { tool } from "../../src/index.js";
import { ToolCatalog } from "../../src/mcp/catalog.js";
import { CodeHost } from "../../src/mcp/code-host.js";
import { type HttpServing, serveHttp } from "../../src/mcp/http.js";
import { MAX_LIVE_TASKS, McpTasks, TASKS_PAGE_SIZE } from "../../src/mcp/run-tasks.js";
import { TaskRecords } from "../../src/mcp/task-records.js";
import { callAsTask, statusReaches } from "./helpers.js";

const refund = tool({
  name: "refund",
  description: "Refunds an order; every call needs a person's approval.",
  input: z.object({ order: z.string() }),
  needsApproval: true,
  run: ({ order }) => ({ refunded: order }),
});

const GATED = `return await tools.refund({ order: "A1" });`;

let dir: string;
let served = 0;
const opened: { serving: HttpServing; host: CodeHost; tasks: McpTasks; clients: Client[] }[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "cordon-task-limits-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  for (const { serving, host, tasks, clients } of opened.splice(0)) {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    tasks.close();
    await serving.close();
    await host.close();
  }
});

/** cordon's HTTP server with tasks on a fresh folder; `connect` makes a task-capable SDK client. */
async function serve() {
  served += 1;
  const key = Buffer.from("a test checkpoint key of enough bytes");
  const folder = join(dir, `state-${served}`);
  const host = new CodeHost({
    catalog: new ToolCatalog({ local: [refund], upstreams: [], timeoutMs: 5_000, log: () => {} }),
    environment: isolateEnvironment(),
    pause: { key, store: fileCheckpointStore(join(folder, "checkpoints")) },
  });
  const tasks = new McpTasks({ host, records: new TaskRecords(join(folder, "tasks"), key), policy: "ask" });
  const serving = await serveHttp({ host, approve: "ask", version: "test", port: 0, log: () => {}, tasks });
  const clients: Client[] = [];
  opened.push({ serving, host, tasks, clients });
  const connect = async (options: { approve?: boolean } = {}) => {
    const client = new Client(
      { name: "task-limits-test", version: "1.0.0" },
      options.approve ? { capabilities: { elicitation: { form: {} } } } : {},
    );
    if (options.approve) {
      client.setRequestHandler(ElicitRequestSchema, async () => ({
        action: "accept",
        content: { allow: true },
      }));
    }
    await client.connect(new StreamableHTTPClientTransport(new URL(serving.url)));
    clients.push(client);
    return client;
  };
  return { connect };
}

/** Collects the status notifications `client` receives, and waits for one. */
function statusNotices(client: Client) {
  const seen: Task[] = [];
  const waiters = new Set<() => void>();
  client.setNotificationHandler(TaskStatusNotificationSchema, (notification) => {
    const { _meta: _, ...task } = notification.params;
    seen.push(task as Task);
    for (const waiter of waiters) waiter();
  });
  const statusesOf = (taskId: string) =>
    seen.filter((task) => task.taskId === taskId).map((task) => task.status);
  return {
    statusesOf,
    /** Resolves once the task's notices end with `status`. */
    reach: (taskId: string, status: Task["status"]) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (statusesOf(taskId).at(-1) !== status) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      }),
  };
}

describe("live tasks per tenant", () => {
  it(`refuses a task beyond ${MAX_LIVE_TASKS} working or waiting with a clear error, and takes one again once one of them is cancelled`, async () => {
    const { connect } = await serve();
    const client = await connect();
    const waiting: Task[] = [];
    for (let i = 0; i < MAX_LIVE_TASKS; i++) waiting.push(await callAsTask(client, GATED));
    for (const task of waiting) await statusReaches(client, task.taskId, "input_required");
    const refused = await callAsTask(client, GATED).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).code).toBe(ErrorCode.InvalidRequest);
    expect((refused as McpError).message).toContain(
      `${MAX_LIVE_TASKS} tasks are working or waiting for input already, the most this server's clients may have together at once (${MAX_LIVE_TASKS}): answer a waiting one with tasks/result, wait for one to finish, or cancel one with tasks/cancel, then call again.`,
    );
    await client.experimental.tasks.cancelTask(waiting[0]!.taskId);
    const again = await callAsTask(client, GATED);
    expect(again.status).toBe("working");
  });

  it("does not count terminal tasks: a tenant whose tasks ended may start as many again", async () => {
    const { connect } = await serve();
    const client = await connect();
    for (let i = 0; i < MAX_LIVE_TASKS + 1; i++) {
      const task = await callAsTask(client, "return 1");
      await statusReaches(client, task.taskId, "completed");
    }
    expect((await callAsTask(client, "return 2")).status).toBe("working");
  });
});

describe("tasks/list", () => {
  it(`pages by ${TASKS_PAGE_SIZE} with nextCursor, listing each task once, and answers an invalid cursor with -32602`, async () => {
    const { connect } = await serve();
    const client = await connect();
    const made: string[] = [];
    for (let i = 0; i < TASKS_PAGE_SIZE + 3; i++) made.push((await callAsTask(client, `return ${i}`)).taskId);
    const first = await client.request({ method: "tasks/list", params: {} }, ListTasksResultSchema);
    expect(first.tasks).toHaveLength(TASKS_PAGE_SIZE);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await client.request(
      { method: "tasks/list", params: { cursor: first.nextCursor! } },
      ListTasksResultSchema,
    );
    expect(second.tasks).toHaveLength(3);
    expect(second.nextCursor).toBeUndefined();
    expect([...first.tasks, ...second.tasks].map((task) => task.taskId).sort()).toEqual([...made].sort());
    const invalid = await client
      .request({ method: "tasks/list", params: { cursor: "not-a-cursor" } }, ListTasksResultSchema)
      .catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(McpError);
    expect((invalid as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((invalid as McpError).message).toMatch(
      /Invalid cursor for tasks\/list: "not-a-cursor" is not a nextCursor this server gave\. Pass a page's nextCursor exactly as it came, or no cursor for the first page\./,
    );
  });
});

describe("notifications/tasks/status", () => {
  it("tells the session that follows a task each change: input_required, working once answered, then completed", async () => {
    const { connect } = await serve();
    const client = await connect({ approve: true });
    const notices = statusNotices(client);
    const task = await callAsTask(client, GATED);
    await notices.reach(task.taskId, "input_required");
    const result = await client.request(
      { method: "tasks/result", params: { taskId: task.taskId } },
      CallToolResultSchema,
    );
    expect(result.isError).not.toBe(true);
    await notices.reach(task.taskId, "completed");
    expect(notices.statusesOf(task.taskId)).toEqual(["input_required", "working", "completed"]);
  });

  it("tells it of a task that failed and of one it cancelled", async () => {
    const { connect } = await serve();
    const client = await connect();
    const notices = statusNotices(client);
    const failing = await callAsTask(client, `throw new Error("no")`);
    await notices.reach(failing.taskId, "failed");
    const waiting = await callAsTask(client, GATED);
    await notices.reach(waiting.taskId, "input_required");
    await client.experimental.tasks.cancelTask(waiting.taskId);
    await notices.reach(waiting.taskId, "cancelled");
    expect(notices.statusesOf(failing.taskId)).toEqual(["failed"]);
    expect(notices.statusesOf(waiting.taskId)).toEqual(["input_required", "cancelled"]);
  });
});
