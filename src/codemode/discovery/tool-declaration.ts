/**
 * The declaration of one tool, as discovery hands it to the model: its method signature with the JSDoc,
 * exactly as it reads inside `declare const tools: { ... }`, without the surrounding block.
 */

import { type DeclaredTool, toolDeclarations } from "../declarations.js";

/** The JSDoc line that introduces a tool's observed result type. */
export const OBSERVED_RETURNS_PREFIX = "Returns (observed):";

/**
 * `/** ... *\/ name(args: {...}): Promise<...>;` for one tool. With `observedReturns` (a type rendered by
 * `renderObservedType`) and no output schema, the JSDoc ends with `Returns (observed): <type>`: a hint
 * learnt from earlier results, while the signature still promises `unknown`.
 */
export function declareTool(tool: DeclaredTool, observedReturns?: string): string {
  const block = toolDeclarations([withObservedReturns(tool, observedReturns)]);
  // One tool declares no shared type alias: the block is the wrapper around one indented method.
  const lines = block.split("\n").slice(1, -1);
  return lines.map((line) => (line.startsWith("  ") ? line.slice(2) : line)).join("\n");
}

/**
 * The tool with `Returns (observed): <type>` as the last line of its description, when it has an
 * observed type (rendered by `renderObservedType`) and no output schema; otherwise the tool as it is.
 */
export function withObservedReturns(tool: DeclaredTool, observedReturns: string | undefined): DeclaredTool {
  if (observedReturns === undefined || tool.outputSchema !== undefined) return tool;
  return {
    ...tool,
    description: `${tool.description.trimEnd()}\n${OBSERVED_RETURNS_PREFIX} ${observedReturns}`,
  };
}
