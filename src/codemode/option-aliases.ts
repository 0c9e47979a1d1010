/**
 * The flat option names `codeMode()` took before its options were grouped, kept for one minor version:
 * each is put in its group's place, and one given together with its new place, with another value, is a
 * `UserError`. Removing them is removing this file's aliases and the `extends` in `options.ts`.
 */

import { UserError } from "../../common/errors.js";
import type { RunContext } from "../tools/types.js";
import type { ObservedTypes } from "./observed/store.js";
import type { CheckpointKey } from "./pause/checkpoint.js";
import type { CheckpointStore } from "./pause/checkpoint-store.js";
import type { CheckpointInfo } from "./pause/pause.js";
import type { TypeScriptResolver } from "./typecheck/resolve-typescript.js";
import type { TypeCheckLimits } from "./typecheck/types.js";

/** The names `CodeModeOptions` had before they were grouped. Each still works, for one minor version. */
export interface DeprecatedCodeModeOptions {
  /** @deprecated Use `sessions: { idleMs }`. */
  sessionIdleMs?: number;
  /** @deprecated Use `sessions: { max }`. */
  maxSessions?: number;
  /** @deprecated Use `pause: { key }`. */
  checkpointKey?: CheckpointKey;
  /** @deprecated Use `pause: { key, ttlMs }`. */
  checkpointTtlMs?: number;
  /** @deprecated Use `pause: { key, store }`. */
  checkpointStore?: CheckpointStore;
  /** @deprecated Use `pause: { key, onCheckpointUsed }`. */
  onCheckpointUsed?: (checkpoint: CheckpointInfo) => unknown;
  /** @deprecated Use `typecheck: { mode, limits }`. */
  typecheckLimits?: Partial<TypeCheckLimits>;
  /** @deprecated Use `typecheck: { mode, workers }`. */
  typecheckWorkers?: number;
  /** @deprecated Use `typecheck: { mode, clientOf }`. */
  clientOf?: (ctx: RunContext) => string | undefined;
  /** @deprecated Use `typecheck: { mode, resolveTypeScript }`. */
  resolveTypeScript?: TypeScriptResolver;
  /** @deprecated Use `discovery: { inlineBudget }`. */
  inlineBudget?: number;
  /** @deprecated Use `discovery: { declarationsIn }`. */
  declarationsIn?: "tool" | "instructions";
  /** @deprecated Use `observe: { results }`. */
  observeResults?: boolean;
  /** @deprecated Use `observe: { store }`. */
  observedTypes?: ObservedTypes;
}

/** The groups an old name moved into. */
type Group = "sessions" | "pause" | "typecheck" | "discovery" | "observe";

/** Each old name, the group it moved into and its name there. */
export const DEPRECATED_OPTION_NAMES: readonly {
  readonly old: keyof DeprecatedCodeModeOptions;
  readonly group: Group;
  readonly field: string;
}[] = [
  { old: "sessionIdleMs", group: "sessions", field: "idleMs" },
  { old: "maxSessions", group: "sessions", field: "max" },
  { old: "checkpointKey", group: "pause", field: "key" },
  { old: "checkpointTtlMs", group: "pause", field: "ttlMs" },
  { old: "checkpointStore", group: "pause", field: "store" },
  { old: "onCheckpointUsed", group: "pause", field: "onCheckpointUsed" },
  { old: "typecheckLimits", group: "typecheck", field: "limits" },
  { old: "typecheckWorkers", group: "typecheck", field: "workers" },
  { old: "clientOf", group: "typecheck", field: "clientOf" },
  { old: "resolveTypeScript", group: "typecheck", field: "resolveTypeScript" },
  { old: "inlineBudget", group: "discovery", field: "inlineBudget" },
  { old: "declarationsIn", group: "discovery", field: "declarationsIn" },
  { old: "observeResults", group: "observe", field: "results" },
  { old: "observedTypes", group: "observe", field: "store" },
];

/** The options without their old names: each one given is put in its group, as its new name. */
export function withGroupedNames<Options extends DeprecatedCodeModeOptions>(
  options: Options,
): Omit<Options, keyof DeprecatedCodeModeOptions> {
  const grouped: Record<string, unknown> = { ...(options as object) };
  for (const { old } of DEPRECATED_OPTION_NAMES) delete grouped[old];
  for (const { old, group, field } of DEPRECATED_OPTION_NAMES) {
    const value = options[old];
    if (value === undefined) continue;
    const target = groupObject(group, grouped[group]);
    if (target[field] !== undefined && !sameValue(target[field], value)) {
      throw new UserError(
        `codeMode: ${old} (the old name) and ${group}.${field} are both given, with different values: give only ${group}.${field}.`,
      );
    }
    target[field] = value;
    grouped[group] = target;
  }
  return grouped as Omit<Options, keyof DeprecatedCodeModeOptions>;
}

/**
 * A group as an object to add to: a copy of the one given, the object a shorthand stands for (`typecheck:
 * "block"` is `{ mode: "block" }`), or a new one (`typecheck` with the old default mode, "off").
 */
function groupObject(group: Group, given: unknown): Record<string, unknown> {
  if (given === undefined) return group === "typecheck" ? { mode: "off" } : {};
  if (typeof given === "string" && (group === "typecheck" || group === "discovery")) return { mode: given };
  if (typeof given === "object" && given !== null && !Array.isArray(given)) return { ...given };
  throw new UserError(`codeMode: ${group} must be an object, got ${JSON.stringify(given) ?? String(given)}.`);
}

/** The same value: the same thing, or plain objects (limits) with the same things under the same keys. */
function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const keys = (value: object) =>
    Object.keys(value).filter((key) => value[key as keyof object] !== undefined);
  const [aKeys, bKeys] = [keys(a), keys(b)];
  return aKeys.length === bKeys.length && aKeys.every((key) => Object.is(a[key], b[key]));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
