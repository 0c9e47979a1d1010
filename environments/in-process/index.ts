/**
 * The in-process environment: the isolate engine (`sandbox/isolate`) in the agent's own process. An
 * opt-in for trusted code and the lowest latency: each isolate has its own heap, no Node APIs, and
 * memory and CPU limits, but V8 can abort the whole process on some allocations or ignore termination
 * in native code, so code that may be hostile belongs in the default `sandboxHostEnvironment()`, which
 * runs the same engine in supervised child processes.
 */

import { UserError } from "../../common/errors.js";
import type { Environment, Sandbox } from "../../sandbox/contract/index.js";
import { type IsolateEngineOptions, isolateEngine } from "../../sandbox/isolate/index.js";

export { type IsolatedVmModule, MAX_SPARE_LIMITS, type SpinMode } from "../../sandbox/isolate/index.js";

/**
 * Options of {@link isolateEnvironment}: which isolated-vm to use, how many warm spares to keep, and how
 * the code's thread waits for a call's answer.
 */
export type IsolateEnvironmentOptions = IsolateEngineOptions;

/** The in-process environment. */
export type IsolateEnvironment = Environment;

/**
 * A sandbox of the in-process environment.
 * @deprecated Every sandbox is a {@link Sandbox}, whose optional `tainted` this one sets.
 */
export type IsolateSandboxHandle = Sandbox;

/** The sentence the model's instructions use to describe this environment's isolation. */
export const ISOLATE_ISOLATION =
  "Your code runs in a V8 isolate inside the agent's own process: it has its own heap, no Node.js APIs (no " +
  "require, process, file system, network or timers) and memory and CPU limits, and can reach the outside " +
  "world only through `tools`. It shares the agent's process, so code that crashes the JavaScript engine " +
  "ends the agent too.";

/**
 * Creates the in-process isolate environment. Each `open()` hands out a new isolate with the prelude
 * installed (a warm spare when one is ready, see {@link IsolateEnvironmentOptions.warm}). isolated-vm is
 * loaded here, so a missing package or a missing `--no-node-snapshot` flag is a `UserError` now, not a
 * failure of the first run.
 */
export function isolateEnvironment(options: IsolateEnvironmentOptions = {}): IsolateEnvironment {
  const warm = options.warm ?? 1;
  if (!Number.isInteger(warm) || warm < 0) {
    throw new TypeError(`isolateEnvironment: warm must be a whole number, 0 or more; got ${String(warm)}.`);
  }
  if (options.syncCalls !== undefined && typeof options.syncCalls !== "boolean") {
    throw new TypeError(
      `isolateEnvironment: syncCalls must be true or false; got ${String(options.syncCalls)}.`,
    );
  }
  if (options.spin !== undefined && !["auto", "always", "never"].includes(options.spin)) {
    throw new TypeError(
      `isolateEnvironment: spin must be "auto", "always" or "never"; got ${String(options.spin)}.`,
    );
  }
  let engine: ReturnType<typeof isolateEngine>;
  try {
    engine = isolateEngine({ ...options, warm });
  } catch (error) {
    throw new UserError(error instanceof Error ? error.message : String(error));
  }
  return { name: "isolate", isolation: ISOLATE_ISOLATION, open: engine.open, close: engine.close };
}
