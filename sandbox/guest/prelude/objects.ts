/**
 * Small helpers over the captured built-ins that the rest of the prelude uses instead of the code's
 * reach: objects without a prototype, properties defined rather than assigned, strings sliced and shown
 * without consulting anything the model's code can change.
 */

import {
  apply,
  arrayJoin,
  defineProperty,
  getOwnPropertyDescriptor,
  hasInstance,
  isArray,
  StringCtor,
  setPrototypeOf,
  stringSlice,
  symbolToString,
} from "./intrinsics.js";

/**
 * The same object without a prototype. Descriptors and reports are read by the engine (`get`, `set`,
 * `toJSON`); with no prototype, whatever the code adds to Object.prototype cannot change them.
 */
export const bare = <T extends object>(object: T): T => {
  setPrototypeOf(object, null);
  return object;
};
/** `value` without a prototype when it is a (non-array) object, as parsed from JSON. */
export const bareParsed = (value: unknown): void => {
  if (typeof value === "object" && value !== null && !isArray(value)) setPrototypeOf(value, null);
};

/** Array.prototype.join as captured. */
export const join = (items: unknown[], separator: string): string =>
  apply(arrayJoin, items, [separator]) as string;
/** The descriptor {@link defineOwn} defines with (no prototype: nothing of Object.prototype is read). */
const element: PropertyDescriptor = bare({
  value: undefined,
  writable: true,
  enumerable: true,
  configurable: true,
});
/** Gives `object` an own, writable, enumerable property `key`: defined, so no inherited setter runs. */
export const defineOwn = (object: object, key: string | number, value: unknown): void => {
  element.value = value;
  defineProperty(object, key, element);
  element.value = undefined;
};
/**
 * Appends `item` as an own element. Not Array.prototype.push, nor `items[items.length] = item`: both
 * assign, and assigning an index the array lacks runs a setter the code may have put on
 * Array.prototype (or Object.prototype), with the array and the item as its arguments.
 */
export const push = (items: unknown[], item: unknown): void => defineOwn(items, items.length, item);
/** String.prototype.slice as captured. */
export const slice = (text: string, start: number, end?: number): string =>
  apply(stringSlice, text, end === undefined ? [start] : [start, end]) as string;
/** `value` as text (a symbol too), or a placeholder when turning it into text throws. */
export const toText = (value: unknown): string => {
  try {
    return typeof value === "symbol" ? (apply(symbolToString, value, []) as string) : StringCtor(value);
  } catch {
    return "[value that cannot be shown]";
  }
};
/** `value instanceof ctor`, without consulting a `Symbol.hasInstance` the code may have added. */
export const isInstance = (value: unknown, ctor: unknown): boolean => {
  try {
    return apply(hasInstance, ctor, [value]) as boolean;
  } catch {
    return false;
  }
};
/** Whether `method` accepts `value` as its receiver: a brand check that runs no code of the model's. */
export const hasBrand = (method: (...args: never[]) => unknown, value: unknown): boolean => {
  try {
    apply(method, value, []);
    return true;
  } catch {
    return false;
  }
};
/**
 * An own property's descriptor without a prototype, or undefined: reading `value`, `get` or `set` of a
 * descriptor as the engine returns it looks a field it lacks up on Object.prototype.
 */
export const ownDescriptor = (object: object, key: string | symbol): PropertyDescriptor | undefined => {
  const descriptor = getOwnPropertyDescriptor(object, key);
  if (descriptor !== undefined) setPrototypeOf(descriptor, null);
  return descriptor;
};
/** The value of an own data property, else undefined: no getter runs. */
export const dataOf = (object: object, key: string | symbol): unknown => ownDescriptor(object, key)?.value;
/** `text` cut to `max` characters, saying how many more there were. */
export const cut = (text: string, max: number): string =>
  text.length <= max ? text : `${slice(text, 0, max)}… [${text.length - max} more characters]`;
/** Reads a property of something the code threw, without letting a throwing getter escape. */
export const readField = (source: object, key: string): unknown => {
  try {
    return (source as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
};
