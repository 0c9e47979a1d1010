/**
 * The QuickJS environment: the model's code in QuickJS, a JavaScript interpreter compiled to
 * WebAssembly (`quickjs-emscripten`), in the agent's own process and thread. No native addon and no
 * compiler: it runs wherever WebAssembly does. Each sandbox is a WebAssembly instance of its own, so
 * the code's heap is that instance's linear memory, which it cannot read or write past, and a trap
 * (a stack overflow, an abort inside QuickJS) ends that instance only. The same guest prelude as the
 * isolate engine's gives it `tools`, `console` and its errors, with the same limits.
 *
 * What it costs: an interpreter, many times slower than V8's JIT on compute; the code runs on the
 * agent's thread, so a stretch of it holds the agent's event loop (up to the run's CPU limit).
 */

import type { Environment } from "../../sandbox/contract/index.js";
import { QuickJSSandboxes } from "./sandboxes.js";

/**
 * A synchronous QuickJS build of quickjs-emscripten (its `QuickJSSyncVariant`), typed by its shape so
 * that cordon's published types do not depend on quickjs-emscripten's.
 */
export interface QuickJSVariant {
  readonly type: "sync";
}

/** Options of {@link quickjsEnvironment}. */
export interface QuickJSEnvironmentOptions {
  /**
   * The QuickJS build to use (a synchronous variant of quickjs-emscripten, such as
   * `@jitl/quickjs-wasmfile-release-sync`, or one made with `newVariant`); default: that one.
   */
  variant?: QuickJSVariant;
  /**
   * Spare sandboxes made ahead, while the agent's thread is free: 1 (default) or 0. A spare moves the
   * prelude's evaluation (~10-20 ms of this thread) off the path of the next run.
   */
  warm?: 0 | 1;
}

/** The sentence the model's instructions use to describe this environment's isolation. */
export const QUICKJS_ISOLATION =
  "Your code runs in QuickJS, a JavaScript interpreter compiled to WebAssembly, inside the agent's own " +
  "process: it has its own heap in WebAssembly memory, no Node.js APIs (no require, process, file system, " +
  "network or timers) and memory and CPU limits, and can reach the outside world only through `tools`. " +
  "It is an interpreter: heavy computation runs far slower than in V8, and there is no Intl.";

/**
 * Creates the QuickJS environment. Each `open()` hands out a new sandbox in a fresh WebAssembly
 * instance of QuickJS (the spare when one is ready, see {@link QuickJSEnvironmentOptions.warm}).
 * QuickJS is loaded on the first `open`; a missing package is a `UserError` then.
 */
export function quickjsEnvironment(options: QuickJSEnvironmentOptions = {}): Environment {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("quickjsEnvironment: options must be an object, e.g. quickjsEnvironment({}).");
  }
  const warm = options.warm ?? 1;
  if (warm !== 0 && warm !== 1) {
    throw new TypeError(`quickjsEnvironment: warm must be 0 or 1; got ${String(warm)}.`);
  }
  const sandboxes = new QuickJSSandboxes(options.variant, warm === 1);
  return {
    name: "quickjs",
    isolation: QUICKJS_ISOLATION,
    open: (limits) => sandboxes.open(limits),
    close: () => sandboxes.close(),
  };
}
