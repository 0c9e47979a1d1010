/**
 * The built-ins the prelude uses, checked before each later run of a sandbox: a session's earlier run
 * that changed one of them cannot steer a later one through the prelude, which is refused as tampered.
 */

import {
  ArrayCtor,
  ATOMICS,
  apply,
  arrayValues,
  BigIntPrototype,
  DateCtor,
  ErrorCtor,
  FunctionPrototype,
  getOwnPropertyDescriptor,
  getOwnPropertyDescriptors,
  getPrototypeOf,
  global,
  Int32ArrayCtor,
  JSON_OBJECT,
  ObjectCtor,
  objectIs,
  ownKeys,
  PromiseCtor,
  StringCtor,
  TypedArrayCtor,
  Uint16ArrayCtor,
} from "./intrinsics.js";
import { push, slice, toText } from "./objects.js";

/** One watched built-in: its prototype and own properties as they were, and whether it may grow. */
interface Watched {
  label: string;
  target: object;
  proto: object | null;
  keys: (string | symbol)[];
  /** By key: one built-in call, where a loop would run cold in each new sandbox. */
  descriptors: Record<string | symbol, PropertyDescriptor>;
  /** No property may be added: the engine looks up missing keys (`then`, `toJSON`, species) through it. */
  closed: boolean;
}
const watched: Watched[] = [];
const watch = (label: string, target: unknown, closed: boolean) => {
  if ((typeof target !== "object" && typeof target !== "function") || target === null) return;
  const descriptors = getOwnPropertyDescriptors(target) as Record<string | symbol, PropertyDescriptor>;
  push(watched, {
    label,
    target,
    proto: getPrototypeOf(target),
    keys: ownKeys(target),
    descriptors,
    closed,
  });
};
const ERRORS = ["EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError"];
/** Whether the built-ins were recorded ({@link guard}): only a sandbox that runs again needs it. */
export let guarded = false;
/**
 * Records the watched built-ins, once, before any of the model's code ran in this sandbox: those the
 * engine consults as the prelude works (a missing key, a species, `then`, `toJSON`, an iterator's
 * `next`), and those whose methods the prelude applies to the answer slot and its text (the typed
 * arrays it makes, %TypedArray% with its species, Atomics, String). Built-ins it only took methods from
 * (Reflect, Math, Map...) are not watched: the prelude holds the originals, so a change cannot reach
 * it. Only a sandbox that runs again needs the record, and taking it costs a fresh-state run a good
 * part of its set-up, so it is taken by the first run that is not final (or by the `guard` op before
 * one starts).
 */
export const guard = () => {
  if (guarded) return;
  guarded = true;
  const arrayIterator = getPrototypeOf(apply(arrayValues, [], [])) as object;
  // Object.prototype first: the check reads descriptors, whose missing fields are looked up there.
  watch("Object.prototype", ObjectCtor.prototype, true);
  watch("Function.prototype", FunctionPrototype, true);
  watch("Array.prototype", ArrayCtor.prototype, true);
  watch("Array Iterator prototype", arrayIterator, true);
  watch("Iterator prototype", getPrototypeOf(arrayIterator), true);
  watch("Promise", PromiseCtor, false);
  watch("Promise.prototype", PromiseCtor.prototype, true);
  watch("Error", ErrorCtor, true);
  watch("Error.prototype", ErrorCtor.prototype, true);
  for (let i = 0; i < ERRORS.length; i++) {
    watch(`${ERRORS[i]}.prototype`, (global[ERRORS[i]!] as { prototype: object }).prototype, false);
  }
  watch("Date.prototype", DateCtor.prototype, false);
  watch("BigInt.prototype", BigIntPrototype, true);
  watch("JSON", JSON_OBJECT, false);
  watch("String", StringCtor, false);
  watch("String.prototype", StringCtor.prototype, false);
  watch("Atomics", ATOMICS, false);
  watch("TypedArray", TypedArrayCtor, true);
  watch("TypedArray.prototype", TypedArrayCtor.prototype, true);
  watch("Int32Array", Int32ArrayCtor, true);
  watch("Int32Array.prototype", Int32ArrayCtor.prototype, true);
  watch("Uint16Array", Uint16ArrayCtor, true);
  watch("Uint16Array.prototype", Uint16ArrayCtor.prototype, true);
};

/** Whether two descriptors say the same (`Number.NaN` is the same as itself). */
const sameDescriptor = (a: PropertyDescriptor, b: PropertyDescriptor): boolean =>
  objectIs(a.value, b.value) &&
  a.get === b.get &&
  a.set === b.set &&
  a.writable === b.writable &&
  a.enumerable === b.enumerable &&
  a.configurable === b.configurable;

/** `label.key`, or `label[Symbol.name]` for a symbol. */
const keyLabel = (label: string, key: string | symbol): string => {
  if (typeof key === "string") return `${label}.${key}`;
  const text = toText(key);
  return `${label}[${slice(text, 7, text.length - 1)}]`;
};

/**
 * What an earlier run changed among the watched built-ins, or undefined when nothing. The keys of a
 * closed built-in are checked before its properties, and Object.prototype comes first: the check
 * compares descriptors, and a field a descriptor lacks (`get` of a data property) is looked up on
 * Object.prototype, where a getter the code added would run inside the check (and could undo itself).
 * Object.prototype has no key named like a descriptor's field, and its own prototype cannot change.
 */
export const tampering = (): string | undefined => {
  for (let w = 0; w < watched.length; w++) {
    const { label, target, proto, keys: known, descriptors, closed } = watched[w]!;
    if (getPrototypeOf(target) !== proto) return `the prototype of ${label} was replaced`;
    if (closed) {
      const current = ownKeys(target);
      // As many keys as before means none was added unless one was deleted, which the loop below
      // finds; but Object.prototype (w = 0) is searched whole before any descriptor is read.
      if (w === 0 || current.length !== known.length) {
        for (let i = 0; i < current.length; i++) {
          let found = false;
          for (let j = 0; j < known.length && !found; j++) found = known[j] === current[i];
          if (!found) return `${keyLabel(label, current[i]!)} was added`;
        }
      }
    }
    for (let i = 0; i < known.length; i++) {
      const key = known[i]!;
      const now = getOwnPropertyDescriptor(target, key);
      if (now === undefined) return `${keyLabel(label, key)} was deleted`;
      if (!sameDescriptor(now, descriptors[key]!)) return `${keyLabel(label, key)} was changed`;
    }
  }
  return undefined;
};
