/**
 * Where `cordon mcp` keeps the tasks of run_code called as a task, and what seals them: the folder
 * `$XDG_STATE_HOME/cordon/mcp-tasks` (`~/.local/state/cordon/mcp-tasks` when XDG_STATE_HOME is unset),
 * or `--task-dir`, made 0700 at the first task, with each task's record (`tasks/<id>.json`) and its paused run's large
 * values and claims (`checkpoints/`) 0600; and the checkpoint key of `cordon run --approve pause`
 * (CORDON_CHECKPOINT_KEY, or the key file), so a restarted server with the same key goes on with them.
 */

import { join } from "node:path";
import { messageOf } from "../../common/errors.js";
import type { PauseOptions } from "../codemode/options.js";
import { fileCheckpointStore } from "../codemode/pause/checkpoint-store.js";
import { MAX_TASK_TTL_MS } from "../mcp/run-tasks.js";
import { TaskRecords } from "../mcp/task-records.js";
import { loadCheckpointKey } from "./checkpoint-key.js";
import { xdgBaseDir } from "./xdg.js";

/** What tasks need: the records, and how their runs pause. */
export interface McpTaskState {
  folder: string;
  records: TaskRecords;
  pause: PauseOptions;
}

/** The default folder of the tasks, for the environment `env`; undefined without a home. */
function defaultTaskFolder(env: NodeJS.ProcessEnv): string | undefined {
  const base = xdgBaseDir(env, "XDG_STATE_HOME");
  return base === undefined ? undefined : join(base, "cordon", "mcp-tasks");
}

/**
 * Opens the task state in `folder` (else the default one). Undefined, with the reason logged, when there
 * is no folder or key: the server then offers no tasks, and serves as before.
 */
export async function openMcpTaskState(
  folder: string | undefined,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<McpTaskState | undefined> {
  const chosen = folder ?? defaultTaskFolder(env);
  if (chosen === undefined) {
    log("run_code is not offered as a task: there is no home folder to keep tasks in (give --task-dir).");
    return undefined;
  }
  try {
    const { key } = await loadCheckpointKey(env);
    const keyBytes = Buffer.from(key, "utf8");
    return {
      folder: chosen,
      records: new TaskRecords(join(chosen, "tasks"), keyBytes),
      // A checkpoint lasts as long as the longest task can.
      pause: {
        key: keyBytes,
        ttlMs: MAX_TASK_TTL_MS,
        store: fileCheckpointStore(join(chosen, "checkpoints")),
      },
    };
  } catch (error) {
    log(`run_code is not offered as a task: ${messageOf(error)}`);
    return undefined;
  }
}
