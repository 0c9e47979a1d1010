/** What a call's promise settles with: the host's outcome, as a value or as the failure it rejects with. */

import { failLater } from "./call-promises.js";
import { parse } from "./intrinsics.js";
import { bareParsed, toText } from "./objects.js";
import type { Pending } from "./types.js";

/**
 * Settles a call's promise, or holds the outcome until `decide` (`calls.ts`) hands over the resolver (a
 * guard: outcomes arrive in later host tasks, after the microtask that runs `decide`).
 */
const deliver = (pending: Pending, value: unknown) => {
  const resolve = pending.resolve;
  if (resolve === undefined) pending.held = { value };
  else resolve(value);
};

/** Settles a call with the host's outcome: `ok` with its value's JSON text, or a failure's JSON. */
export const settleCall = (pending: Pending, ok: boolean, json: string) => {
  deliver(pending, outcomeValue(pending.tool, ok, json));
};

/**
 * What a call's promise is resolved with for the host's outcome: its value (parsed from its JSON
 * text), or for a failure a promise that rejects with the ToolCallError (see {@link failLater}).
 */
export const outcomeValue = (tool: string, ok: boolean, json: string): unknown => {
  let error: { tool?: unknown; kind?: unknown; message?: unknown };
  try {
    if (ok) return json === "" ? undefined : parse(json);
    error = parse(json) as typeof error;
    // A field the host left out is read as undefined, never through Object.prototype.
    bareParsed(error);
  } catch {
    error = { kind: "bad_result", message: "The tool's result was not valid JSON." };
  }
  return failLater(
    typeof error.tool === "string" ? error.tool : tool,
    toText(error.kind ?? "error"),
    toText(error.message ?? "The tool call failed."),
  );
};
