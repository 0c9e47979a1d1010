/**
 * Vitest's global setup: every process the tests start (the cordon command included) keeps its caches
 * (compiled tools modules, Node's compile cache) in a folder of this test run, never in the user's home.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Points XDG_CACHE_HOME at a new folder for the run; returns the teardown that removes it. */
export default function setup(): () => void {
  const folder = mkdtempSync(join(tmpdir(), "cordon-test-cache-"));
  process.env.XDG_CACHE_HOME = folder;
  return () => rmSync(folder, { recursive: true, force: true });
}
