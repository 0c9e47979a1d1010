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
  const hint =
    observedReturns !== undefined && tool.outputSchema === undefined
      ? `${tool.description.trimEnd()}\n${OBSERVED_RETURNS_PREFIX} ${observedReturns}`
      : tool.description;
  const block = toolDeclarations([{ ...tool, description: hint }]);
  // One tool declares no shared type alias: the block is the wrapper around one indented method.
  const lines = block.split("\n").slice(1, -1);
  return lines.map((line) => (line.startsWith("  ") ? line.slice(2) : line)).join("\n");
}
