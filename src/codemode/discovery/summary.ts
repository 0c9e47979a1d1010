/** The one-line summary of a tool's description that the index text and search results show. */

/** How long a summary may be before it is cut at a word and ends with "…". */
export const SUMMARY_MAX_CHARS = 120;

/** The description's first sentence (or first line), at most {@link SUMMARY_MAX_CHARS} characters. */
export function summaryOf(description: string): string {
  const firstLine = description.trim().split(/\r?\n/)[0] ?? "";
  const sentenceEnd = firstLine.search(/[.!?](\s|$)/);
  const sentence = (sentenceEnd === -1 ? firstLine : firstLine.slice(0, sentenceEnd + 1)).trim();
  if (sentence.length <= SUMMARY_MAX_CHARS) return sentence;
  const cut = sentence.slice(0, SUMMARY_MAX_CHARS - 1);
  const lastSpace = cut.lastIndexOf(" ");
  return `${(lastSpace > SUMMARY_MAX_CHARS / 2 ? cut.slice(0, lastSpace) : cut).trimEnd()}…`;
}
