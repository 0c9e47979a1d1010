/**
 * Discovery from inside the code: `tools.$search(query, { limit })` and `tools.$describe(name)` reach
 * the host through the call channel of tool calls, under names no tool can have (a tool's name never
 * holds `$`), and the host answers them from its search index. They are not tool calls: no approval, no
 * budget, not counted against `maxToolCalls`, not in the run's calls. The guest prelude repeats the two
 * names (a test holds them together); the numbers reach it in the run's config.
 */

/** The name a `tools.$search(...)` call crosses the call channel under; its arguments are `{ query, limit? }`. */
export const SEARCH_CALL = "$search";

/** The name a `tools.$describe(name)` call crosses the call channel under; its arguments are `{ name }`. */
export const DESCRIBE_CALL = "$describe";

/** Both discovery names. */
export const DISCOVERY_CALLS: readonly string[] = [SEARCH_CALL, DESCRIBE_CALL];

/** Whether a call's name is a discovery call's rather than a tool's. */
export function isDiscoveryCall(name: string): boolean {
  return name === SEARCH_CALL || name === DESCRIBE_CALL;
}

/** The most matches one `tools.$search` may ask for (`limit`). */
export const MAX_SEARCH_LIMIT = 50;

/** Matches `tools.$search` returns when no `limit` is given. */
export const DEFAULT_SEARCH_LIMIT = 5;

/**
 * The most `$search` and `$describe` calls one run may make: they cost the host a search each and a
 * message, so a loop of them is stopped like a flood of console lines, well above what finding tools needs.
 */
export const MAX_DISCOVERY_CALLS = 200;

/** The longest query or tool name a discovery call may carry, in characters. */
export const MAX_DISCOVERY_QUERY_CHARS = 1_000;
