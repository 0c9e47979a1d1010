import { UserError } from "../../common/errors.js";
import type { SandboxLimits } from "../../sandbox/contract/index.js";

/** The limits of one code run. Every number the model reads about limits comes from here. */
export interface CodeModeLimits {
  /** Wall-clock time of one run, in ms. */
  timeoutMs: number;
  /** CPU time of one run, in ms (waiting for tools does not count). */
  cpuTimeMs: number;
  /** Memory of the sandbox, in MB. */
  memoryMb: number;
  /** Tool calls one run may make. */
  maxToolCalls: number;
  /** Tool calls of one run that may be in flight at once. */
  maxConcurrentCalls: number;
  /** Characters of console output kept per run. */
  maxLogChars: number;
  /** Characters of the JSON result the sandbox may hand back. */
  maxResultChars: number;
  /** Characters of the text the model reads about a run (result, logs and error together). */
  maxOutputChars: number;
}

/** The default limits: 30 s, 10 s of CPU, 128 MB, 100 tool calls (16 at once), 10,000 characters of console output. */
export const DEFAULT_CODE_MODE_LIMITS: Readonly<CodeModeLimits> = Object.freeze({
  timeoutMs: 30_000,
  cpuTimeMs: 10_000,
  memoryMb: 128,
  maxToolCalls: 100,
  maxConcurrentCalls: 16,
  maxLogChars: 10_000,
  maxResultChars: 1_000_000,
  maxOutputChars: 20_000,
});

/** Applies defaults and checks each limit is a positive number (a `UserError` names the bad one). */
export function resolveLimits(given: Partial<CodeModeLimits> = {}): CodeModeLimits {
  const limits = { ...DEFAULT_CODE_MODE_LIMITS };
  for (const [key, value] of Object.entries(given)) {
    if (!(key in DEFAULT_CODE_MODE_LIMITS)) {
      const known = Object.keys(DEFAULT_CODE_MODE_LIMITS).join(", ");
      throw new UserError(`codeMode: unknown limit "${key}". Known limits: ${known}.`);
    }
    if (value === undefined) continue;
    if (typeof value !== "number" || !(value > 0) || !Number.isFinite(value)) {
      throw new UserError(`codeMode: limit ${key} must be a finite number > 0, got ${String(value)}.`);
    }
    limits[key as keyof CodeModeLimits] = value;
  }
  if (limits.memoryMb < 8)
    throw new UserError(`codeMode: memoryMb must be at least 8, got ${limits.memoryMb}.`);
  return limits;
}

/** The part of a code run's limits the sandbox enforces (the rest are the host's: calls in flight, output). */
export function sandboxLimitsOf(limits: Readonly<CodeModeLimits>): SandboxLimits {
  return {
    timeoutMs: limits.timeoutMs,
    cpuTimeMs: limits.cpuTimeMs,
    memoryMb: limits.memoryMb,
    maxLogChars: limits.maxLogChars,
    maxResultChars: limits.maxResultChars,
    maxToolCalls: limits.maxToolCalls,
  };
}
