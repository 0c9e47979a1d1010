/**
 * The few assertions the conformance cases make, for every runtime at once: vitest's `expect` runs on
 * Node only, and the same case bodies run on Bun, Deno and in a workerd Worker (scripts/runtime-matrix.sh).
 * Each throws an AssertionError saying what was expected and what came.
 */

/** A value in an expected shape that matches by a rule rather than by equality. */
class Matcher {
  constructor(
    readonly describe: string,
    readonly test: (actual: unknown) => boolean,
  ) {}
  toJSON(): string {
    return this.describe;
  }
}

/** Matches any string (vitest's `expect.any(String)`). */
export const anyString = new Matcher("<any string>", (actual) => typeof actual === "string");

/** Matches a string that `pattern` matches (vitest's `expect.stringMatching`). */
export function matching(pattern: RegExp): Matcher {
  return new Matcher(`<matching ${pattern}>`, (actual) => typeof actual === "string" && pattern.test(actual));
}

function fail(what: string, expected: string, actual: unknown): never {
  const error = new Error(`${what}: expected ${expected}, got ${show(actual)}`);
  error.name = "AssertionError";
  throw error;
}

function show(value: unknown): string {
  if (value === undefined) return "undefined";
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Whether `actual` has the shape of `expected`: arrays item by item, objects key by key (keys whose value
 * is undefined count as absent, as with vitest's toEqual), matchers by their rule, the rest by Object.is.
 * With `partial`, `actual` may have more keys than `expected` (vitest's toMatchObject).
 */
function fits(actual: unknown, expected: unknown, partial: boolean): boolean {
  if (expected instanceof Matcher) return expected.test(actual);
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((item, i) => fits(actual[i], item, partial))
    );
  }
  if (isPlainObject(expected)) {
    if (!isPlainObject(actual)) return false;
    const keys = (object: Record<string, unknown>) =>
      Object.keys(object).filter((key) => object[key] !== undefined);
    const expectedKeys = keys(expected);
    if (!partial && keys(actual).length !== expectedKeys.length) return false;
    return expectedKeys.every((key) => fits(actual[key], expected[key], partial));
  }
  return Object.is(actual, expected);
}

/** `actual` equals `expected`, deeply (matchers allowed inside). */
export function equal(actual: unknown, expected: unknown, what = "value"): void {
  if (!fits(actual, expected, false)) fail(what, show(expected), actual);
}

/** `actual` has at least the keys and values of `expected`, deeply (vitest's toMatchObject). */
export function like(actual: unknown, expected: unknown, what = "value"): void {
  if (!fits(actual, expected, true)) fail(what, `an object like ${show(expected)}`, actual);
}

/** `actual` is a string that `pattern` matches. */
export function match(actual: unknown, pattern: RegExp, what = "text"): void {
  if (typeof actual !== "string" || !pattern.test(actual)) fail(what, `a string matching ${pattern}`, actual);
}

/** `actual` is a string that contains `part`, or an array with an item equal to it. */
export function contains(actual: unknown, part: unknown, what = "value"): void {
  const found =
    (typeof actual === "string" && typeof part === "string" && actual.includes(part)) ||
    (Array.isArray(actual) && actual.some((item) => fits(item, part, false)));
  if (!found) fail(what, `something containing ${show(part)}`, actual);
}

/** `actual` is a number no smaller than `least`. */
export function atLeast(actual: unknown, least: number, what = "number"): void {
  if (typeof actual !== "number" || actual < least) fail(what, `at least ${least}`, actual);
}

/** `actual` is a number no larger than `most`. */
export function atMost(actual: unknown, most: number, what = "number"): void {
  if (typeof actual !== "number" || actual > most) fail(what, `at most ${most}`, actual);
}

/** `actual` is a number larger than `than`. */
export function above(actual: unknown, than: number, what = "number"): void {
  if (typeof actual !== "number" || actual <= than) fail(what, `more than ${than}`, actual);
}

/** `actual` has exactly `length` items. */
export function lengthOf(actual: unknown, length: number, what = "list"): void {
  if (!Array.isArray(actual) || actual.length !== length) fail(what, `${length} items`, actual);
}
