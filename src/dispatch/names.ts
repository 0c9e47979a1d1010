/**
 * Tool-name repair. Models sometimes send `getOrder`, `Get-Order` or `get_order_tool` for `get_order`.
 * A name is repaired only when, after normalizing, it equals exactly one registered name: a merely
 * similar name stays unknown so the model calls again with a real one.
 */

/** Folds case, whitespace, separators (`-`, `_`, `.`), camelCase and a trailing `Tool` suffix. */
export function normalizeToolName(name: string): string {
  const words = name
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .toLowerCase()
    .split(/[\s\-_.]+/)
    .filter((word) => word !== "");
  if (words.length > 1 && words[words.length - 1] === "tool") words.pop();
  return words.join("_");
}

/**
 * The registered name a model's name refers to: the exact name, or the single registered name that
 * normalizes to the same string. `undefined` when there is none or more than one.
 */
export function resolveToolName(requested: string, registered: Iterable<string>): string | undefined {
  const names = [...registered];
  if (names.includes(requested)) return requested;
  const wanted = normalizeToolName(requested);
  if (wanted === "") return undefined;
  const matches = names.filter((name) => normalizeToolName(name) === wanted);
  return matches.length === 1 ? matches[0] : undefined;
}
