/**
 * Vitest's global setup: every process the tests start (the cordon command included) keeps its caches
 * (compiled tools modules, Node's compile cache), its checkpoint key and its state (cordon mcp's tasks)
 * in a folder of this test run, never in the user's home.
 * Each project of vitest.config.ts runs it in the one main process: the first makes the folder, the
 * others share it, so that every worker of the run sees the same one.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Set while a run's folder exists: the folder, so that a second project's setup leaves it alone. */
const RUN_CACHE_HOME = "CORDON_TEST_RUN_CACHE_HOME";

/** Points XDG_CACHE_HOME at a new folder for the run; returns the teardown that removes it. */
export default function setup(): () => void {
  if (process.env[RUN_CACHE_HOME] !== undefined) return () => {};
  const folder = mkdtempSync(join(tmpdir(), "cordon-test-cache-"));
  process.env.XDG_CACHE_HOME = folder;
  // The config (the checkpoint key cordon mcp makes) and the state (its tasks) too.
  process.env.XDG_CONFIG_HOME = join(folder, "config");
  process.env.XDG_STATE_HOME = join(folder, "state");
  process.env[RUN_CACHE_HOME] = folder;
  return () => {
    delete process.env[RUN_CACHE_HOME];
    rmSync(folder, { recursive: true, force: true });
  };
}
