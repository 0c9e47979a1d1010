/**
 * For catalogs too large to declare in full: run_code's description then lists only the tools' names,
 * and the `search_tools` tool declares the signatures of the tools that match the model's words.
 */

import { sanitizeToolName, toolDeclarations } from "../codemode/declarations.js";
import { withObservedReturns } from "../codemode/discovery/tool-declaration.js";
import { createToolIndex, type ToolIndex } from "../codemode/discovery/tool-index.js";
import type { Toolset } from "../tools/toolset.js";
import type { JsonSchema } from "../tools/types.js";

/** The name of the search tool. */
export const SEARCH_TOOL_NAME = "search_tools";

/** Declarations longer than this switch `--search-tools auto` to names only plus search_tools. */
export const SEARCH_THRESHOLD_CHARS = 24_000;

/** Tools one search declares by default. */
const DEFAULT_SEARCH_LIMIT = 8;

/** Tools one search declares at most. */
const MAX_SEARCH_LIMIT = 25;

/** The input schema of search_tools. */
export const SEARCH_TOOL_INPUT: JsonSchema = {
  type: "object",
  properties: {
    query: {
      type: "string",
      description: "Words describing what you need, e.g. 'list open issues' or 'refund order'.",
    },
    limit: {
      type: "integer",
      minimum: 1,
      maximum: MAX_SEARCH_LIMIT,
      description: `How many tools to declare (default ${DEFAULT_SEARCH_LIMIT}, at most ${MAX_SEARCH_LIMIT}).`,
    },
  },
  required: ["query"],
};

/** The description of search_tools, for the given run_code tool name. */
export function searchToolDescription(runCodeName: string): string {
  return `Find the tools that ${runCodeName}'s code can call and get their TypeScript signatures with documentation. ${runCodeName}'s description lists only the tools' names; search here before you write code that calls them.`;
}

/** The listing of names that replaces full declarations in search mode. */
export function namesOnlyDeclarations(tools: Toolset): string {
  const names = tools
    .names()
    .map((name) => `  ${sanitizeToolName(name)}(args?: Record<string, unknown>): Promise<unknown>;`);
  return [
    `// ${tools.size} tools; only their names are listed here. Call the ${SEARCH_TOOL_NAME} tool with words from the task to get their full signatures (arguments and results) before you use them.`,
    "declare const tools: {",
    ...names,
    "};",
  ].join("\n");
}

/**
 * Declarations of the tools that best match `query`, best first, ranked by the same search engine as code
 * mode's discovery (pass the catalog's index when it is kept between searches); a sentence when nothing
 * matches. `observedReturns` gives a tool's learnt result type (by its name, rendered), shown as
 * `Returns (observed): ...` for a tool without an output schema.
 */
export function searchTools(
  tools: Toolset,
  query: string,
  limit = DEFAULT_SEARCH_LIMIT,
  index: ToolIndex = createToolIndex(tools),
  observedReturns?: (toolName: string) => string | undefined,
): string {
  const count = Number.isFinite(limit)
    ? Math.max(1, Math.min(MAX_SEARCH_LIMIT, Math.floor(limit)))
    : DEFAULT_SEARCH_LIMIT;
  const found = index
    .search(query, { limit: count })
    .map((match) => tools.get(index.toolName(match.name) ?? ""))
    .filter((tool) => tool !== undefined);
  if (found.length === 0) return noMatch(query, index);
  return toolDeclarations(
    found.map((tool) =>
      withObservedReturns(
        {
          name: sanitizeToolName(tool.name),
          description: tool.description,
          parameters: tool.looseParameters ?? tool.parameters,
          outputSchema: tool.outputSchema,
          readOnly: tool.options.readOnly,
        },
        observedReturns?.(tool.name),
      ),
    ),
  );
}

/**
 * What a search that found nothing says: not every name again (run_code's description lists them, and a
 * catalog searched is one too large to repeat), but the namespaces with their counts, to search by.
 */
function noMatch(query: string, index: ToolIndex): string {
  const counts = new Map<string, number>();
  for (const { namespace } of index.entries) {
    const key = namespace ?? "(no namespace)";
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const namespaces = [...counts].map(([name, count]) => `${name} (${count})`).join(", ");
  return `No tool matches ${JSON.stringify(query)}. Try other words: what the tool does or what it works on ("list issues", "refund"); run_code's description lists every tool's name. The ${index.size} tools by namespace: ${namespaces}.`;
}
