/**
 * Where the public surface makes the one choice code mode leaves open: the environment code runs in
 * when the caller names none. Code mode is written against the sandbox contract only; this module
 * names the default driver (and offers its names to the root entry), so that nothing below the surface
 * depends on one environment. The other drivers have entries of their own (src/entries/).
 */

import { sandboxHostEnvironment } from "../environments/sandbox-host/index.js";
import type { Environment } from "../sandbox/contract/index.js";
import { type CodeMode, type CodeModeOptions, createCodeMode } from "./codemode/code-mode.js";

export {
  SANDBOX_HOST_DEFAULTS,
  type SandboxHostEnvironmentOptions,
  sandboxHostEnvironment,
} from "../environments/sandbox-host/index.js";

/**
 * The environment `codeMode()` runs code in when given none: isolated-vm isolates in supervised
 * sandbox-host processes (`sandboxHostEnvironment()`), so that code which crashes V8 ends only a sandbox
 * process, never the agent's.
 */
export function defaultEnvironment(): Environment {
  return sandboxHostEnvironment();
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
