/**
 * Node built-ins that cordon loads at their first use rather than with every `import "cordon"`: each
 * costs start-up time that a run which never needs it should not pay.
 * test/architecture/import-cost.test.ts checks that importing cordon loads none of them.
 */

import { createRequire } from "node:module";

/**
 * A built-in module by name, loaded now: through `process.getBuiltinModule` where the runtime has it
 * (Node 20.16+, Bun, Deno, workerd), else through a `require` made here. Nothing runs at import time:
 * in a bundled Worker `import.meta.url` is undefined, and `createRequire` of it would throw.
 */
function builtin<T>(name: string): T {
  const host = globalThis.process as { getBuiltinModule?: (id: string) => unknown } | undefined;
  return (host?.getBuiltinModule ? host.getBuiltinModule(name) : createRequire(import.meta.url)(name)) as T;
}

/** node:zlib, for the first compressed body or checkpoint. */
export const zlib = (): typeof import("node:zlib") => builtin("node:zlib");

/** node:dns, for the first lookup of the SSRF guard. */
export const dns = (): typeof import("node:dns") => builtin("node:dns");

/** node:worker_threads, for the first type checker started. */
export const workerThreads = (): typeof import("node:worker_threads") => builtin("node:worker_threads");

/**
 * node:child_process, for the first sandbox-host process started: `import "cordon"` loads nothing that
 * only Node has, and runtimes without it (workerd) never reach this.
 */
export const childProcess = (): typeof import("node:child_process") => builtin("node:child_process");
