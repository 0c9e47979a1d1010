/**
 * The guest prelude: code that runs INSIDE a sandbox, before the model's code, to give it `tools`,
 * `console` and clear errors. Every environment shares it: the isolate engine (`sandbox/isolate`)
 * evaluates it in each V8 isolate, whichever process hosts the engine (the agent's, a sandbox-host
 * process, a container).
 *
 * It is written as modules in `prelude/` (the entry, `prelude/index.ts`, exports `installPrelude`), and
 * esbuild bundles them into one self-contained function (`scripts/bundle-prelude.mjs` writes it into
 * `prelude.generated.ts`). The host never runs it: it hands the source text ({@link preludeSource}) to
 * each context, where calling the function evaluates every module, capturing the built-ins first, and
 * installs the prelude before the model's code runs. The bundle names nothing but the language's own
 * built-ins (a test holds it). The host and the guest talk through three functions that carry strings
 * and numbers only, and in-process through a slot of shared memory where the host writes a call's answer
 * as text (their types, and the names both sides use, are in `interface.ts`):
 *
 * - the guest calls `send(type, runId, id, a, b)` (a `GuestSend`) to report a tool call, a console line
 *   or the end of a run;
 * - the host calls the returned `GuestEntry` to start a run and to settle tool calls;
 * - for a call the code awaits with nothing else in flight, the guest offers it to `syncCall` (a
 *   `GuestSyncCall`) instead: a tool that answers at once answers within that one crossing, where `send`
 *   and a settle take two; a later outcome is settled like any call;
 * - or, given an `answers` slot (a `GuestAnswerSlot`, in-process sandboxes), it sends such a call as a
 *   `now` message and spins on the slot for the answer for a bounded while, so that no thread sleeps
 *   through a call that a synchronous tool answers in microseconds.
 *
 * The prelude keeps `send`, `syncCall` and the slot in its own scope (`prelude/links.ts`) and never
 * hands them (or anything else of the host's) to the model's code, so nothing the host passed in is
 * reachable from `globalThis` or any prototype chain, nor handed to a species, getter, setter or `then`
 * the code installed.
 */

import { PRELUDE_SOURCE } from "./prelude.generated.js";

/**
 * The JavaScript source of a function expression equivalent to `installPrelude` (`prelude/index.ts`),
 * to be evaluated in the guest, e.g. `"use strict"; return (SOURCE)(send, syncCall, answers);`: it
 * installs the prelude and returns the guest's entry.
 */
export function preludeSource(): string {
  return PRELUDE_SOURCE;
}
