/**
 * The isolate environment: runs the model's code in a V8 isolate inside this process, through
 * isolated-vm. The default environment of code mode: fast to start, with its own heap, no Node APIs, and
 * memory and CPU limits. It is not a process or kernel boundary; use the Docker environment for code
 * that may be hostile.
 *
 * What a session keeps between executions (one sandbox, several `execute` calls): the global object. Top-level
 * declarations of a run (`var`, `let`, `const`, `function`, `class`) are copied onto `globalThis` when the
 * run ends, and top-level `var`s start from the value an earlier run left; assignments to `globalThis`
 * (and to undeclared names) stay as they are. Built-in globals, `tools` and `console` are never
 * overwritten by a declaration. Pending promises and tool calls of an earlier run never resume it: their
 * calls are refused and their outcomes dropped.
 */

import type { Environment, Sandbox, SandboxLimits } from "../../src/codemode/environment.js";
import { type IsolatedVm, loadIsolatedVm } from "./load.js";
import { IsolateSandbox } from "./sandbox.js";

export { userCodePosition } from "./errors.js";
export { DEFAULT_MAX_TOOL_CALLS } from "./execution.js";
export { type IsolatedVm, nodeFlagProblem } from "./load.js";
export { IsolateSandbox } from "./sandbox.js";

/** Options of {@link isolateEnvironment}. */
export interface IsolateEnvironmentOptions {
  /**
   * The isolated-vm module to use (for example a newer major version). Default: the installed
   * `isolated-vm`, loaded on the first `open()`.
   */
  ivm?: IsolatedVm;
}

/** The sentence the model's instructions use to describe this environment's isolation. */
export const ISOLATE_ISOLATION =
  "Your code runs in a V8 isolate inside the host process: it has its own heap, no Node.js APIs (no " +
  "require, process, file system, network or timers) and memory and CPU limits, and can reach the outside " +
  "world only through `tools`. It is not a separate process or kernel boundary: a bug in V8 could break " +
  "out, so hostile code belongs in the Docker environment.";

/**
 * Creates the isolate environment. Each `open()` creates a new isolate with the prelude installed;
 * isolated-vm is loaded (and `--no-node-snapshot` checked) on the first `open()`, which rejects with a
 * clear message when either is missing.
 */
export function isolateEnvironment(options: IsolateEnvironmentOptions = {}): Environment {
  const open = new Set<Sandbox>();
  let closed = false;
  return {
    name: "isolate",
    isolation: ISOLATE_ISOLATION,
    async open(limits: SandboxLimits): Promise<Sandbox> {
      if (closed) throw new Error("This isolate environment was closed; create a new one.");
      const sandbox = await IsolateSandbox.open(loadIsolatedVm(options.ivm), limits, {
        onDead: (dead) => open.delete(dead),
      });
      if (sandbox.alive) open.add(sandbox);
      return sandbox;
    },
    async close(): Promise<void> {
      closed = true;
      const sandboxes = [...open];
      open.clear();
      await Promise.all(sandboxes.map((sandbox) => sandbox.dispose()));
    },
  };
}
