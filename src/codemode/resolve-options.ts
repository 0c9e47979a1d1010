/**
 * `codeMode()`'s options resolved: every one checked (a `UserError` names the bad one and what it takes)
 * and given its default, the old names put in their groups. A function of the options alone: it opens
 * nothing, starts nothing and reads no file, so that what a code mode is made with can be tested without
 * an environment. The wiring (`code-mode.ts`) makes the code mode from what it returns.
 */

import { UserError } from "../../common/errors.js";
import type { Environment } from "../../sandbox/contract/index.js";
import type { Dispatcher } from "../dispatch/dispatcher.js";
import type { Toolset } from "../tools/toolset.js";
import type { RunContext } from "../tools/types.js";
import type { RunJournal } from "./durable/run-journal.js";
import { type ResolvedFlows, resolveFlows } from "./flows.js";
import { givenTools } from "./given-tools.js";
import { type CodeModeLimits, resolveLimits } from "./limits.js";
import { ObservedTypes } from "./observed/store.js";
import { withGroupedNames } from "./option-aliases.js";
import type { CodeModeOptions, DiscoveryMode } from "./options.js";
import { checkpointKeyBytes, DEFAULT_CHECKPOINT_TTL_MS } from "./pause/checkpoint.js";
import { type CheckpointClaims, type PauseSettings, PROCESS_CLAIMS } from "./pause/pause.js";
import { SESSIONS_DO_NOT_PAUSE } from "./run.js";
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS } from "./sessions.js";
import {
  DEFAULT_TYPECHECK_LIMITS,
  DEFAULT_TYPECHECK_WORKERS,
  MAX_TYPECHECK_WORKERS,
  MIN_TYPECHECK_MEMORY_MB,
} from "./typecheck/limits.js";
import { resolveTypeScriptFromCordon, type TypeScriptResolver } from "./typecheck/resolve-typescript.js";
import { TYPECHECK_MODES, type TypeCheckLimits, type TypeCheckMode } from "./typecheck/types.js";

/**
 * The inline budget's default, in tokens: declarations up to this are inlined. Above it, the index, one
 * run that looks the needed tools up and the declarations it returns cost less than the declarations
 * repeated on every turn (bench/tokens.ts). It matches `cordon mcp`'s switch to search_tools at 24,000
 * characters of declarations.
 */
export const DEFAULT_INLINE_BUDGET = 2_000;

/** A code mode's options, checked and complete. */
export interface ResolvedCodeModeOptions {
  /** The tools the code is given (the dispatcher's, when one was given). */
  toolset: Toolset;
  /** The dispatcher given; undefined when the code mode makes its own over `toolset`. */
  dispatcher: Dispatcher | undefined;
  /** The environment given; `codeMode()` fills in the default one before resolving. */
  environment: Environment | undefined;
  name: string;
  limits: CodeModeLimits;
  state: "fresh" | "session";
  sessions: { idleMs: number; max: number };
  approval: "wait" | "pause" | "plan";
  /** With a `pause.key`: how checkpoints are sealed, kept and claimed. */
  pause: PauseSettings | undefined;
  typecheck: {
    mode: TypeCheckMode;
    limits: TypeCheckLimits;
    workers: number;
    clientOf: ((ctx: RunContext) => string | undefined) | undefined;
    resolveTypeScript: TypeScriptResolver;
  };
  discovery: { mode: DiscoveryMode; inlineBudget: number; declarationsIn: "tool" | "instructions" };
  /** `store` undefined: the code mode keeps its own. */
  observe: { results: boolean; store: ObservedTypes | undefined };
  /** With a `journal`: where runs are journaled, and how long a lease lasts. */
  journal: { store: RunJournal; leaseMs: number } | undefined;
  /** The flow policies, checked against the tools; undefined when there are none. */
  flows: ResolvedFlows | undefined;
}

/** How long a durable run's lease lasts unless renewed, by default: 30 s. */
export const DEFAULT_LEASE_MS = 30_000;

/** The top-level option names (the old ones aside): at most 14, each group a feature's settings. */
export const CODE_MODE_OPTION_NAMES = [
  "tools",
  "dispatcher",
  "environment",
  "limits",
  "name",
  "state",
  "sessions",
  "approval",
  "pause",
  "typecheck",
  "discovery",
  "observe",
  "journal",
  "flows",
] as const satisfies readonly (keyof CodeModeOptions)[];

/** Checks `options` and fills in every default. Throws a `UserError` naming the first bad option. */
export function resolveCodeModeOptions(options: CodeModeOptions): ResolvedCodeModeOptions {
  if (typeof options !== "object" || options === null) {
    throw new UserError("codeMode takes an options object: codeMode({ tools: [getOrder] }).");
  }
  const grouped = withGroupedNames(options);
  knownKeys(grouped, CODE_MODE_OPTION_NAMES, "codeMode");
  const { toolset, dispatcher } = givenTools(grouped.tools, grouped.dispatcher);
  const { environment } = grouped;
  if (environment !== undefined && typeof environment?.open !== "function") {
    throw new UserError("codeMode: environment must be an Environment, for example isolateEnvironment().");
  }
  const state = oneOf(grouped.state ?? "fresh", ["fresh", "session"], "state");
  const approval = oneOf(grouped.approval ?? "wait", ["wait", "pause", "plan"], "approval");
  if (approval !== "wait" && state === "session") throw new UserError(`codeMode: ${SESSIONS_DO_NOT_PAUSE}`);
  const pause = pauseOf(grouped.pause);
  if (approval !== "wait" && pause === undefined) {
    throw new UserError(
      `codeMode: approval "${approval}" needs pause.key: a secret of at least 16 bytes that seals checkpoints, the same wherever they are resumed.`,
    );
  }
  if (approval === "plan" && grouped.journal !== undefined) {
    throw new UserError(
      'codeMode: approval "plan" does not go with a journal yet: make plans with a code mode that has the same tools and pause.key and no journal.',
    );
  }
  const journal = journalOf(grouped.journal, "codeMode");
  if (journal && pause === undefined) {
    throw new UserError(
      "codeMode: journal needs pause.key: the secret that seals the journal's records, the same wherever its runs are recovered.",
    );
  }
  if (journal && state === "session") {
    throw new UserError(`codeMode: ${JOURNAL_WITHOUT_SESSIONS}`);
  }
  return {
    toolset,
    dispatcher,
    environment,
    name: grouped.name ?? "run_code",
    limits: resolveLimits(grouped.limits),
    state,
    sessions: sessionsOf(grouped.sessions),
    approval,
    pause,
    typecheck: typecheckOf(grouped.typecheck),
    discovery: discoveryOf(grouped.discovery),
    observe: observeOf(grouped.observe),
    journal,
    flows: resolveFlows(grouped.flows, toolset),
  };
}

/** Why a journaled run cannot be a session's. */
export const JOURNAL_WITHOUT_SESSIONS =
  'journal does not work with state "session": a run is recovered by running its code again in a fresh sandbox, where the variables of the session\'s earlier runs are gone.';

/**
 * The journal store and lease, from a store or `{ store, leaseMs }`: the code mode's, or one run's
 * (`cm.run(code, { journal })`); `where` names which in an error.
 */
export function journalOf(
  given: CodeModeOptions["journal"],
  where: string,
): ResolvedCodeModeOptions["journal"] {
  if (given === undefined) return undefined;
  const settings = isRunJournal(given)
    ? { store: given }
    : group(given, "journal", ["store", "leaseMs"], where);
  if (!isRunJournal(settings.store)) {
    throw new UserError(
      `${where}: journal must be a RunJournal store (memoryJournal(), fileJournal(dir), postgresJournal({ pool }), or one with create, append, end, renew, claim, read, incomplete and remove), or { store, leaseMs }.`,
    );
  }
  const leaseMs =
    wholeNumber(settings.leaseMs, "journal.leaseMs", 3, undefined, "", where) ?? DEFAULT_LEASE_MS;
  return { store: settings.store, leaseMs };
}

const JOURNAL_METHODS = [
  "create",
  "append",
  "end",
  "renew",
  "claim",
  "read",
  "incomplete",
  "remove",
] as const;

function isRunJournal(value: unknown): value is RunJournal {
  const store = value as Record<string, unknown> | undefined;
  return (
    typeof store === "object" &&
    store !== null &&
    JOURNAL_METHODS.every((name) => typeof store[name] === "function")
  );
}

function sessionsOf(given: CodeModeOptions["sessions"]): ResolvedCodeModeOptions["sessions"] {
  const sessions = group(given, "sessions", ["idleMs", "max"]);
  return {
    idleMs: wholeNumber(sessions.idleMs, "sessions.idleMs", 1) ?? DEFAULT_SESSION_IDLE_MS,
    max: wholeNumber(sessions.max, "sessions.max", 1) ?? DEFAULT_MAX_SESSIONS,
  };
}

/** With a `pause.key`: how runs pause and resume. */
function pauseOf(given: CodeModeOptions["pause"]): PauseSettings | undefined {
  if (given === undefined) return undefined;
  const pause = group(given, "pause", ["key", "ttlMs", "store", "onCheckpointUsed"]);
  let key: Buffer;
  try {
    key = checkpointKeyBytes(pause.key);
  } catch (error) {
    throw new UserError(`codeMode: pause.key: ${(error as Error).message}`);
  }
  const ttlMs = pause.ttlMs ?? DEFAULT_CHECKPOINT_TTL_MS;
  if (typeof ttlMs !== "number" || !(ttlMs > 0)) {
    throw new UserError(`codeMode: pause.ttlMs must be a number of ms > 0, got ${String(ttlMs)}.`);
  }
  const store = pause.store as PauseSettings["store"];
  if (
    store !== undefined &&
    (typeof store?.put !== "function" || typeof store.get !== "function" || !isClaims(store))
  ) {
    throw new UserError(
      "codeMode: pause.store must have put(key, value), get(key), claim(id, expires) and release(id); claim must be atomic across the processes that share the store (see docs/pausing.md).",
    );
  }
  const onCheckpointUsed = pause.onCheckpointUsed as PauseSettings["onCheckpointUsed"];
  if (onCheckpointUsed !== undefined && typeof onCheckpointUsed !== "function") {
    throw new UserError("codeMode: pause.onCheckpointUsed must be a function.");
  }
  return { key, ttlMs, store, claims: store ?? PROCESS_CLAIMS, onCheckpointUsed };
}

function typecheckOf(given: CodeModeOptions["typecheck"]): ResolvedCodeModeOptions["typecheck"] {
  const typecheck = group(
    typeof given === "string" ? { mode: given } : (given ?? { mode: "off" }),
    "typecheck",
    ["mode", "limits", "workers", "clientOf", "resolveTypeScript"],
  );
  const mode = typecheck.mode as TypeCheckMode;
  if (!TYPECHECK_MODES.includes(mode)) {
    const where = typeof given === "string" ? "typecheck" : "typecheck.mode";
    throw new UserError(
      `codeMode: ${where} must be "block", "report" or "off", got ${JSON.stringify(mode)}.`,
    );
  }
  const clientOf = typecheck.clientOf as ResolvedCodeModeOptions["typecheck"]["clientOf"];
  if (clientOf !== undefined && typeof clientOf !== "function") {
    throw new UserError("codeMode: typecheck.clientOf must be a function of the call's context.");
  }
  const resolveTypeScript = (typecheck.resolveTypeScript ??
    resolveTypeScriptFromCordon) as TypeScriptResolver;
  if (typeof resolveTypeScript !== "function") {
    throw new UserError("codeMode: typecheck.resolveTypeScript must be a function that returns a file path.");
  }
  return {
    mode,
    limits: typecheckLimits(typecheck.limits as Partial<TypeCheckLimits> | undefined),
    workers:
      wholeNumber(typecheck.workers, "typecheck.workers", 1, MAX_TYPECHECK_WORKERS) ??
      DEFAULT_TYPECHECK_WORKERS,
    clientOf,
    resolveTypeScript,
  };
}

/** The limits of one check: the defaults, with the ones given checked and put in their place. */
function typecheckLimits(given: Partial<TypeCheckLimits> | undefined): TypeCheckLimits {
  const limits = { ...DEFAULT_TYPECHECK_LIMITS, ...given };
  if (typeof limits.timeMs !== "number" || !(limits.timeMs > 0) || !Number.isFinite(limits.timeMs)) {
    throw new UserError(
      `codeMode: typecheck.limits.timeMs must be a number of ms > 0, got ${String(limits.timeMs)}.`,
    );
  }
  if (!Number.isInteger(limits.memoryMb) || limits.memoryMb < MIN_TYPECHECK_MEMORY_MB) {
    throw new UserError(
      `codeMode: typecheck.limits.memoryMb must be a whole number of MB, at least ${MIN_TYPECHECK_MEMORY_MB} (TypeScript and its lib need about 100), got ${String(limits.memoryMb)}.`,
    );
  }
  return limits;
}

function discoveryOf(given: CodeModeOptions["discovery"]): ResolvedCodeModeOptions["discovery"] {
  const discovery = group(typeof given === "string" ? { mode: given } : given, "discovery", [
    "mode",
    "inlineBudget",
    "declarationsIn",
  ]);
  const where = typeof given === "string" ? "discovery" : "discovery.mode";
  return {
    mode: oneOf(discovery.mode ?? "auto", ["auto", "inline", "search"], where),
    inlineBudget:
      wholeNumber(discovery.inlineBudget, "discovery.inlineBudget", 1, undefined, "tokens") ??
      DEFAULT_INLINE_BUDGET,
    declarationsIn: oneOf(
      discovery.declarationsIn ?? "tool",
      ["tool", "instructions"],
      "discovery.declarationsIn",
    ),
  };
}

function observeOf(given: CodeModeOptions["observe"]): ResolvedCodeModeOptions["observe"] {
  const observe = group(given, "observe", ["results", "store"]);
  const results = observe.results ?? true;
  if (typeof results !== "boolean") {
    throw new UserError(`codeMode: observe.results must be true or false, got ${String(results)}.`);
  }
  const store = observe.store;
  if (store !== undefined && !(store instanceof ObservedTypes)) {
    throw new UserError(
      "codeMode: observe.store must be an ObservedTypes store: new ObservedTypes(), or ObservedTypes.fromJSON(saved).",
    );
  }
  return { results, store };
}

/** A group's settings as a record, refusing a value that is not an object and names it does not know. */
function group(
  given: unknown,
  name: string,
  known: readonly string[],
  where = "codeMode",
): Record<string, unknown> {
  if (given === undefined) return {};
  if (typeof given !== "object" || given === null || Array.isArray(given)) {
    throw new UserError(
      `${where}: ${name} must be an object, got ${JSON.stringify(given) ?? String(given)}.`,
    );
  }
  knownKeys(given, known, `${where}: ${name}`);
  return given as Record<string, unknown>;
}

/** Refuses a key that is not one of `known` (a misspelt option would otherwise be ignored). */
function knownKeys(given: object, known: readonly string[], where: string): void {
  const unknown = Object.keys(given).filter((key) => !known.includes(key));
  if (unknown.length > 0) {
    throw new UserError(
      `${where}: unknown option${unknown.length > 1 ? "s" : ""} ${unknown.map((key) => JSON.stringify(key)).join(", ")}. Known: ${known.join(", ")}.`,
    );
  }
}

function oneOf<const T extends string>(value: unknown, allowed: readonly T[], name: string): T {
  if (!allowed.includes(value as T)) {
    const choices = allowed.map((choice) => `"${choice}"`);
    const listed = `${choices.slice(0, -1).join(", ")} or ${choices.at(-1)}`;
    throw new UserError(`codeMode: ${name} must be ${listed}, got ${JSON.stringify(value)}.`);
  }
  return value as T;
}

/** A whole number from `min` (to `max`), or undefined when not given. */
function wholeNumber(
  value: unknown,
  name: string,
  min: number,
  max?: number,
  unit = "",
  where = "codeMode",
): number | undefined {
  if (value === undefined) return undefined;
  if (
    typeof value !== "number" ||
    !Number.isInteger(value) ||
    value < min ||
    (max !== undefined && value > max)
  ) {
    const of = unit === "" ? "" : ` of ${unit}`;
    const range = max === undefined ? `, at least ${min}` : ` from ${min} to ${max}`;
    throw new UserError(`${where}: ${name} must be a whole number${of}${range}, got ${String(value)}.`);
  }
  return value;
}

/** Whether `value` can claim checkpoints (see `CheckpointStore.claim`). */
export function isClaims(value: unknown): value is CheckpointClaims {
  const claims = value as Partial<CheckpointClaims> | undefined;
  return typeof claims?.claim === "function" && typeof claims.release === "function";
}
