/**
 * The promises of the prelude's plumbing: what `tools.<name>()` returns (a call promise, whose prototype
 * tells the prelude when the code waits for the call) and the outcome a failed call's promise adopts.
 */

import { DESCRIBE_CALL, SEARCH_CALL } from "../../contract/index.js";
import { run } from "./current-run.js";
import {
  apply,
  create,
  defineProperty,
  freeze,
  getOwnPropertyDescriptor,
  MapCtor,
  mapGet,
  mapSet,
  ObjectCtor,
  ownKeys,
  PromiseCtor,
  ProxyCtor,
  promiseThen,
  reflectGet,
  SetCtor,
  setAdd,
  setHas,
  setPrototypeOf,
  TypeErrorCtor,
} from "./intrinsics.js";
import { bare, slice, toText } from "./objects.js";
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
 * The keys a call's promise answers as any promise does: a promise's own (Promise.prototype's `then`,
 * `catch`, `finally`, `constructor`, Symbol.toStringTag), every object's (Object.prototype's `toString`,
 * `valueOf`, `hasOwnProperty`...) and Symbol.toPrimitive, which turning it into text looks for. Taken as
 * the prelude is installed, before any code ran.
 */
const promiseKeys = new SetCtor<string | symbol>();
const promiseKeyList = [
  ...ownKeys(PromiseCtor.prototype),
  ...ownKeys(ObjectCtor.prototype),
  Symbol.toPrimitive,
];
for (let i = 0; i < promiseKeyList.length; i++) apply(setAdd, promiseKeys, [promiseKeyList[i]]);
/** The part of a forgotten-`await` hint that says which key was read: `.reduce`, `[Symbol.iterator]`. */
const keyText = (key: string | symbol): string => {
  if (typeof key === "string") return `.${key}`;
  const text = toText(key);
  return `[${slice(text, 7, text.length - 1)}]`;
};
/** The name the code called a tool by, by the object its calls' promises' prototype chain ends in. */
const hintNames = new MapCtor<object, string>();
/**
 * The handler of the proxy each tool's call promises end their prototype chain in (see
 * {@link callPromiseType}): a promise's own keys are looked up as on any promise, any other throws the
 * forgotten-`await` hint. It has no prototype: a trap it lacks is never looked up on Object.prototype.
 */
const forgottenAwait = bare({
  get(target: object, key: string | symbol, receiver: unknown): unknown {
    if (apply(setHas, promiseKeys, [key])) return reflectGet(target, key, receiver);
    const name = apply(mapGet, hintNames, [target]) as string;
    throw new TypeErrorCtor(
      `tools.${name}(...) returns a Promise: did you forget \`await\`? (the code read ${keyText(key)} of the Promise, not of its value)`,
    );
  },
});
/** The own properties of every call promise's prototype: the constructor getter and `then` above. */
const callPromiseDescriptors = bare({
  constructor: bare({ get: getOwnPropertyDescriptor(callPromiseParts, "constructor")!.get }),
  // biome-ignore lint/suspicious/noThenProperty: see callPromiseParts.
  then: bare({ value: callPromiseParts.then }),
});
/** What the promises of one tool's calls are made with: `construct(PromiseCtor, [executor], type)`. */
export type CallPromiseType = () => never;
/** The call promise types made in this sandbox, by the name the code calls the tool by. */
const callPromiseTypes = new MapCtor<string, CallPromiseType>();
/** The name the code called a tool by, by the prototype of its calls' promises (for the console). */
export const callPromiseNames = new MapCtor<object, string>();
/**
 * What the promises of `tools.<codeName>()` are made with, made once per sandbox: native promises whose
 * frozen prototype tells the prelude when the code waits for the call (its constructor getter and its
 * `then`, above; see `decide` in `calls.ts`). Their constructor reads as the real Promise, so `then`,
 * `catch` and `finally` give plain promises. Any other key is looked up on what the prototype's chain
 * ends in: a proxy ({@link forgottenAwait}) that throws a TypeError saying `tools.<codeName>(...) returns
 * a Promise: did you forget \`await\`?`, so the model's most common mistake reads as itself rather than
 * as `orders.reduce is not a function`, or as a silent `undefined` for `orders.length`. The proxy's
 * target is a frozen, empty object of the prelude's whose prototype is Promise.prototype (the promise is
 * still `instanceof Promise`): the code can neither change it nor reach anything through it. Nothing is
 * made per call. The type is never called: it only names the prototype.
 */
export const callPromiseType = (codeName: string): CallPromiseType => {
  const known = apply(mapGet, callPromiseTypes, [codeName]) as CallPromiseType | undefined;
  if (known !== undefined) return known;
  const end = freeze(create(PromiseCtor.prototype));
  apply(mapSet, hintNames, [end, codeName]);
  const prototype = freeze(create(new ProxyCtor(end, forgottenAwait), callPromiseDescriptors));
  function CallPromise(): never {
    throw new TypeErrorCtor("Illegal constructor");
  }
  CallPromise.prototype = prototype;
  freeze(CallPromise);
  apply(mapSet, callPromiseTypes, [codeName, CallPromise]);
  apply(mapSet, callPromiseNames, [prototype, codeName]);
  return CallPromise;
};
// The discovery calls' types are made at install, which compiles callPromiseType there rather than at a
// sandbox's first tool call: a warm spare is installed before its run starts.
callPromiseType(SEARCH_CALL);
callPromiseType(DESCRIBE_CALL);
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
