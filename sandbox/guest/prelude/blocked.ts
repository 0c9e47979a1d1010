/**
 * Globals that must not exist in the sandbox, and the messages for code that reaches for them (a
 * ReferenceError for one of these names says why it is missing and what to do instead).
 */

import { apply, global, MapCtor, mapSet } from "./intrinsics.js";

const NO_HOST =
  "is not available in run_code: the code runs in an isolated sandbox with no modules, file system, " +
  "network or process. Call tools.<name>(args) instead.";
const NO_NETWORK =
  "is not available in run_code: the sandbox has no network. Call tools.<name>(args) to reach outside.";
const NO_TIMERS =
  "is not available in run_code: timers could outlive the run. To wait, await the tool calls " +
  "(Promise.all runs them together); to defer work, use `await null` or queueMicrotask().";
const NOT_PROVIDED = "is not available in run_code.";

/** What to say about each name the sandbox does not have, by name. */
export const unavailable = new MapCtor<string, string>();
const block = (names: string[], message: string) => {
  for (let i = 0; i < names.length; i++) apply(mapSet, unavailable, [names[i], message]);
};
block(
  ["require", "module", "exports", "process", "Buffer", "__dirname", "__filename", "Deno", "Bun"],
  NO_HOST,
);
block(["fetch", "XMLHttpRequest", "WebSocket", "EventSource"], NO_NETWORK);
block(
  ["setTimeout", "setInterval", "setImmediate", "clearTimeout", "clearInterval", "clearImmediate"],
  NO_TIMERS,
);
block(["FinalizationRegistry", "WebAssembly", "SharedArrayBuffer"], NOT_PROVIDED);
block(["structuredClone"], `${NOT_PROVIDED} Copy plain data with JSON.parse(JSON.stringify(value)).`);
block(["global", "window", "self"], `${NOT_PROVIDED} Use globalThis.`);

/**
 * Removes the globals that must not exist: FinalizationRegistry callbacks could run after a run ended;
 * WebAssembly memory is reserved outside the heap limit; SharedArrayBuffer gives precise timers and
 * blocking waits. The engine's own console is replaced (see `globals.ts`).
 */
export const removeGlobals = () => {
  for (const name of ["FinalizationRegistry", "WebAssembly", "SharedArrayBuffer", "console"]) {
    delete global[name];
  }
};
