/**
 * Checks that sandboxed code left the host untouched: a sentinel on the host's globalThis, the host's
 * Object.prototype and Array.prototype, Error.prepareStackTrace, and the host's unhandled rejections.
 */

import { afterEach, beforeEach, expect } from "vitest";

const SENTINEL = "__cordonHostSentinel";
const host = globalThis as unknown as Record<string, unknown>;

/** Installs the sentinel before each test and checks every guard after it. */
export function guardHost(): void {
  let rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  let protoKeys: string[] = [];
  let prepare: unknown;
  beforeEach(() => {
    rejections = [];
    host[SENTINEL] = "host-sentinel";
    protoKeys = Object.getOwnPropertyNames(Object.prototype).sort();
    prepare = (Error as { prepareStackTrace?: unknown }).prepareStackTrace;
    process.on("unhandledRejection", onRejection);
  });
  afterEach(() => {
    process.off("unhandledRejection", onRejection);
    expect(host[SENTINEL]).toBe("host-sentinel");
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(protoKeys);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(typeof [].push).toBe("function");
    expect([1, 2].map((x) => x * 2)).toEqual([2, 4]);
    expect(JSON.stringify({ a: 1 })).toBe('{"a":1}');
    expect((Error as { prepareStackTrace?: unknown }).prepareStackTrace).toBe(prepare);
    expect(rejections).toEqual([]);
    delete host[SENTINEL];
  });
}
