/**
 * The host's answers to `tools.$search(query, { limit })` and `tools.$describe(name)` from the model's
 * code: they arrive on the call channel under their own names (see `sandbox/contract/discovery.ts`) and
 * are answered here from the search index, never by the dispatcher: no approval, no budget, no call record.
 */

import {
  type BridgeCallOutcome,
  callFailure,
  DESCRIBE_CALL,
  DISCOVERY_CALLS,
  MAX_DISCOVERY_QUERY_CHARS,
  MAX_SEARCH_LIMIT,
  SEARCH_CALL,
} from "../../../sandbox/contract/index.js";
import { closestName } from "../../tools/closest.js";
import type { ToolIndex } from "./tool-index.js";

/** One discovery call of a run, as its record keeps it: what was asked and the tools it named. */
export type DiscoveryRecord =
  | { kind: "search"; query: string; results: string[] }
  | { kind: "describe"; name: string; results: string[] };

/** What `tools.$search` returns for each match: the model's code reads these fields. */
interface SearchMatch {
  name: string;
  description: string;
  declaration: string;
}

/** How many close names an unknown `$describe` name is answered with. */
const CLOSE_NAMES = 3;

/**
 * Answers one discovery call (`call` is {@link SEARCH_CALL} or {@link DESCRIBE_CALL}, `argsJson` what
 * the sandbox sent) from `index`: the outcome the code receives, and the record of the run. Arguments
 * are checked again here, whatever the sandbox checked. Never throws.
 */
export function answerDiscovery(
  index: ToolIndex,
  call: string,
  argsJson: string,
): { outcome: BridgeCallOutcome; record?: DiscoveryRecord } {
  let args: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(argsJson);
    args = typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    args = {};
  }
  if (call === SEARCH_CALL) return search(index, args);
  if (call === DESCRIBE_CALL) return describe(index, args);
  return {
    outcome: callFailure(call, "error", `${call} is not one of ${DISCOVERY_CALLS.join(", ")}.`),
  };
}

function search(
  index: ToolIndex,
  args: Record<string, unknown>,
): { outcome: BridgeCallOutcome; record?: DiscoveryRecord } {
  const { query, limit } = args;
  if (typeof query !== "string" || query.length > MAX_DISCOVERY_QUERY_CHARS) {
    return invalid(
      SEARCH_CALL,
      `tools.$search needs the query as a string of at most ${MAX_DISCOVERY_QUERY_CHARS} characters.`,
    );
  }
  if (
    limit !== undefined &&
    (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT)
  ) {
    return invalid(
      SEARCH_CALL,
      `tools.$search's limit must be a whole number from 1 to ${MAX_SEARCH_LIMIT}.`,
    );
  }
  const matches: SearchMatch[] = index
    .search(query, limit === undefined ? {} : { limit })
    .map(({ name, description, declaration }) => ({ name, description, declaration }));
  return {
    outcome: { ok: true, valueJson: JSON.stringify(matches) },
    record: { kind: "search", query, results: matches.map((match) => match.name) },
  };
}

function describe(
  index: ToolIndex,
  args: Record<string, unknown>,
): { outcome: BridgeCallOutcome; record?: DiscoveryRecord } {
  const { name } = args;
  if (typeof name !== "string" || name === "" || name.length > MAX_DISCOVERY_QUERY_CHARS) {
    return invalid(DESCRIBE_CALL, "tools.$describe needs one tool's name as a string.");
  }
  // `tools.github__get_issue` and `github__get_issue` both name it.
  const bare = name.startsWith("tools.") ? name.slice("tools.".length) : name;
  const declaration = index.describe(bare);
  if (declaration !== undefined) {
    const known = index.entries.find((entry) => entry.toolName === index.toolName(bare));
    return {
      outcome: { ok: true, valueJson: JSON.stringify(declaration) },
      record: { kind: "describe", name, results: known ? [known.name] : [] },
    };
  }
  // The misspelt name first (`shop__list_order` for shop__list_orders), then the best matches of its words.
  const spelt = closestName(
    bare,
    index.entries.map((entry) => entry.name),
  );
  const close = [
    ...new Set([
      ...(spelt === undefined ? [] : [spelt]),
      ...index.search(bare, { limit: CLOSE_NAMES }).map((match) => match.name),
    ]),
  ].slice(0, CLOSE_NAMES);
  const hint =
    close.length === 0
      ? "Use tools.$search(words) to find the tool you need."
      : `Close names: ${close.join(", ")}. Use tools.$search(words) to find others.`;
  return {
    outcome: callFailure(
      DESCRIBE_CALL,
      "invalid_arguments",
      `There is no tool named ${JSON.stringify(name)}. ${hint}`,
    ),
    record: { kind: "describe", name, results: [] },
  };
}

function invalid(call: string, message: string): { outcome: BridgeCallOutcome } {
  return { outcome: callFailure(call, "invalid_arguments", message) };
}
