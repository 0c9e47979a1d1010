/**
 * How many tokens a text of declarations costs the model, estimated without a tokenizer: cordon does
 * not load one at run time (js-tiktoken and its encoding tables are several MB, and only the benches
 * need them). The ratio is calibrated against o200k_base on TypeScript declarations with JSDoc, and a
 * test holds the estimate within {@link ESTIMATE_TOLERANCE} of the real count.
 */

/**
 * Characters per token of code mode's declarations under o200k_base (GPT-4o's encoding; cl100k_base
 * gives the same): 4.09 over the 340-tool test catalog, 3.75 over the three-tool shop example.
 */
const DECLARATION_CHARS_PER_TOKEN = 4;

/** How far the estimate may be from the real count, as a share of it (checked by a test). */
export const ESTIMATE_TOLERANCE = 0.1;

/** The estimated number of tokens of `text` (declarations, or an index of tools). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / DECLARATION_CHARS_PER_TOKEN);
}
