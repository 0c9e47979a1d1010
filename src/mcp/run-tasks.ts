/**
 * run_code called as an MCP task (spec 2025-11-25): the call answers at once with a task, and its run goes
 * on without holding the request. A gated call or a question pauses the run (a sealed checkpoint, see
 * src/codemode/pause/), the task goes `input_required`, and whoever calls `tasks/result` is asked; the
 * answers resume the run by replay. Tasks are records on disk (task-records.ts), so a client that
 * reconnected, or a server that was restarted, goes on where the task was. A task is found by its id
 * (random, unguessable), and when the server names tenants, by its tenant only.
 */

import { randomUUID } from "node:crypto";
import { type CallToolResult, ErrorCode, McpError, type Task } from "@modelcontextprotocol/sdk/types.js";
import { messageOf } from "../../common/errors.js";
import { DEFAULT_CHECKPOINT_TTL_MS } from "../codemode/pause/checkpoint.js";
import type { ResumeDecisions } from "../codemode/pause/pause.js";
import { type CodeRunResult, renderCodeRunResult } from "../codemode/result.js";
import { CodeRunFailed } from "../codemode/run-code-tool.js";
import { failureFrom, failureOutput } from "../dispatch/failures.js";
import type { PendingCall } from "../dispatch/paused-work.js";
import type { ToolResult } from "../dispatch/types.js";
import type { McpApprovePolicy } from "./approve-policy.js";
import type { CodeHost, PausedRunAnswers } from "./code-host.js";
import type { ContentPolicy } from "./content-policy.js";
import { runCodeCallResult } from "./run-result.js";
import { type TaskRecord, TaskRecordRefused, type TaskRecords } from "./task-records.js";

/** How long a task is kept when its client asks for no ttl, and the most it may ask for, in ms. */
export const MAX_TASK_TTL_MS = DEFAULT_CHECKPOINT_TTL_MS;

/** How often a client is told to poll tasks/get, in ms. */
const TASK_POLL_INTERVAL_MS = 1_000;

/** How often expired task records are looked for, in ms. */
const SWEEP_MS = 60_000;

/**
 * Tasks one tenant may have working or waiting for input at once (without authentication, every client
 * of the server together); one more is refused until one of them ends. Terminal tasks do not count.
 */
export const MAX_LIVE_TASKS = 32;

/** Tasks one tasks/list answers with; `nextCursor` leads to the rest. */
export const TASKS_PAGE_SIZE = 20;

/** Sends one status notification (notifications/tasks/status) to the connection it was made for. */
export type TaskStatusSender = (task: Task) => void;

/** One page of tasks/list. */
export type TaskPage = {
  tasks: Task[];
  nextCursor?: string;
};

/** Who asks about a task: the tenant the server named (if it names them) and the connection. */
export interface TaskAsker {
  tenant?: string;
  connection: object;
}

/** Asks the person for the pending calls of a paused run; rejects when it could not (nothing is decided). */
export type AskPerson = (pending: readonly PendingCall[], signal: AbortSignal) => Promise<ResumeDecisions>;

/** Options of {@link McpTasks}. */
export interface McpTasksOptions {
  host: CodeHost;
  records: TaskRecords;
  /** `--approve`: with `all` or `none` a gated call is decided without asking anyone. */
  policy?: McpApprovePolicy;
  /** What content the results may carry (see run-result.ts). */
  content?: ContentPolicy;
  log?: (line: string) => void;
}

/** A task whose run goes on in this process. */
interface LiveTask {
  controller: AbortController;
}

/** The tasks of one server, every connection's. */
export class McpTasks {
  readonly #options: McpTasksOptions;
  readonly #live = new Map<string, LiveTask>();
  /** Who created each task, for tasks/list of a server that names no tenants. */
  readonly #createdBy = new Map<string, object>();
  /** The one tasks/result that asks the person about each task now. */
  readonly #asking = new Map<string, AbortController>();
  readonly #listeners = new Map<string, Set<() => void>>();
  /** Each task's writes, one after another. */
  readonly #writes = new Map<string, Promise<void>>();
  /** The connection each task's status notifications go to: the one that created it or last asked about it. */
  readonly #followers = new Map<string, object>();
  readonly #senders = new Map<object, TaskStatusSender>();
  /** Creations, one after another, so that two at once cannot both pass {@link MAX_LIVE_TASKS}. */
  #admitting: Promise<unknown> = Promise.resolve();
  readonly #sweeper: NodeJS.Timeout;

  constructor(options: McpTasksOptions) {
    this.#options = options;
    this.#sweeper = setInterval(() => void this.#sweep(), SWEEP_MS);
    this.#sweeper.unref();
  }

  /** Starts run_code's run as a task; answers with the task as created. */
  async create(args: unknown, asker: TaskAsker, requestedTtl: number | undefined): Promise<Task> {
    const now = Date.now();
    const ttl = Math.min(
      typeof requestedTtl === "number" && requestedTtl > 0 ? requestedTtl : MAX_TASK_TTL_MS,
      MAX_TASK_TTL_MS,
    );
    const stamp = new Date(now).toISOString();
    const task: Task = {
      taskId: randomUUID(),
      status: "working",
      ttl,
      createdAt: stamp,
      lastUpdatedAt: stamp,
      pollInterval: TASK_POLL_INTERVAL_MS,
    };
    const record: TaskRecord = {
      task,
      expires: now + ttl,
      ...(asker.tenant === undefined ? {} : { tenant: asker.tenant }),
    };
    const admitted = this.#admitting.then(async () => {
      const live = await this.#liveTasksOf(asker.tenant);
      if (live >= MAX_LIVE_TASKS) {
        throw new McpError(
          ErrorCode.InvalidRequest,
          `${live} tasks are working or waiting for input already, the most ${asker.tenant === undefined ? "this server's clients may have together" : "you may have"} at once (${MAX_LIVE_TASKS}): answer a waiting one with tasks/result, wait for one to finish, or cancel one with tasks/cancel, then call again.`,
        );
      }
      await this.#write(record, { announce: false });
      this.#createdBy.set(task.taskId, asker.connection);
      this.#followers.set(task.taskId, asker.connection);
      await this.#drive(record, { args });
    });
    this.#admitting = admitted.catch(() => {});
    await admitted;
    return task;
  }

  /**
   * Sends `connection` the status notifications of the tasks it follows (created, or last asked about);
   * returns what stops them, for when the connection closes.
   */
  notifyOn(connection: object, send: TaskStatusSender): () => void {
    this.#senders.set(connection, send);
    return () => {
      if (this.#senders.get(connection) === send) this.#senders.delete(connection);
    };
  }

  /** The task, as tasks/get answers. */
  async get(taskId: string, asker: TaskAsker): Promise<Task> {
    const { task } = await this.#find(taskId, asker);
    this.#followers.set(taskId, asker.connection);
    return task;
  }

  /**
   * One page of the asker's tasks (tasks/list): its tenant's, or those its connection created, oldest
   * first, {@link TASKS_PAGE_SIZE} at a time; `cursor` is a page's `nextCursor`.
   */
  async list(asker: TaskAsker, cursor?: string): Promise<TaskPage> {
    const after = cursor === undefined ? undefined : positionOf(cursor);
    const tasks = (await this.#listAll(asker)).filter(
      (task) => after === undefined || comparePositions(task, after) > 0,
    );
    const page = tasks.slice(0, TASKS_PAGE_SIZE);
    const last = page.at(-1);
    return tasks.length > TASKS_PAGE_SIZE && last
      ? { tasks: page, nextCursor: cursorOf(last) }
      : { tasks: page };
  }

  async #listAll(asker: TaskAsker): Promise<Task[]> {
    const tasks: Task[] = [];
    for (const taskId of await this.#options.records.ids()) {
      const mine = asker.tenant === undefined ? this.#createdBy.get(taskId) === asker.connection : true;
      if (!mine) continue;
      try {
        tasks.push((await this.#find(taskId, asker)).task);
      } catch {
        // Another tenant's, expired, or refused: not listed.
      }
    }
    return tasks.sort(comparePositions);
  }

  /** How many of `tenant`'s tasks are working (with their run in this process) or wait for input. */
  async #liveTasksOf(tenant: string | undefined): Promise<number> {
    const { records } = this.#options;
    let live = 0;
    const now = Date.now();
    for (const taskId of await records.ids()) {
      const record = await records.read(taskId).catch(() => undefined);
      if (record === undefined || record.tenant !== tenant || record.expires <= now) continue;
      const { status } = record.task;
      if (status === "input_required" || (status === "working" && this.#live.has(taskId))) live++;
    }
    return live;
  }

  /** Cancels the task: its run is stopped, and nothing of it runs any more. */
  async cancel(taskId: string, asker: TaskAsker): Promise<Task> {
    const record = await this.#find(taskId, asker);
    this.#followers.set(taskId, asker.connection);
    if (isTerminal(record.task.status)) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Task ${taskId} is ${record.task.status} already: only a task that is working or waits for input can be cancelled.`,
      );
    }
    const cancelled = this.#update(
      record,
      "cancelled",
      "The client cancelled the task; nothing more of it runs.",
    );
    cancelled.result = failedResult("The task was cancelled: nothing more of its run ran.");
    await this.#write(cancelled);
    this.#live.get(taskId)?.controller.abort(new Error("The task was cancelled."));
    this.#asking.get(taskId)?.abort(new Error("The task was cancelled."));
    this.#changed(taskId);
    return cancelled.task;
  }

  /**
   * What tasks/result answers: the run's result once the task is terminal. Until then it waits; while the
   * task waits for input, `ask` asks the person, and their answers resume the run.
   */
  async result(
    taskId: string,
    asker: TaskAsker,
    ask: AskPerson,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    this.#followers.set(taskId, asker.connection);
    for (;;) {
      const record = await this.#find(taskId, asker);
      if (isTerminal(record.task.status))
        return record.result ?? failedResult(record.task.statusMessage ?? "");
      if (record.task.status === "input_required" && record.checkpoint && record.pending) {
        const given = await this.#ask(taskId, record.pending, ask, signal);
        // Read again: the task may have been cancelled, or answered by another, while the person thought.
        const now = await this.#find(taskId, asker);
        if (now.task.status !== "input_required" || now.checkpoint !== record.checkpoint) continue;
        await this.#drive(now, { from: { checkpoint: record.checkpoint, ...given } });
        continue;
      }
      await this.#changeOf(taskId, signal);
    }
  }

  /** Stops every run and forgets nothing: the records stay for the next process. */
  close(): void {
    clearInterval(this.#sweeper);
    for (const live of this.#live.values()) live.controller.abort(new Error("cordon mcp is stopping."));
  }

  async #ask(taskId: string, pending: readonly PendingCall[], ask: AskPerson, signal: AbortSignal) {
    // The latest asker asks: an earlier one (a client that reconnected) stops.
    this.#asking.get(taskId)?.abort(new Error("Another tasks/result asks now."));
    const controller = new AbortController();
    this.#asking.set(taskId, controller);
    try {
      return await ask(pending, AbortSignal.any([signal, controller.signal]));
    } finally {
      if (this.#asking.get(taskId) === controller) this.#asking.delete(taskId);
    }
  }

  /**
   * Runs (or resumes) the task's run in the background, and records how it ended. Resolves once the
   * task is recorded as working again (a resume) and its run started.
   */
  async #drive(record: TaskRecord, how: { args?: unknown; from?: PausedRunAnswers }): Promise<void> {
    const { taskId } = record.task;
    const controller = new AbortController();
    this.#live.set(taskId, { controller });
    if (how.from) {
      const working = this.#update(record, "working");
      try {
        await this.#write(working);
      } catch (error) {
        this.#live.delete(taskId);
        throw error;
      }
      this.#changed(taskId);
    }
    const run = async () => {
      let ended: TaskRecord;
      try {
        let from = how.from;
        let result: CodeRunResult;
        for (;;) {
          result = await this.#options.host.runPausing(how.args, {
            signal: controller.signal,
            ...(record.tenant === undefined ? {} : { tenant: record.tenant }),
            ...(from ? { from } : {}),
          });
          const decided = result.status === "paused" ? this.#decidedByPolicy(result) : undefined;
          if (decided === undefined) break;
          from = decided;
        }
        ended = this.#ended(record, result);
      } catch (error) {
        ended = this.#update(record, "failed", messageOf(error));
        ended.result = failedResult(`The run could not go on: ${messageOf(error)}`);
      }
      // A cancelled (or expired) task keeps what it says: its run's end changes nothing.
      if (controller.signal.aborted) return;
      await this.#write(ended);
    };
    run()
      .catch((error: unknown) => this.#options.log?.(`task ${taskId}: ${messageOf(error)}`))
      .finally(() => {
        if (this.#live.get(taskId)?.controller === controller) this.#live.delete(taskId);
        this.#changed(taskId);
      });
  }

  /** With `--approve all` or `none`, a pause of approvals only goes on at once, decided by the policy. */
  #decidedByPolicy(result: CodeRunResult): PausedRunAnswers | undefined {
    const { policy } = this.#options;
    const pending = result.pending ?? [];
    if ((policy !== "all" && policy !== "none") || pending.some((call) => call.kind !== "approval"))
      return undefined;
    const decision =
      policy === "all"
        ? true
        : { approved: false as const, reason: "cordon's approval policy denies gated calls" };
    return {
      checkpoint: result.checkpoint!,
      decisions: Object.fromEntries(pending.map((call) => [call.id, decision])),
    };
  }

  #ended(record: TaskRecord, result: CodeRunResult): TaskRecord {
    if (result.status === "paused") {
      const waiting = this.#update(
        record,
        "input_required",
        "The run waits for a person: call tasks/result to answer.",
      );
      waiting.checkpoint = result.checkpoint!;
      waiting.pending = result.pending ?? [];
      return waiting;
    }
    const { host, content } = this.#options;
    const call = asToolResult(result, host.runCodeName, host.maxOutputChars);
    const done = this.#update(
      record,
      call.ok ? "completed" : "failed",
      call.ok ? undefined : `The run ended ${result.status}.`,
    );
    done.result = runCodeCallResult(call, host.maxOutputChars, content);
    return done;
  }

  /** The task's record, checked: it exists, has not expired, is the asker's, and is believed. */
  async #find(taskId: string, asker: TaskAsker): Promise<TaskRecord> {
    const notFound = () =>
      new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId} (unknown, expired, or not yours).`);
    let record: TaskRecord | undefined;
    try {
      record = await this.#options.records.read(taskId);
    } catch (error) {
      if (error instanceof TaskRecordRefused) throw new McpError(ErrorCode.InvalidParams, error.message);
      throw error;
    }
    if (record === undefined || record.tenant !== asker.tenant) throw notFound();
    if (record.expires <= Date.now()) {
      await this.#forget(taskId);
      throw notFound();
    }
    // A task that was working when its process stopped has no run any more: say so, once.
    if (record.task.status === "working" && !this.#live.has(taskId)) {
      const lost = this.#update(
        record,
        "failed",
        "cordon mcp stopped while this task's run went on: the run did not finish (calls it made may have taken effect).",
      );
      lost.result = failedResult(lost.task.statusMessage!);
      await this.#write(lost);
      return lost;
    }
    return record;
  }

  #update(record: TaskRecord, status: Task["status"], statusMessage?: string): TaskRecord {
    const { statusMessage: _, ...task } = record.task;
    const { checkpoint: _checkpoint, pending: _pending, ...kept } = record;
    return {
      ...kept,
      task: {
        ...task,
        status,
        lastUpdatedAt: new Date().toISOString(),
        ...(statusMessage === undefined ? {} : { statusMessage }),
      },
    };
  }

  /** Writes the record; a change of status (every write but a task's first) is announced to its follower. */
  async #write(record: TaskRecord, { announce = true } = {}): Promise<void> {
    const { taskId } = record.task;
    const previous = this.#writes.get(taskId) ?? Promise.resolve();
    const next = previous.then(() => this.#options.records.write(record));
    this.#writes.set(
      taskId,
      next.catch(() => {}),
    );
    await next;
    if (!announce) return;
    const follower = this.#followers.get(taskId);
    if (follower !== undefined) this.#senders.get(follower)?.(record.task);
  }

  async #forget(taskId: string): Promise<void> {
    this.#live.get(taskId)?.controller.abort(new Error("The task expired."));
    this.#asking.get(taskId)?.abort(new Error("The task expired."));
    this.#createdBy.delete(taskId);
    this.#followers.delete(taskId);
    await this.#options.records.remove(taskId);
    this.#changed(taskId);
  }

  async #sweep(): Promise<void> {
    const { records } = this.#options;
    for (const taskId of await records.ids().catch(() => [])) {
      const record = await records.read(taskId).catch(() => undefined);
      if (record !== undefined && record.expires <= Date.now()) await this.#forget(taskId).catch(() => {});
    }
  }

  #changed(taskId: string): void {
    const listeners = this.#listeners.get(taskId);
    this.#listeners.delete(taskId);
    for (const listener of listeners ?? []) listener();
  }

  /** Resolves at the task's next change (or when `signal` aborts: rejects). */
  #changeOf(taskId: string, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      signal.throwIfAborted();
      const listeners = this.#listeners.get(taskId) ?? new Set();
      this.#listeners.set(taskId, listeners);
      const onAbort = () => {
        listeners.delete(done);
        reject(signal.reason);
      };
      const done = () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
      listeners.add(done);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }
}

/** Where a task stands in tasks/list's order: by creation, then by id. */
interface ListPosition {
  createdAt: string;
  taskId: string;
}

function comparePositions(a: ListPosition, b: ListPosition): number {
  return a.createdAt.localeCompare(b.createdAt) || a.taskId.localeCompare(b.taskId);
}

/** The cursor of the page after `last` (opaque to clients). */
function cursorOf(last: ListPosition): string {
  return Buffer.from(JSON.stringify([last.createdAt, last.taskId])).toString("base64url");
}

/** Where a cursor of {@link cursorOf} points; an InvalidParams error for anything else. */
function positionOf(cursor: string): ListPosition {
  let position: unknown;
  try {
    position = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    position = undefined;
  }
  if (
    !Array.isArray(position) ||
    position.length !== 2 ||
    typeof position[0] !== "string" ||
    typeof position[1] !== "string"
  ) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Invalid cursor for tasks/list: ${JSON.stringify(cursor.slice(0, 100))} is not a nextCursor this server gave. Pass a page's nextCursor exactly as it came, or no cursor for the first page.`,
    );
  }
  return { createdAt: position[0], taskId: position[1] };
}

/** Whether a task's status is final. */
function isTerminal(status: Task["status"]): boolean {
  return status === "completed" || status === "failed" || status === "cancelled";
}

function failedResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/** A run as the result of the run_code call it is. */
function asToolResult(result: CodeRunResult, toolName: string, maxChars: number): ToolResult {
  const output = renderCodeRunResult(result, maxChars);
  const base = {
    callId: "task",
    name: toolName,
    attempts: 1,
    truncated: false,
    durationMs: result.durationMs ?? 0,
  };
  if (result.status === "ok") return { ...base, ok: true, output, value: result };
  const error = failureFrom(new CodeRunFailed(output, result), toolName);
  return { ...base, ok: false, output: failureOutput(error), error };
}
