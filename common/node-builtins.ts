/**
 * Node built-ins that cordon loads at their first use rather than with every `import "cordon"`: each
 * costs start-up time that a run which never needs it should not pay.
 * test/architecture/import-cost.test.ts checks that importing cordon loads none of them.
 */

import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** node:zlib, for the first compressed body or checkpoint. */
export const zlib = (): typeof import("node:zlib") => require("node:zlib");

/** node:dns, for the first lookup of the SSRF guard. */
export const dns = (): typeof import("node:dns") => require("node:dns");

/** node:worker_threads, for the first type checker started. */
export const workerThreads = (): typeof import("node:worker_threads") => require("node:worker_threads");
