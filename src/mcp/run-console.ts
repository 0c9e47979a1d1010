/**
 * A run's console output sent live to the MCP client whose run_code request runs it, as log messages
 * (`notifications/message`, logger "run_code"). The sandbox reports each console line to the host while
 * the code runs; the code host's environment hands every sandbox it opens through {@link consoleToClient},
 * and the run's link is found from the run_code request that executes the code.
 */

import { AsyncLocalStorage } from "node:async_hooks";
import type { LoggingLevel } from "@modelcontextprotocol/sdk/types.js";
import { groupDigits } from "../../common/numbers.js";
import type { LogEntry, Sandbox, SandboxBridge } from "../../sandbox/contract/index.js";
import type { ClientLink } from "./client-link.js";

/** The MCP log level of each console method. */
const CONSOLE_LOG_LEVELS: Readonly<Record<LogEntry["level"], LoggingLevel>> = {
  log: "info",
  info: "info",
  warn: "warning",
  error: "error",
  debug: "debug",
};

const runs = new AsyncLocalStorage<ClientLink>();

/** Runs `work` (a run_code request) so that the code it executes logs to `link`. */
export function withRunConsole<T>(link: ClientLink, work: () => T): T {
  return runs.run(link, work);
}

/**
 * `sandbox`, whose executions also send their console lines to the link of the request that runs them,
 * up to `maxChars` characters of console output per run (the run's own `maxLogChars`).
 */
export function consoleToClient(sandbox: Sandbox, maxChars: number): Sandbox {
  return {
    execute(request, bridge, signal) {
      // Read when the execution starts: it runs in the async context of the request that made it.
      const link = runs.getStore();
      return sandbox.execute(request, link ? teeConsole(bridge, link, maxChars) : bridge, signal);
    },
    dispose: () => sandbox.dispose(),
    get alive() {
      return sandbox.alive;
    },
    get tainted() {
      return sandbox.tainted;
    },
  };
}

function teeConsole(bridge: SandboxBridge, link: ClientLink, maxChars: number): SandboxBridge {
  let chars = 0;
  const log = (entry: LogEntry) => {
    bridge.log(entry);
    if (chars > maxChars) return;
    chars += entry.text.length + 1;
    if (chars <= maxChars + 1) link.log(CONSOLE_LOG_LEVELS[entry.level], entry.text);
    else {
      link.log(
        "warning",
        `The run's console output passed ${groupDigits(maxChars)} characters; the rest is not sent as log messages.`,
      );
    }
  };
  // The bridge's own methods run on the bridge itself (its fields are private); only log is added to.
  return new Proxy(bridge, {
    get(target, key) {
      if (key === "log") return log;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
