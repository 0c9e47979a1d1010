// The executors the sequential-call scripts (seqcall.mjs, seqcall-parts.mjs, seqcall-threads.mjs) time:
// bench-peers' own cordon and TanStack executors (cordon.mjs, tanstack.mjs), each as `run(n)`, a loop of
// n calls in a row whose value is checked. Copied beside them into .bench-peers/, where bench-peers
// installed the packages.

import { cordonExecutor } from "./cordon.mjs";
import { tanstackExecutor } from "./tanstack.mjs";

/** An executor of bench-peers as a loop of n sequential calls. */
function asLoop(executor) {
  return { name: executor.name, run: (n) => executor.run(executor.code.loop(n), n), close: executor.close };
}

/** cordon's code mode on `environment`, its whole pipeline (zod validation, dispatcher, events) per call. */
export function cordonLoop(name, environment, maxToolCalls = 1_000) {
  return asLoop(cordonExecutor(name, environment, { maxToolCalls }));
}

/** TanStack ai-code-mode with its isolated-vm driver: each call one `applySyncPromise` to the tool. */
export function tanstackLoop(name = "TanStack") {
  return asLoop(tanstackExecutor(name));
}
