/**
 * Whether `value` is a promise or another thenable: something to wait for, not a result yet. Reading
 * `then` runs a getter when the value has one, so a value that came from a tool is checked where a throw
 * is handled.
 */
export function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === "function";
}
