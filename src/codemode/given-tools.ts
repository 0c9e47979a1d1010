/**
 * The tools a code mode declares and its code calls, given once: as `tools` (a dispatcher is made over
 * them) or as a `dispatcher`'s. Given both, they must be the same tools, or the declarations the model
 * reads would describe one set while its calls ran another.
 */

import { UserError } from "../../common/errors.js";
import type { Dispatcher } from "../dispatch/dispatcher.js";
import { Toolset } from "../tools/toolset.js";
import type { AnyTool } from "../tools/types.js";

/** The tool set a code mode is made over, and the dispatcher given for it (else one is made). */
export interface GivenTools {
  toolset: Toolset;
  dispatcher: Dispatcher | undefined;
}

/**
 * The code mode's tools from `tools` and `dispatcher`. "The same" is the same Toolset object, or the
 * same tool objects under the same names, in any order: a tool of the same name made twice (another
 * object) may have another schema or another `run`, so it is not the same. Then the dispatcher's Toolset
 * is the one used.
 */
export function givenTools(tools: unknown, dispatcher: unknown): GivenTools {
  if (dispatcher !== undefined && !isDispatcher(dispatcher)) {
    throw new UserError("codeMode: dispatcher must be a Dispatcher: new Dispatcher(toolset, options).");
  }
  if (tools === undefined) {
    if (dispatcher === undefined) {
      throw new UserError(
        "codeMode needs the tools the code can call: codeMode({ tools: [getOrder] }), or codeMode({ dispatcher }) for a dispatcher's tools.",
      );
    }
    return { toolset: dispatcher.toolset, dispatcher };
  }
  const toolset = toolsetOf(tools);
  if (dispatcher === undefined) return { toolset, dispatcher: undefined };
  if (toolset === dispatcher.toolset) return { toolset, dispatcher };
  const difference = differenceOf(toolset, dispatcher.toolset);
  if (difference !== undefined) {
    throw new UserError(
      `codeMode: tools and dispatcher hold different tools (${difference}): the model would read declarations of one set while its calls ran the other. Give only one: codeMode({ dispatcher }) takes the dispatcher's tools, codeMode({ tools }) makes a dispatcher over them; for code that may call only some of a dispatcher's tools, give it a dispatcher over those (new Dispatcher(toolset.only([...]), options)).`,
    );
  }
  return { toolset: dispatcher.toolset, dispatcher };
}

/**
 * What a run would find changed in `toolset` since `declared` was taken from it: declared tools it no
 * longer holds or holds as another object, as a phrase; undefined when it still holds every one. (Tools
 * added since are not declared, and the code cannot call them: nothing the model reads is untrue.)
 */
export function changedSince(declared: ReadonlyMap<string, AnyTool>, toolset: Toolset): string | undefined {
  const removed: string[] = [];
  const replaced: string[] = [];
  for (const [name, tool] of declared) {
    const now = toolset.get(name);
    if (now === undefined) removed.push(name);
    else if (now !== tool) replaced.push(name);
  }
  const parts = [
    ...(removed.length > 0 ? [`removed: ${listed(removed)}`] : []),
    ...(replaced.length > 0 ? [`replaced by another tool object: ${listed(replaced)}`] : []),
  ];
  return parts.length === 0 ? undefined : parts.join("; ");
}

function toolsetOf(tools: unknown): Toolset {
  if (tools instanceof Toolset) return tools;
  if (!Array.isArray(tools)) {
    throw new UserError("codeMode: tools must be a Toolset or an array of tools made with tool().");
  }
  return new Toolset(tools as AnyTool[]);
}

/** How two tool sets differ, as a phrase naming the tools; undefined when they hold the same tools. */
function differenceOf(given: Toolset, dispatcher: Toolset): string | undefined {
  const onlyGiven = given.names().filter((name) => !dispatcher.has(name));
  const onlyDispatcher = dispatcher.names().filter((name) => !given.has(name));
  const other = given
    .names()
    .filter((name) => dispatcher.has(name) && dispatcher.get(name) !== given.get(name));
  const parts = [
    ...(onlyGiven.length > 0 ? [`only in tools: ${listed(onlyGiven)}`] : []),
    ...(onlyDispatcher.length > 0 ? [`only in the dispatcher: ${listed(onlyDispatcher)}`] : []),
    ...(other.length > 0 ? [`another tool object of the same name: ${listed(other)}`] : []),
  ];
  return parts.length === 0 ? undefined : parts.join("; ");
}

/** Tool names named in a message at most; the rest are counted. */
const MAX_LISTED_NAMES = 10;

function listed(names: readonly string[]): string {
  const more = names.length - MAX_LISTED_NAMES;
  return names.slice(0, MAX_LISTED_NAMES).join(", ") + (more > 0 ? ` and ${more} more` : "");
}

/** Whether `value` looks like a Dispatcher (by shape, so that two copies of cordon still agree). */
function isDispatcher(value: unknown): value is Dispatcher {
  const candidate = value as Partial<Dispatcher> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.runCallNow === "function" &&
    typeof candidate.openRun === "function" &&
    typeof candidate.toolset?.get === "function" &&
    typeof candidate.toolset.names === "function" &&
    typeof candidate.toolset.has === "function"
  );
}
