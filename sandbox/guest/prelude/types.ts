/**
 * The shapes of a run's state: the run, the calls its code made, and the journal a resumed run replays.
 * Types only.
 */

import type { GuestReplayedCalls, GuestRunConfig } from "../interface.js";

/**
 * A call the code made: queued until it starts, then waiting for the host's outcome. Once the code
 * waits for it, its promise is resolved with this record (a thenable: its own `then` is `decide`, in `calls.ts`),
 * and V8 calls `decide` in the next microtask, when the code that made the call has moved on.
 */
export interface Pending {
  /** What `tools.<name>()` returned: a call promise (see `call-promises.ts`). */
  promise: Promise<unknown>;
  /** Settles the call's promise; undefined between its lock on this record and `decide`. */
  resolve: ((value: unknown) => void) | undefined;
  /** An outcome that arrived while `resolve` was undefined. */
  held: { value: unknown } | undefined;
  tool: string;
  callId: number;
  argsJson: string;
  /** The name the code used when it differs from the declared ones, else "". */
  requested: string;
  /** The code awaits the call (rather than only chaining it). */
  awaited: boolean;
  then: (this: Pending, resolve: (value: unknown) => void) => void;
}
/** One run of the model's code in this sandbox. */
export interface Run {
  id: number;
  config: GuestRunConfig;
  finished: boolean;
  /** Calls made but not started yet, in the order they were made. */
  queued: Map<Promise<unknown>, Pending>;
  /** Calls started that the host has not answered yet, by call id. */
  pending: Map<number, Pending>;
  /** Tools whose calls may wait for a person (undefined for none): never offered synchronously. */
  waitingTools: Set<string> | undefined;
  calls: number;
  /** `tools.$search` / `tools.$describe` calls made: they have their own ids (negative) and cap. */
  discoveries: number;
  logChars: number;
  droppedLogCalls: number;
  snapshot: (() => Record<string, unknown>) | undefined;
  /** For a run resumed by replay: the journal whose calls are answered here. */
  replay: Replaying | undefined;
}
/**
 * The journal of the run a resumed run replays. A call of the code that is the journal's call at its
 * place (same tool, same arguments) and has an outcome is answered here, without crossing to the host:
 * its outcome is delivered in the recorded order of ending, and no earlier than the code has made
 * `after` calls, so `Promise.race` and progress logic see what they saw. The host is told how many
 * calls were answered here before the next message that concerns calls, so it numbers every call as
 * the code made it; every other call of the journal's part (one that waited for a person, or one that
 * differs, which ends the run) goes to the host at once, in the order the code made it.
 */
export interface Replaying {
  /** The journal's calls as parallel lists (see `GuestReplayedCalls`); `outcomes[i]` is `""` for a live one. */
  journal: GuestReplayedCalls;
  /** How many calls the journal has. */
  length: number;
  /** Calls of the journal the code has made again. */
  matched: number;
  /** Position in `order` of the next outcome to deliver. */
  next: number;
  /** Calls answered here whose outcome waits for its turn, by index; `held` counts them. */
  waiting: Map<number, Pending>;
  held: number;
  /** Calls answered here that the host has not been told of yet. */
  unsent: number;
}
