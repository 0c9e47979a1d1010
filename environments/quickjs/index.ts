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

import type { QuickJSSyncVariant } from "quickjs-emscripten-core";
import { UserError } from "../../common/errors.js";
import type { Environment, Sandbox, SandboxLimits } from "../../sandbox/contract/index.js";
import { loadQuickJS, type QuickJSInstances } from "./load.js";
import { QuickJSSandbox } from "./sandbox.js";

/** Options of {@link quickjsEnvironment}. */
export interface QuickJSEnvironmentOptions {
  /**
   * The QuickJS build to use (a synchronous variant of quickjs-emscripten, such as
   * `@jitl/quickjs-wasmfile-release-sync`, or one made with `newVariant`); default: that one.
   */
  variant?: QuickJSSyncVariant;
}

/** The sentence the model's instructions use to describe this environment's isolation. */
export const QUICKJS_ISOLATION =
  "Your code runs in QuickJS, a JavaScript interpreter compiled to WebAssembly, inside the agent's own " +
  "process: it has its own heap in WebAssembly memory, no Node.js APIs (no require, process, file system, " +
  "network or timers) and memory and CPU limits, and can reach the outside world only through `tools`. " +
  "It is an interpreter: heavy computation runs far slower than in V8, and there is no Intl.";

/**
 * Creates the QuickJS environment. Each `open()` hands out a new sandbox in a fresh WebAssembly
 * instance of QuickJS. QuickJS is loaded on the first `open`; a missing package is a `UserError` then.
 */
export function quickjsEnvironment(options: QuickJSEnvironmentOptions = {}): Environment {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("quickjsEnvironment: options must be an object, e.g. quickjsEnvironment({}).");
  }
  let instances: Promise<QuickJSInstances> | undefined;
  const live = new Set<Sandbox>();
  let closed = false;
  const open = async (limits: SandboxLimits): Promise<Sandbox> => {
    if (closed) throw new UserError("This QuickJS environment was closed; create a new one.");
    instances ??= loadQuickJS(options.variant).catch((error: unknown) => {
      instances = undefined;
      throw new UserError(error instanceof Error ? error.message : String(error));
    });
    const instance = await (await instances)();
    let opened: Sandbox | undefined;
    opened = QuickJSSandbox.open(instance, limits, () => {
      if (opened) live.delete(opened);
    });
    live.add(opened);
    return opened;
  };
  return {
    name: "quickjs",
    isolation: QUICKJS_ISOLATION,
    open,
    async close() {
      closed = true;
      await Promise.all([...live].map((sandbox) => sandbox.dispose()));
      live.clear();
    },
  };
}
