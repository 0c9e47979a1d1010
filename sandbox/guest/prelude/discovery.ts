/** `tools.$search` and `tools.$describe`: checked here, then sent over the channel of tool calls. */

import { DESCRIBE_CALL, SEARCH_CALL } from "../../contract/index.js";
import { callPromiseType, captureArgs, captured } from "./call-promises.js";
import { decide, refuseCall } from "./calls.js";
import { run } from "./current-run.js";
import { apply, construct, isArray, mapSet, PromiseCtor, stringify, stringTrim } from "./intrinsics.js";
import { bare, toText } from "./objects.js";
import type { Pending, Run } from "./types.js";

/**
 * A `tools.$search` or `tools.$describe` call: it goes to the host over the channel of tool calls, under
 * its own name and a negative id, so it takes no place in the run's numbering of tool calls (nor in a
 * replayed journal) and counts against its own cap, not `maxToolCalls`.
 */
const discoveryCall = (owner: Run, callName: string, args: Record<string, unknown>): Promise<unknown> => {
  const current = owner;
  const discovery = current.config.discovery!;
  const type = callPromiseType(callName);
  if (current.finished || run !== current) {
    return refuseCall(
      type,
      callName,
      "refused",
      `tools.${callName}() was called after the run_code run ended; the call was refused.`,
    );
  }
  if (current.discoveries >= discovery.maxCalls) {
    return refuseCall(
      type,
      callName,
      "limit",
      `tools.${callName}() was refused: this run already made ${discovery.maxCalls} $search and $describe calls, the most allowed in one run. Keep the declarations you found in a variable instead of searching again.`,
    );
  }
  const callId = -++current.discoveries;
  const promise = construct(PromiseCtor, captureArgs, type) as Promise<unknown>;
  const pending: Pending = {
    promise,
    resolve: captured,
    tool: callName,
    callId,
    argsJson: stringify(bare(args)),
    requested: "",
    held: undefined,
    awaited: false,
    // biome-ignore lint/suspicious/noThenProperty: the record is the thenable its call's promise follows.
    then: decide,
  };
  apply(mapSet, current.queued, [promise, pending]);
  return promise;
};

/** What a discovery argument is, for an error message: its type, or "an empty string". */
const argumentKind = (value: unknown): string =>
  value === null
    ? "null"
    : isArray(value)
      ? "an array"
      : typeof value === "string" && apply(stringTrim, value, []) === ""
        ? "a blank string"
        : typeof value;

/** `tools.$search(query, { limit })`, checked here: a clear error for a bad query or limit. */
export const searchTools = (owner: Run, query: unknown, options: unknown): Promise<unknown> => {
  const discovery = owner.config.discovery!;
  const usage = `tools.$search(query, { limit }) takes the words to look for as a string and an optional limit from 1 to ${discovery.maxLimit}, e.g. await tools.$search("refund an order", { limit: 3 })`;
  if (typeof query !== "string" || apply(stringTrim, query, []) === "") {
    return refuseCall(
      callPromiseType(SEARCH_CALL),
      SEARCH_CALL,
      "invalid_arguments",
      `${usage}; the query was ${argumentKind(query)}.`,
    );
  }
  if (query.length > discovery.maxQueryChars) {
    return refuseCall(
      callPromiseType(SEARCH_CALL),
      SEARCH_CALL,
      "invalid_arguments",
      `${usage}; the query was ${query.length} characters long, over ${discovery.maxQueryChars}.`,
    );
  }
  let limit: unknown = discovery.defaultLimit;
  if (options !== undefined && options !== null) {
    if (typeof options !== "object" || isArray(options)) {
      return refuseCall(
        callPromiseType(SEARCH_CALL),
        SEARCH_CALL,
        "invalid_arguments",
        `${usage}; the second argument was ${argumentKind(options)}, not an object.`,
      );
    }
    const given = (options as { limit?: unknown }).limit;
    if (given !== undefined) limit = given;
  }
  if (typeof limit !== "number" || limit % 1 !== 0 || limit < 1 || limit > discovery.maxLimit) {
    return refuseCall(
      callPromiseType(SEARCH_CALL),
      SEARCH_CALL,
      "invalid_arguments",
      `${usage}; the limit was ${typeof limit === "number" ? toText(limit) : argumentKind(limit)}.`,
    );
  }
  return discoveryCall(owner, SEARCH_CALL, { query, limit });
};

/** `tools.$describe(name)`, checked here: the name must be a string. */
export const describeTool = (owner: Run, name: unknown): Promise<unknown> => {
  const discovery = owner.config.discovery!;
  if (typeof name !== "string" || name === "" || name.length > discovery.maxQueryChars) {
    return refuseCall(
      callPromiseType(DESCRIBE_CALL),
      DESCRIBE_CALL,
      "invalid_arguments",
      `tools.$describe(name) takes one tool's name as a string, e.g. await tools.$describe("get_order"); got ${typeof name === "string" && name !== "" ? `a name of ${name.length} characters` : argumentKind(name)}.`,
    );
  }
  return discoveryCall(owner, DESCRIBE_CALL, { name });
};
