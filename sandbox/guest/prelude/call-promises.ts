/**
 * The promises of the prelude's plumbing: what `tools.<name>()` returns (a call promise, whose prototype
 * tells the prelude when the code waits for the call) and the outcome a failed call's promise adopts.
 */

import { run } from "./current-run.js";
import {
  apply,
  create,
  defineProperty,
  freeze,
  getOwnPropertyDescriptor,
  mapGet,
  PromiseCtor,
  promiseThen,
  setPrototypeOf,
  TypeErrorCtor,
} from "./intrinsics.js";
import { bare } from "./objects.js";
import { ToolCallError } from "./tool-call-error.js";
import type { Pending } from "./types.js";

/** A queued call of the current run, by the promise its `tools.<name>()` returned. */
const queuedCall = (promise: unknown): Pending | undefined => {
  const current = run;
  if (current === undefined || current.finished) return undefined;
  return apply(mapGet, current.queued, [promise]) as Pending | undefined;
};
/**
 * The code waits for a queued call: its promise follows the call's record, and `decide` (`calls.ts`)
 * runs next.
 */
const lock = (pending: Pending) => {
  const resolve = pending.resolve;
  if (resolve === undefined) return;
  pending.resolve = undefined;
  resolve(pending);
};
/** The accessors of a call promise's prototype (see {@link CallPromise}). */
const callPromiseParts = {
  /**
   * `await` and `Promise.resolve` read a promise's constructor, synchronously, where the code waits
   * for it; the real Promise here lets `await` take V8's direct path (no `then` call of its own).
   */
  get constructor(): unknown {
    if (!chaining) {
      const pending = queuedCall(this);
      if (pending !== undefined) {
        pending.awaited = true;
        lock(pending);
      }
    }
    return PromiseCtor;
  },
  /** Chaining a call is waiting for it too, but not alone: it starts the asynchronous way. */
  // biome-ignore lint/suspicious/noThenProperty: the call promise's own `then`, the point of the design.
  then(this: unknown, onFulfilled?: unknown, onRejected?: unknown): unknown {
    const pending = queuedCall(this);
    if (pending !== undefined) lock(pending);
    // `then` reads the constructor too (for the promise it returns): that read is not the code's.
    chaining = true;
    try {
      return apply(promiseThen, this, [onFulfilled, onRejected]);
    } finally {
      chaining = false;
    }
  },
};
/** Set while a call promise's own `then` runs. */
let chaining = false;
/**
 * What a call's promise is made with (`construct(PromiseCtor, [executor], CallPromise)`): a native
 * promise whose frozen prototype tells the prelude when the code waits for the call (its constructor
 * getter and its `then`, above; see `decide` in `calls.ts`). Its constructor reads as the real Promise, so
 * `then`, `catch` and `finally` give plain promises. It is never called: it only names the prototype.
 */
export function CallPromise() {
  throw new TypeErrorCtor("Illegal constructor");
}
CallPromise.prototype = freeze(
  create(PromiseCtor.prototype, {
    constructor: bare({ get: getOwnPropertyDescriptor(callPromiseParts, "constructor")!.get }),
    // biome-ignore lint/suspicious/noThenProperty: see callPromiseParts.
    then: bare({ value: callPromiseParts.then }),
  }),
);
freeze(CallPromise);
/**
 * The prototype of a failed call's outcome ({@link failLater}): the real `then`, and a constructor
 * whose species is the real Promise, all frozen. A call's promise adopts that outcome through its
 * `then`, so the adoption consults nothing the code may have patched (Promise.prototype.then, its
 * constructor, Promise's species) and hands no promise of the prelude's to the code.
 */
function OutcomePromise() {
  throw new TypeErrorCtor("Illegal constructor");
}
/** The frozen prototype of the prelude's own promises (see OutcomePromise above). */
export const outcomePrototype = freeze(
  create(PromiseCtor.prototype, {
    constructor: bare({ value: OutcomePromise }),
    // biome-ignore lint/suspicious/noThenProperty: the real `then`, out of the code's reach.
    then: bare({ value: promiseThen }),
  }),
);
OutcomePromise.prototype = outcomePrototype;
defineProperty(OutcomePromise, Symbol.species, bare({ value: PromiseCtor }));
freeze(OutcomePromise);
/**
 * A failed call's outcome: a promise that rejects with the ToolCallError, made two microtasks later.
 * By then the call's promise has adopted this one, so V8's async stack trace of the error runs on
 * through the code awaiting the call and names the line of the model's code that awaited it (the error
 * is made only for a failed call: capturing a stack for every call was a large share of a call's cost).
 */
export const failLater = (tool: string, kind: string, message: string): Promise<never> => {
  const failing = (async () => {
    await undefined;
    await undefined;
    throw new ToolCallError(tool, kind, message);
  })();
  setPrototypeOf(failing, outcomePrototype);
  return failing;
};

/** The resolve function of the promise made last with {@link captureArgs}. */
export let captured: (value: unknown) => void = () => {};
/** The executor of a call's promise, as `construct` takes it: one for every call, no closure each. */
export const captureArgs = freeze([
  (resolve: (value: unknown) => void) => {
    captured = resolve;
  },
]);
