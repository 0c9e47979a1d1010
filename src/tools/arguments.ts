/**
 * Parses the arguments a model sent (a JSON string, or an object some providers already parsed) into a
 * plain object. Only safe repairs are made; hostile input (huge, deeply nested, `__proto__` keys) is
 * refused with a clear issue. Never throws.
 */
import type { ArgumentIssue } from "../../common/errors.js";
import { formatPath, preview } from "./issues.js";

/** How deeply arguments may nest (objects and arrays) before they are refused. */
export const MAX_ARGUMENT_DEPTH = 64;

/** How long an arguments string may be, in characters, before it is refused. */
export const MAX_ARGUMENT_CHARS = 1_000_000;

/** The outcome of {@link parseArguments}. `repaired` says a safe repair was needed to read the JSON. */
export type ParsedArguments =
  | { ok: true; value: Record<string, unknown>; repaired: boolean }
  | { ok: false; issues: ArgumentIssue[] };

/**
 * Reads raw arguments into a plain object. An empty string or `undefined` is `{}`. A string is parsed as
 * JSON; when that fails, safe repairs are tried: markdown code fences around the JSON are stripped,
 * trailing commas before `}` or `]` are removed, and unquoted Python `True`/`False`/`None` become
 * `true`/`false`/`null` (never inside strings). The result must be a plain object. `__proto__` keys,
 * nesting deeper than {@link MAX_ARGUMENT_DEPTH} and strings longer than {@link MAX_ARGUMENT_CHARS} are
 * refused.
 */
export function parseArguments(raw: string | object | undefined): ParsedArguments {
  try {
    return parse(raw);
  } catch (error) {
    // A getter or proxy in an object the caller passed may throw: that is still just bad input.
    return fail("", `could not be read: ${error instanceof Error ? error.message : "unknown error"}`);
  }
}

function fail(path: string, message: string): ParsedArguments {
  return { ok: false, issues: [{ path, message }] };
}

function parse(raw: unknown): ParsedArguments {
  if (raw === undefined) return { ok: true, value: {}, repaired: false };
  let value: unknown = raw;
  let repaired = false;
  if (typeof raw === "string") {
    if (raw.length > MAX_ARGUMENT_CHARS) {
      return fail(
        "",
        `the arguments are ${raw.length} characters long, more than the limit of ${MAX_ARGUMENT_CHARS}. Send less data.`,
      );
    }
    if (raw.trim() === "") return { ok: true, value: {}, repaired: false };
    const parsed = parseJson(raw);
    if (!parsed.ok)
      return fail("", `the arguments are not valid JSON (${parsed.error}). Send one JSON object.`);
    value = parsed.value;
    repaired = parsed.repaired;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const kind = value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
    return fail(
      "",
      `the arguments must be a JSON object like {"name": value}, got ${kind} ${preview(value)}`,
    );
  }
  const problem = checkStructure(value);
  if (problem !== undefined) return { ok: false, issues: [problem] };
  return { ok: true, value: value as Record<string, unknown>, repaired };
}

function parseJson(
  text: string,
): { ok: true; value: unknown; repaired: boolean } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text), repaired: false };
  } catch (error) {
    const repairedText = repairJson(text);
    if (repairedText !== text) {
      try {
        return { ok: true, value: JSON.parse(repairedText), repaired: true };
      } catch {
        // Report the error of the original text: it is the one the model wrote.
      }
    }
    return { ok: false, error: error instanceof Error ? error.message : "unreadable" };
  }
}

const FENCE_MARK = "```";
const FENCE_LANGUAGE = /[A-Za-z0-9_-]/;
const PYTHON_LITERALS: Record<string, string> = { True: "true", False: "false", None: "null" };

/**
 * The safe repairs, applied outside strings only: code fences, trailing commas, Python literals. Returns
 * the text unchanged when none applies.
 */
export function repairJson(text: string): string {
  const source = unfence(text) ?? text;
  let out = "";
  let inString = false;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    if (inString) {
      out += ch;
      if (ch === "\\") out += source[++i] ?? "";
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') {
      inString = true;
      out += ch;
      continue;
    }
    if (ch === ",") {
      let j = i + 1;
      while (j < source.length && /\s/.test(source[j])) j++;
      if (source[j] === "}" || source[j] === "]") continue; // a trailing comma: drop it
    }
    if (ch === "T" || ch === "F" || ch === "N") {
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(i, i + 6))?.[0] ?? "";
      const before = i === 0 ? "" : source[i - 1];
      const replacement = PYTHON_LITERALS[word];
      if (replacement !== undefined && !/[A-Za-z0-9_]/.test(before)) {
        out += replacement;
        i += word.length - 1;
        continue;
      }
    }
    out += ch;
  }
  return out;
}

/**
 * The text inside a markdown code fence (```` ```json\n{...}\n``` ````), or undefined when the text is not
 * fenced. The trimmed text must start and end with ```; the opening line's language tag, spaces and line
 * break, and the line break before the closing fence, are dropped. Linear time: a regular expression for
 * this backtracks quadratically on "```" followed by a long run of whitespace.
 */
function unfence(text: string): string | undefined {
  const trimmed = text.trim();
  const mark = FENCE_MARK.length;
  if (trimmed.length < 2 * mark || !trimmed.startsWith(FENCE_MARK) || !trimmed.endsWith(FENCE_MARK)) {
    return undefined;
  }
  const inner = trimmed.slice(mark, trimmed.length - mark);
  let start = 0;
  while (start < inner.length && FENCE_LANGUAGE.test(inner[start])) start++;
  while (inner[start] === " " || inner[start] === "\t") start++;
  if (inner[start] === "\r") start++;
  if (inner[start] === "\n") start++;
  let end = inner.length;
  if (end > start && inner[end - 1] === "\n") end--;
  if (end > start && inner[end - 1] === "\r") end--;
  return inner.slice(start, end);
}

/**
 * Walks parsed arguments iteratively (a stack, never recursion) and returns the first structural problem:
 * a `__proto__` key, or nesting deeper than the limit (which also catches cycles in objects passed in).
 */
function checkStructure(root: object): ArgumentIssue | undefined {
  const stack: { node: object; path: PropertyKey[] }[] = [{ node: root, path: [] }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    if (path.length >= MAX_ARGUMENT_DEPTH) {
      return {
        path: formatPath(path.slice(0, 8)) + (path.length > 8 ? "…" : ""),
        message: `the arguments nest deeper than ${MAX_ARGUMENT_DEPTH} levels. Send flatter data.`,
      };
    }
    const keys = Array.isArray(node) ? [...node.keys()] : Object.keys(node);
    for (const key of keys) {
      if (key === "__proto__") {
        return {
          path: formatPath([...path, key]),
          message: `"__proto__" is not allowed as a key (it could change object prototypes). Rename the field.`,
        };
      }
      const child = (node as Record<PropertyKey, unknown>)[key];
      if (typeof child === "object" && child !== null) stack.push({ node: child, path: [...path, key] });
    }
  }
  return undefined;
}
