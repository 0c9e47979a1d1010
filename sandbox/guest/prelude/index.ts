/**
 * The guest prelude's entry: {@link installPrelude}, bundled with every module of this folder into one
 * self-contained function (see `../prelude.ts`), whose body runs inside the guest, before the model's code.
 *
 * Each module's top-level code runs as that function starts, in import order: `intrinsics.ts` first, so
 * every built-in the prelude works with is captured before anything else happens. Top-level code only
 * captures built-ins and makes the prelude's own objects; whatever changes the guest's globals is a
 * function called from {@link installPrelude}, so evaluating a module anywhere else changes nothing.
 */

import type { GuestAnswerSlot, GuestEntry, GuestSend, GuestSyncCall } from "../interface.js";
import { removeGlobals } from "./blocked.js";
import { installClock } from "./clock.js";
import { installGlobals } from "./globals.js";
import { linkHost } from "./links.js";
import { boundMemory } from "./memory.js";
import { entry, noteBuiltinGlobals } from "./runs.js";

/**
 * Installs `tools`, `console`, `ToolCallError` and `queueMicrotask` on the guest's global object,
 * removes or bounds the built-ins that could outlive a run, reach outside the sandbox or hold memory the
 * heap limit does not count, and returns the {@link GuestEntry} the host drives runs with.
 *
 * Everything a run's plumbing does after the model's code may have run (reporting a call, formatting a
 * console line, settling a call, ending a run) uses built-ins captured before it (`intrinsics.ts`),
 * avoids iterators and `instanceof`, never reads a property a prototype could supply, never assigns a
 * property its object lacks (it defines it: an inherited setter would run), and builds nothing of its
 * own through a species the code can set (the answer slot's views are made directly on its buffer, not
 * by `subarray`; its own promises get the frozen outcome prototype before `then`). So nothing of the
 * host's is handed to a function of the code's, and a session's earlier run cannot steer a later one
 * through the prelude. The built-ins it applies to the answer slot and those the engine consults on the
 * way (promise resolution reads `then`, JSON reads `toJSON`, `await` reads `constructor`) are checked
 * first thing in each later run of a sandbox (see `guard.ts`); if an earlier run changed them, the run
 * is refused as tampered.
 */
export function installPrelude(
  send: GuestSend,
  syncCall?: GuestSyncCall,
  answers?: GuestAnswerSlot,
): GuestEntry {
  linkHost(send, syncCall, answers);
  removeGlobals();
  boundMemory();
  installClock();
  noteBuiltinGlobals();
  installGlobals();
  return entry;
}
