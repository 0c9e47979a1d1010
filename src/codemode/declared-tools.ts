/** A tool set as code mode declares it: the identifier of each tool in code, and what is declared about it. */

import type { Toolset } from "../tools/toolset.js";
import { type DeclaredTool, toolIdentifiers } from "./declarations.js";

/** The identifiers of a tool set's tools (identifier → real name), and their declarations' input. */
export function declaredToolsOf(toolset: Toolset): {
  identifiers: Record<string, string>;
  declared: DeclaredTool[];
} {
  const identifiers = toolIdentifiers(toolset.names());
  const declared = Object.entries(identifiers).map(([identifier, real]) => {
    const t = toolset.get(real)!;
    return {
      name: identifier,
      description: t.description,
      // Code may leave optional fields out, so a strict tool is declared from its loose schema.
      parameters: t.looseParameters ?? t.parameters,
      outputSchema: t.outputSchema,
      readOnly: t.options.readOnly,
    };
  });
  return { identifiers, declared };
}
