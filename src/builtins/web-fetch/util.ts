import { groupDigits } from "../../../common/numbers.js";
/** Small helpers shared by the built-in tools: numbers for the model. */

/** `1,000,000 bytes` — exact, so the text the model reads matches the constant. */
export function formatBytes(bytes: number): string {
  return `${groupDigits(bytes)} bytes`;
}
