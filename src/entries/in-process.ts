/**
 * `cordon/in-process`: the in-process environment, an opt-in for trusted code and the lowest latency:
 * isolated-vm isolates in the agent's own process. Code that may be hostile belongs in the default
 * environment (`sandboxHostEnvironment()` from `cordon`), which runs the same engine in supervised
 * child processes.
 */

export {
  type IsolatedVmModule,
  type IsolateEnvironment,
  type IsolateEnvironmentOptions,
  isolateEnvironment,
  type SpinMode,
} from "../../environments/in-process/index.js";
