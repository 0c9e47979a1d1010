/**
 * The globals the prelude adds: `tools`, `console`, `ToolCallError`, `queueMicrotask`, and `globalThis`
 * made fast. They are defined once and can never be redefined or deleted: a run cannot leave a fake
 * `tools` (or console) for the next run of its session. `tools` reads the current run's object.
 */

import { outcomePrototype } from "./call-promises.js";
import { sandboxConsole } from "./console.js";
import {
  apply,
  defineProperty,
  freeze,
  getOwnPropertyDescriptor,
  PromiseCtor,
  promiseResolveStatic,
  promiseThen,
  setPrototypeOf,
  TypeErrorCtor,
} from "./intrinsics.js";
import { bare } from "./objects.js";
import { ToolCallError } from "./tool-call-error.js";

/** What `tools` reads: the current run's tools object. */
let currentTools: unknown = freeze({});
/** Makes `tools` read `next` (a run's tools object). */
export const setCurrentTools = (next: unknown) => {
  currentTools = next;
};

const lockGlobal = (name: string, descriptor: PropertyDescriptor) => {
  defineProperty(globalThis, name, bare({ ...descriptor, enumerable: false, configurable: false }));
};
const toolsHolder = {
  get tools() {
    return currentTools;
  },
};

/** Installs the globals (once, at install). */
export const installGlobals = () => {
  freeze(ToolCallError.prototype);
  freeze(ToolCallError);
  lockGlobal("tools", { get: getOwnPropertyDescriptor(toolsHolder, "tools")!.get });
  lockGlobal("console", { value: sandboxConsole, writable: false });
  lockGlobal("ToolCallError", { value: ToolCallError, writable: false });
  lockGlobal("globalThis", { value: globalThis, writable: false });
  lockGlobal("queueMicrotask", {
    value: (callback: unknown) => {
      if (typeof callback !== "function") throw new TypeErrorCtor("queueMicrotask needs a function");
      // The promise is the prelude's own: given the outcome prototype, `then` consults nothing the code set.
      const ready = apply(promiseResolveStatic, PromiseCtor, [undefined]) as Promise<unknown>;
      setPrototypeOf(ready, outcomePrototype);
      apply(promiseThen, ready, [() => callback()]);
    },
    writable: false,
  });
};
