/**
 * Learnt result types in a code mode: which tools are observed, recording their successful results from
 * the dispatcher (calls from code and direct calls through it alike), and the declarations that show
 * them as `Returns (observed): ...`.
 */

import type { Dispatcher } from "../../dispatch/dispatcher.js";
import type { Toolset } from "../../tools/toolset.js";
import type { AnyTool } from "../../tools/types.js";
import type { DeclaredTool } from "../declarations.js";
import { withObservedReturns } from "../discovery/tool-declaration.js";
import { ObservedTypes } from "./store.js";
import { type ObservedType, renderObservedType } from "./types.js";

/** Whether a tool's results are learnt: it has no output schema and did not opt out (`observeResults: false`). */
export function observesResults(tool: AnyTool): boolean {
  return tool.outputSchema === undefined && tool.options.observeResults !== false;
}

/** A code mode's learnt result types. */
export interface ObservedResults {
  /** Where they are kept. */
  readonly store: ObservedTypes;
  /** The observed type of a tool (by its name or its identifier in code), when it is observed and has one. */
  typeOf(toolName: string): ObservedType | undefined;
  /** The declared tools, each observed one with its observed type as the last line of its description. */
  declare(declared: readonly DeclaredTool[]): DeclaredTool[];
  /** Starts recording (once the code mode is made: a code mode that failed to be made records nothing). */
  start(): void;
  /** Stops recording. */
  stop(): void;
}

/**
 * The learnt result types of `toolset`'s observed tools, kept in `options.store` (default a new store);
 * once started, every successful result of one of them that goes through `dispatcher` is recorded,
 * unless `options.results` is false. `identifiers` maps the tools' names in code to their names.
 */
export function observeResultsOf(
  options: { results: boolean; store: ObservedTypes | undefined },
  toolset: Toolset,
  dispatcher: Dispatcher,
  identifiers: Readonly<Record<string, string>>,
): ObservedResults {
  const on = options.results;
  const store = options.store ?? new ObservedTypes();
  // Only the code mode's own tools: the dispatcher may also carry run_code, or tools the code cannot call.
  let stop: (() => void) | undefined;
  const start = () => {
    if (!on || stop) return;
    stop = dispatcher.observeResults((tool, value) => {
      if (toolset.get(tool.name) === tool && observesResults(tool)) store.record(tool.name, value);
    });
  };
  const typeOf = (toolName: string): ObservedType | undefined => {
    if (!on) return undefined;
    const name = toolset.get(toolName) ? toolName : identifiers[toolName];
    const tool = name === undefined ? undefined : toolset.get(name);
    return tool && observesResults(tool) ? store.typeOf(tool.name) : undefined;
  };
  return {
    store,
    typeOf,
    declare: (declared) =>
      declared.map((tool) => {
        const type = typeOf(identifiers[tool.name] ?? tool.name);
        return withObservedReturns(tool, type && renderObservedType(type));
      }),
    start,
    stop: () => stop?.(),
  };
}
