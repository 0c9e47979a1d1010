import { groupDigits } from "../../common/numbers.js";
/** The output cap when neither the tool nor the dispatcher sets one: a tripwire, about 50k tokens. */
export const DEFAULT_MAX_OUTPUT_CHARS = 200_000;

/**
 * Caps text at `maxChars` characters, keeping the head and the tail with a marker between them that
 * says how many characters were cut. The result is never longer than `maxChars`, and a surrogate pair
 * is never split.
 */
export function truncateOutput(text: string, maxChars: number): { text: string; truncated: boolean } {
  if (text.length <= maxChars) return { text, truncated: false };
  // The marker's length depends on the number it states; shrink the kept room until everything fits.
  for (let room = maxChars - markerFor(text.length).length; room >= 2; room--) {
    const headEnd = backOffPair(text, Math.ceil(room / 2));
    const tailStart = forwardOffPair(text, text.length - (room - Math.ceil(room / 2)));
    const out = text.slice(0, headEnd) + markerFor(tailStart - headEnd) + text.slice(tailStart);
    if (out.length <= maxChars) return { text: out, truncated: true };
  }
  return { text: text.slice(0, backOffPair(text, maxChars)), truncated: true };
}

function markerFor(cut: number): string {
  return `\n…[${groupDigits(cut)} characters cut]…\n`;
}

/** An end index that does not split a surrogate pair (moves back). */
function backOffPair(text: string, end: number): number {
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

/** A start index that does not split a surrogate pair (moves forward). */
function forwardOffPair(text: string, start: number): number {
  const code = text.charCodeAt(start);
  return code >= 0xdc00 && code <= 0xdfff ? start + 1 : start;
}
