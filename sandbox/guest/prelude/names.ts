/**
 * Tool names: the dispatcher's repair rule (`src/dispatch/names.ts`), rebuilt from captured built-ins,
 * so that `tools.getOrder` reaches `get_order` inside the sandbox exactly as a direct call would.
 */

import { apply, keys, stringCharCodeAt, stringToLowerCase, stringTrim } from "./intrinsics.js";
import { push, slice, toText } from "./objects.js";
import type { Run } from "./types.js";

/** The UTF-16 code unit of `text` at `i`. */
export const charAt = (text: string, i: number): number => apply(stringCharCodeAt, text, [i]) as number;
const isUpper = (c: number) => c >= 65 && c <= 90;
const isLower = (c: number) => c >= 97 && c <= 122;
const isDigit = (c: number) => c >= 48 && c <= 57;
/** JavaScript's `\s`: white space and line terminators. */
const isSpace = (c: number) =>
  (c >= 9 && c <= 13) ||
  c === 32 ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff;
/** Names longer than this are never repaired (a repaired name crosses to the host). */
const MAX_REPAIRED_NAME = 256;

/**
 * The dispatcher's `normalizeToolName` (src/dispatch/names.ts), which the prelude cannot import: trim,
 * split camelCase (`getOrder`, `HTTPServer`), lower-case, fold `-`, `_`, `.` and white space into
 * one `_`, and drop a trailing `tool` word. A test checks that both agree over a table of names.
 */
const normalizeName = (name: string): string => {
  const text = apply(stringTrim, name, []) as string;
  let marked = "";
  for (let i = 0; i < text.length; i++) {
    const c = charAt(text, i);
    if (i > 0 && isUpper(c)) {
      const before = charAt(text, i - 1);
      const after = i + 1 < text.length ? charAt(text, i + 1) : -1;
      if (isLower(before) || isDigit(before) || (isUpper(before) && isLower(after))) marked += "_";
    }
    marked += slice(text, i, i + 1);
  }
  const lower = apply(stringToLowerCase, marked, []) as string;
  const words: string[] = [];
  let word = "";
  for (let i = 0; i <= lower.length; i++) {
    const c = i < lower.length ? charAt(lower, i) : -1;
    if (c === -1 || c === 45 || c === 95 || c === 46 || isSpace(c)) {
      if (word !== "") push(words, word);
      word = "";
    } else {
      word += slice(lower, i, i + 1);
    }
  }
  const kept = words.length > 1 && words[words.length - 1] === "tool" ? words.length - 1 : words.length;
  let out = "";
  for (let i = 0; i < kept; i++) out += i === 0 ? words[i] : `_${words[i]}`;
  return out;
};

/** The one real tool name `requested` resolves to under the dispatcher's rule, if exactly one. */
export const resolveName = (current: Run, requested: string): string | undefined => {
  if (requested.length > MAX_REPAIRED_NAME) return undefined;
  const wanted = normalizeName(requested);
  if (wanted === "") return undefined;
  const toolNames = current.config.toolNames;
  const codeNames = keys(toolNames);
  let found: string | undefined;
  for (let i = 0; i < codeNames.length; i++) {
    const real = toText(toolNames[codeNames[i]]);
    if (real === requested) return real;
    if (normalizeName(real) !== wanted) continue;
    if (found !== undefined && found !== real) return undefined;
    found = real;
  }
  return found;
};
