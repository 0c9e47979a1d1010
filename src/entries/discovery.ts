/**
 * `cordon/discovery`: the search over a large tool catalog that code mode's `discovery: "search"` uses,
 * for hosts that build their own prompt (a compact index, declarations on demand), and the result types
 * learnt from real results that the index shows as hints.
 */

export {
  type IndexTextDetail,
  type ToolIndexText,
  type ToolIndexTextOptions,
  toolIndexText,
} from "../codemode/discovery/index-text.js";
export { estimateTokens } from "../codemode/discovery/token-estimate.js";
export {
  createToolIndex,
  type IndexedTool,
  type ToolIndex,
  type ToolIndexEntry,
  type ToolIndexOptions,
  type ToolMatch,
  type ToolSearchOptions,
} from "../codemode/discovery/tool-index.js";
export {
  mergeObservedTypes,
  type ObservedProperty,
  type ObservedType,
  observe,
  observeValue,
  renderObservedType,
} from "../codemode/observed/types.js";
