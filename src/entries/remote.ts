/**
 * `cordon/remote`: sandboxes on another host. `remoteEnvironment()` is the agent's side; `serveSandboxes()`
 * is the serving host's (what `cordon serve` runs). Tools stay with the agent: only code crosses.
 */

export {
  type RemoteEnvironmentOptions,
  remoteEnvironment,
  SANDBOX_PATH,
  type SandboxServer,
  type SandboxServerOptions,
  serveSandboxes,
} from "../../environments/remote/index.js";
