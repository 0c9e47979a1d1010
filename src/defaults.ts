/**
 * Where the public surface makes the one choice code mode leaves open: the environment code runs in
 * when the caller names none. Code mode is written against the sandbox contract only; this module
 * names the default drivers (and offers the sandbox host's names to the root entry), so that nothing
 * below the surface depends on one environment: the sandbox host where isolated-vm can load (Node, with
 * isolated-vm installed and built), QuickJS elsewhere (Bun, Deno, workerd, and Node without it). The other drivers have entries of their own (src/entries/).
 */

import { currentRuntime, type Runtime } from "../common/runtime.js";
import { quickjsEnvironment } from "../environments/quickjs/index.js";
import {
  HOW_TO_GET_ISOLATED_VM,
  isolatedVmProblem,
  sandboxHostEnvironment,
} from "../environments/sandbox-host/index.js";
import type { Environment } from "../sandbox/contract/index.js";
import { type CodeMode, type CodeModeOptions, createCodeMode } from "./codemode/code-mode.js";

export {
  SANDBOX_HOST_DEFAULTS,
  type SandboxHostEnvironmentOptions,
  sandboxHostEnvironment,
} from "../environments/sandbox-host/index.js";

/**
 * The environment `codeMode()` runs code in when given none. On Node with isolated-vm installed:
 * isolated-vm isolates in supervised sandbox-host processes (`sandboxHostEnvironment()`), so that code
 * which crashes V8 ends only a sandbox process, never the agent's. Where isolated-vm cannot load (Bun,
 * Deno, workerd, or Node without it, as a plain `npm install cordon` leaves it): `quickjsEnvironment()`,
 * QuickJS in WebAssembly in the agent's process, said in one line on the console the first time.
 */
export function defaultEnvironment(): Environment {
  return environmentFor(currentRuntime(), sayOnce);
}

/**
 * The default environment on `runtime`; `say` gets the one line that tells a runtime without isolated-vm
 * which engine its code runs in. `isolatedVm` says why isolated-vm cannot start on Node, or nothing
 * when it can (default: whether it is installed, with its addon built, where cordon finds packages).
 */
export function environmentFor(
  runtime: Runtime,
  say: (line: string) => void,
  isolatedVm: () => string | undefined = isolatedVmProblem,
): Environment {
  const problem = runtime.loadsNodeAddons ? isolatedVm() : `isolated-vm cannot load on ${runtime.name}`;
  if (problem === undefined) return sandboxHostEnvironment();
  say(
    `cordon: ${problem}; code runs in quickjsEnvironment() (QuickJS in WebAssembly, in this process). ` +
      (runtime.loadsNodeAddons
        ? `For isolated-vm isolates in sandbox processes, ${HOW_TO_GET_ISOLATED_VM}. `
        : "") +
      "Pass an environment to codeMode() to choose another.",
  );
  return quickjsEnvironment();
}

let said = false;

/** Writes the line to the console once per process: every default environment after the first is the same. */
function sayOnce(line: string): void {
  if (said) return;
  said = true;
  console.warn(line);
}

/**
 * Code mode: the model gets one `run_code` tool; its TypeScript runs in a sandbox, and `tools.<name>(args)`
 * inside it calls back into the host through the dispatcher, so every proxied call keeps validation,
 * approval, policies, retries, timeouts and events. Without `options.environment` the code runs in
 * {@link defaultEnvironment}.
 */
export function codeMode(options: CodeModeOptions): CodeMode {
  return createCodeMode({ ...options, environment: options?.environment ?? defaultEnvironment() });
}
