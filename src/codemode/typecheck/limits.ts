/** The numbers of the type check: every figure its messages and documentation state comes from here. */

import type { TypeCheckLimits } from "./types.js";

/** How long one check may take by default, in ms: past it the check is cut off. */
export const DEFAULT_TYPECHECK_TIME_MS = 2_000;

/**
 * The checker's heap by default, in MB. TypeScript with the ES2023 lib and a tool set's declarations
 * holds about 100 MB warm; the rest is room for one check.
 */
export const DEFAULT_TYPECHECK_MEMORY_MB = 512;

/** The default limits of one check. */
export const DEFAULT_TYPECHECK_LIMITS: Readonly<TypeCheckLimits> = Object.freeze({
  timeMs: DEFAULT_TYPECHECK_TIME_MS,
  memoryMb: DEFAULT_TYPECHECK_MEMORY_MB,
});

/**
 * How long past a check's budget its thread may take to say it interrupted the check (and that the
 * compiler still answers right), in ms; a thread that does not is terminated and another one started.
 */
export const TYPECHECK_INTERRUPT_GRACE_MS = 1_000;

/**
 * How many worker threads of one code mode type-check at once by default. Each client's checks (an MCP
 * session's, a session id's) go one at a time and clients take turns, so a client whose checks run to
 * their budget holds one thread and the others' checks go on beside it. One thread starts with the code
 * mode; the second only when two clients check at once. Each costs about 115 MB warm (docs/code-mode.md).
 */
export const DEFAULT_TYPECHECK_WORKERS = 2;

/** The most worker threads a code mode may be given for its type checks. */
export const MAX_TYPECHECK_WORKERS = 16;

/** At most this many TypeScript errors are reported per run; the model fixes these first. */
export const MAX_TYPE_DIAGNOSTICS = 5;

/**
 * How long the checker may take to start (load TypeScript, parse the lib and the declarations) before a
 * check that waits for it gives up. Starting is not counted in a check's own budget.
 */
export const TYPECHECK_START_TIMEOUT_MS = 30_000;

/** A diagnostic's message is cut to this many characters (TypeScript can print long types). */
export const MAX_DIAGNOSTIC_MESSAGE_CHARS = 600;

/** The smallest memory cap a checker may be given, in MB: TypeScript with its lib needs about 100. */
export const MIN_TYPECHECK_MEMORY_MB = 128;

/**
 * A checker unused this long ends its worker thread (and frees what it holds); the next check starts
 * a new one, and waits for it to start (not counted in the check's budget). 10 minutes.
 */
export const TYPECHECK_IDLE_MS = 10 * 60_000;
