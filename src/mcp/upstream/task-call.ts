/**
 * Calls to upstream tools that require task-based execution (`execution.taskSupport: "required"`): the
 * call creates a task, then asks for its result with `tasks/result`, which the server answers once the
 * task has ended (the protocol has it wait, and deliver on the way any request the task makes of the
 * client). Waiting there, rather than polling `tasks/get` at the server's interval, gives the result as
 * soon as it exists and ends at once on an abort. A call aborted or timed out cancels its task
 * (`tasks/cancel`), so the server stops work nobody waits for: also a task the server had created but
 * not yet named when the call ended. The client declares no capability for
 * this: the server's `tasks.requests.tools.call` is what allows it.
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  CreateTaskResultSchema,
  ErrorCode,
  McpError,
  type Tool as McpTool,
  ResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { untilAborted, within } from "../../../common/abort.js";

/** How long cancelling a task may take once its call was aborted, in ms. */
const TASK_CANCEL_TIMEOUT_MS = 5_000;

/** How long past the call's own timeout the server is asked to keep the task, in ms. */
const TASK_TTL_MARGIN_MS = 60_000;

/** Whether calls to `tool` must be task-based. ("optional" ones are called plainly, as the server allows.) */
export function requiresTask(tool: Pick<McpTool, "execution">): boolean {
  return tool.execution?.taskSupport === "required";
}

/** Whether a server's capabilities let a client call its tools as tasks. */
export function acceptsToolTasks(capabilities: ReturnType<Client["getServerCapabilities"]>): boolean {
  return capabilities?.tasks?.requests?.tools?.call !== undefined;
}

/** Options of {@link callToolAsTask}. */
export interface TaskCallOptions {
  signal: AbortSignal;
  /** The whole call (creating the task and waiting for its result) must end within this, in ms. */
  timeoutMs: number;
}

/**
 * Calls `params.name` as a task and resolves with the task's result. Rejects like a plain call; when the
 * call was aborted or timed out, after its task was cancelled (or cancelling it failed), also a task
 * whose creation the server had not yet answered then.
 */
export async function callToolAsTask(
  client: Client,
  params: { name: string; arguments: Record<string, unknown> },
  options: TaskCallOptions,
): Promise<CallToolResult> {
  const { signal, timeoutMs } = options;
  const deadline = performance.now() + timeoutMs;
  // Neither the signal nor the call's timeout end the request that creates the task: the SDK would drop
  // its answer, and a task the server created meanwhile would run on, its id unknown. The call stops
  // waiting for it instead, and cancels the task when its id comes (cancelWhenCreated).
  const creating = client.request({ method: "tools/call", params }, ResultSchema, {
    timeout: timeoutMs + TASK_CANCEL_TIMEOUT_MS,
    task: { ttl: timeoutMs + TASK_TTL_MARGIN_MS },
  });
  let created: Awaited<typeof creating>;
  try {
    created = await within(untilAborted(creating, signal), timeoutMs, timedOut);
  } catch (error) {
    if (signal.aborted || isTimeout(error)) await cancelWhenCreated(client, creating);
    throw error;
  }
  // A server may run the call at once and answer with its result instead of a task.
  if (!("task" in created)) return CallToolResultSchema.parse(created);
  const { taskId } = CreateTaskResultSchema.parse(created).task;
  try {
    return await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, {
      signal,
      timeout: Math.max(1, Math.ceil(deadline - performance.now())),
    });
  } catch (error) {
    if (signal.aborted || isTimeout(error)) await cancelTask(client, taskId);
    throw error;
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.RequestTimeout;
}

/** The error of a call that timed out, as the SDK's own request timeout gives it. */
function timedOut(): McpError {
  return new McpError(ErrorCode.RequestTimeout, "Request timed out");
}

/**
 * Cancels the task that `creating` makes, once its answer names it: waited for up to
 * TASK_CANCEL_TIMEOUT_MS, and a later answer (the request itself gives up after as long again past the
 * call's timeout) still cancels its task, without anyone waiting.
 */
async function cancelWhenCreated(client: Client, creating: Promise<Record<string, unknown>>): Promise<void> {
  const cancelled = creating.then(
    (created) => {
      const parsed = CreateTaskResultSchema.safeParse(created);
      return parsed.success ? cancelTask(client, parsed.data.task.taskId) : undefined;
    },
    () => undefined,
  );
  await within(cancelled, TASK_CANCEL_TIMEOUT_MS, timedOut).catch(() => {});
}

/** Asks the server to cancel a task; a failure to do so is not the call's failure. */
async function cancelTask(client: Client, taskId: string): Promise<void> {
  await client.experimental.tasks.cancelTask(taskId, { timeout: TASK_CANCEL_TIMEOUT_MS }).catch(() => {});
}
