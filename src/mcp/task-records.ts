/**
 * The tasks of cordon's MCP server as kept on disk: one file per task (0600, in a 0700 folder), sealed
 * with HMAC-SHA-256 under a key derived from the checkpoint key, so that a record changed on disk (its
 * status, its result, whose it is) is refused rather than believed. A paused task's checkpoint is sealed
 * on its own (see src/codemode/pause/); the record only carries it. Records outlive the process: a
 * restarted server finds its tasks where it left them, and forgets each once it expired.
 */

import { createHmac, timingSafeEqual } from "node:crypto";
import { mkdir, readdir, readFile, unlink } from "node:fs/promises";
import { join } from "node:path";
import type { CallToolResult, Task } from "@modelcontextprotocol/sdk/types.js";
import type { PendingCall } from "../dispatch/paused-work.js";
import { writeFileAtomic } from "../files/atomic-write.js";

/** What a task record holds. */
export interface TaskRecord {
  task: Task;
  /** When the task is forgotten, in ms since the epoch (its creation plus its ttl). */
  expires: number;
  /** The named tenant (an authenticated principal) it belongs to; none: whoever holds its id. */
  tenant?: string;
  /** While `input_required`: the paused run's checkpoint, and the calls that wait for a person. */
  checkpoint?: string;
  pending?: PendingCall[];
  /** Once terminal: what tasks/result answers. */
  result?: CallToolResult;
}

/** A stored record that could not be believed: altered, made under another key, or not a record. */
export class TaskRecordRefused extends Error {
  override name = "TaskRecordRefused";
}

/** A task id as a file name: what cordon makes (a UUID). Anything else is never a path. */
const TASK_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Whether `id` could be a task id of this server. */
function isTaskId(id: string): boolean {
  return TASK_ID.test(id);
}

/** The records of one server, in `folder`, sealed under `key`. */
export class TaskRecords {
  readonly #folder: string;
  readonly #key: Buffer;

  constructor(folder: string, checkpointKey: Buffer) {
    this.#folder = folder;
    // A key of its own, so that no record can pass for a checkpoint or the other way round.
    this.#key = createHmac("sha256", checkpointKey).update("cordon mcp task records v1").digest();
  }

  /** Writes `record`, replacing the one of the same task. */
  async write(record: TaskRecord): Promise<void> {
    await mkdir(this.#folder, { recursive: true, mode: 0o700 });
    const body = JSON.stringify(record);
    const file = JSON.stringify({ v: 1, body, mac: this.#mac(body) });
    await writeFileAtomic(this.#path(record.task.taskId), file, { mode: 0o600 });
  }

  /** The record of `taskId`, or undefined when there is none. Throws {@link TaskRecordRefused} for a bad one. */
  async read(taskId: string): Promise<TaskRecord | undefined> {
    if (!isTaskId(taskId)) return undefined;
    let text: string;
    try {
      text = await readFile(this.#path(taskId), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
    return this.#open(taskId, text);
  }

  /** Every task id with a record (good or not). */
  async ids(): Promise<string[]> {
    try {
      const names = await readdir(this.#folder);
      return names
        .filter((name) => name.endsWith(".json"))
        .map((name) => name.slice(0, -5))
        .filter(isTaskId);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
  }

  /** Forgets `taskId`. */
  async remove(taskId: string): Promise<void> {
    if (!isTaskId(taskId)) return;
    await unlink(this.#path(taskId)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
    });
  }

  #open(taskId: string, text: string): TaskRecord {
    const refused = (why: string) =>
      new TaskRecordRefused(
        `The stored record of task ${taskId} ${why}: it is refused, and nothing of it runs.`,
      );
    let file: unknown;
    try {
      file = JSON.parse(text);
    } catch {
      throw refused("is not JSON");
    }
    const { v, body, mac } = (file ?? {}) as { v?: unknown; body?: unknown; mac?: unknown };
    if (v !== 1 || typeof body !== "string" || typeof mac !== "string") throw refused("is not a task record");
    const expected = Buffer.from(this.#mac(body), "base64url");
    const given = Buffer.from(mac, "base64url");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw refused("was altered, or sealed with another key");
    }
    const record = JSON.parse(body) as TaskRecord;
    if (record.task?.taskId !== taskId) throw refused("names another task");
    return record;
  }

  #mac(body: string): string {
    return createHmac("sha256", this.#key).update(body).digest("base64url");
  }

  #path(taskId: string): string {
    return join(this.#folder, `${taskId}.json`);
  }
}
