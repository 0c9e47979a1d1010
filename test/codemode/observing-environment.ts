/**
 * An environment that passes everything through to a real one and notes what crosses its bridge: the
 * tool calls the sandbox sent to the host, and the calls it said it answered itself from a journal.
 */

import type { Environment, Sandbox, SandboxBridge } from "../../sandbox/contract/index.js";

/** What crossed the bridges of an observed environment's runs. */
export interface Crossings {
  /** Tool names of the calls the sandbox sent to the host, in the order they arrived. */
  calls: string[];
  /** The counts of calls the sandbox said it answered from the journal, in the order they arrived. */
  replayed: number[];
}

/**
 * `environment`, with every run's bridge observed into the returned `crossings`. With `withoutJournal`,
 * requests reach the sandbox without `replayCalls`, as when a journal is too large to send: the host
 * then answers every recorded call.
 */
export function observing(
  environment: Environment,
  settings: { withoutJournal?: boolean } = {},
): { environment: Environment; crossings: Crossings } {
  const crossings: Crossings = { calls: [], replayed: [] };
  const observe = (bridge: SandboxBridge): SandboxBridge => ({
    callTool(name, argsJson, waiting, requested) {
      crossings.calls.push(name);
      return bridge.callTool(name, argsJson, waiting, requested);
    },
    log: (entry) => bridge.log(entry),
    record: (values) => bridge.record?.(values),
    replayed(count) {
      crossings.replayed.push(count);
      bridge.replayed?.(count);
    },
  });
  return {
    crossings,
    environment: {
      name: environment.name,
      isolation: environment.isolation,
      close: () => environment.close(),
      async open(limits, options) {
        const sandbox = await environment.open(limits, options);
        const observed: Sandbox = {
          execute: (request, bridge, signal) => {
            const { replayCalls: _journal, ...rest } = request;
            return sandbox.execute(settings.withoutJournal ? rest : request, observe(bridge), signal);
          },
          dispose: () => sandbox.dispose(),
          get alive() {
            return sandbox.alive;
          },
          get tainted() {
            return sandbox.tainted;
          },
        };
        return observed;
      },
    },
  };
}
