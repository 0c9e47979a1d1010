import type { HostProcessSettings } from "../../environments/sandbox-host/host-process.js";
import { SANDBOX_HOST_DEFAULTS } from "../../environments/sandbox-host/index.js";
import { sandboxHostCommand } from "../../environments/sandbox-host/program.js";

/** Settings of a real sandbox-host process, with the defaults unless given. */
export function hostSettings(settings: Partial<HostProcessSettings> = {}): HostProcessSettings {
  return {
    program: sandboxHostCommand(),
    maxRssMb: SANDBOX_HOST_DEFAULTS.maxRssMb,
    maxThreads: SANDBOX_HOST_DEFAULTS.maxThreads,
    heartbeatMs: SANDBOX_HOST_DEFAULTS.heartbeatMs,
    hangTimeoutMs: SANDBOX_HOST_DEFAULTS.hangTimeoutMs,
    startTimeoutMs: SANDBOX_HOST_DEFAULTS.startTimeoutMs,
    ...settings,
  };
}

/** Whether a process with this id is still running. */
export function isRunning(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
