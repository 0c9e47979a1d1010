import { groupDigits } from "../../common/numbers.js";
import type { ArgumentMark, FlowApproval } from "./flow-approval.js";
/**
 * What a person is shown before approving a call: every argument, and nothing that can hide one. A
 * model's code once padded a harmless field with spaces so that a prompt cut at 400 characters showed
 * `{"memo":"Monthly invoice #4471…` and never the amount or the account; bidirectional overrides can
 * reorder what a terminal shows. So every argument gets a line of its own, long strings are cut in the
 * middle with their length shown, runs of whitespace are counted, and every character that could hide
 * or reorder text is written out as an escape. The whole value is one request away ({@link approvalDetails}).
 */

/** Characters of a string shown in full; a longer one keeps its start and end, with its length. */
export const APPROVAL_STRING_CHARS = 160;
/** Items of a nested array, or keys of a nested object, shown before the rest are counted. */
export const APPROVAL_NESTED_ITEMS = 20;
/**
 * Combining marks shown on one character; the ones after it are written out as `\u{…}`, so that marks
 * stacked by the hundred cannot cover the lines above and below, or a digit beside them.
 */
export const APPROVAL_MARKS_PER_CHAR = 2;
/** How deep nested arrays and objects are shown. */
const MAX_DEPTH = 4;
/** A run of more spaces than this is shown as its count. */
const SPACE_RUN = 8;
/** Of a cut string, the characters kept at its start and at its end. */
const HEAD_CHARS = 100;
const TAIL_CHARS = 50;

/** Options of {@link approvalLines}. */
export interface ApprovalPreviewOptions {
  /** Arguments to show first (a tool's `approvalKeys`); the rest follow in their own order. */
  keys?: readonly string[];
  /**
   * Arguments that hold data from a labelled result (a flow policy's approval, `FlowApproval.marks`):
   * each gets a line of its own under its argument, naming the call the data came from.
   */
  marks?: readonly ArgumentMark[];
}

/** Marks shown under one argument; the rest are counted. */
const MARKS_PER_ARGUMENT = 5;

/**
 * The arguments of a call, one line per argument (`name: value`), every argument present: strings
 * longer than {@link APPROVAL_STRING_CHARS} keep their start and end and say their length, nested
 * values show their first {@link APPROVAL_NESTED_ITEMS} items, and invisible, control and bidirectional
 * characters are escaped.
 */
export function approvalLines(args: unknown, options: ApprovalPreviewOptions = {}): string[] {
  const marks = options.marks ?? [];
  if (!isRecord(args)) return [render(args, 0), ...markLines(marks)];
  const first = (options.keys ?? []).filter((key) => Object.hasOwn(args, key));
  const rest = Object.keys(args).filter((key) => !first.includes(key));
  return [...first, ...rest]
    .flatMap((key) => [
      `${renderKey(key)}: ${render(args[key], 0)}`,
      ...markLines(marks.filter((mark) => mark.argument === key)),
    ])
    .concat(
      markLines(marks.filter((mark) => mark.argument === undefined || !Object.hasOwn(args, mark.argument))),
    );
}

/**
 * The line that says why a flow policy asks (`FlowApproval.reason`), escaped, for the top of a request.
 */
export function flowLine(flow: FlowApproval): string {
  return `⚠ Asked by a flow policy: ${visibleText(flow.reason)}.`;
}

/**
 * `  ⚠ body contains text from web_fetch #3 (untrusted)`: one line per mark, at most
 * {@link MARKS_PER_ARGUMENT}, then how many more.
 */
function markLines(marks: readonly ArgumentMark[]): string[] {
  const lines = marks
    .slice(0, MARKS_PER_ARGUMENT)
    .map(
      (mark) =>
        `  ⚠ ${visibleText(mark.path)} ${mark.holds === "text" ? "contains text from" : "equals a value from"} ${visibleText(mark.from)} (${visibleText(mark.label)})`,
    );
  const more = marks.length - lines.length;
  if (more > 0) lines.push(`  ⚠ … and ${count(more, "more mark")}`);
  return lines;
}

/**
 * The whole arguments as indented JSON, with every invisible, control and bidirectional character
 * escaped: what "show me everything" shows. Nothing is cut.
 */
export function approvalDetails(args: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(
      args,
      (_key, value: unknown) => (typeof value === "bigint" ? `${value}n` : value),
      2,
    );
  } catch {
    json = undefined;
  }
  return json === undefined
    ? "(the arguments cannot be shown as JSON)"
    : visibleText(json, { keepNewlines: true });
}

/**
 * `text` with every character that could hide or reorder what a person reads written out: control
 * characters (terminal escapes among them), bidirectional and other format characters, invisible and
 * default-ignorable ones, line and paragraph separators, unusual spaces, and combining marks past the
 * {@link APPROVAL_MARKS_PER_CHAR}th on one character (or on none) as `\u{…}` (newlines and tabs as `\n`
 * and `\t`, unless `keepNewlines`), and runs of more than eight spaces as `⟨N spaces⟩` (unless
 * `keepSpaces`, for indented text).
 */
export function visibleText(
  text: string,
  options: { keepNewlines?: boolean; keepSpaces?: boolean } = {},
): string {
  return unitsOf(text, options.keepNewlines === true, options.keepSpaces === true).join("");
}

const HIDING = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Default_Ignorable_Code_Point}]|(?! )\p{Zs}/u;
const MARK = /\p{M}/u;

/** A character written out as `\u{…}`. */
function escaped(char: string): string {
  return `\\u{${char.codePointAt(0)!.toString(16).toUpperCase()}}`;
}

/** The text as display units: one per character (escaped when it hides), one per run of spaces. */
function unitsOf(text: string, keepNewlines: boolean, keepSpaces = false): string[] {
  const units: string[] = [];
  let spaces = 0;
  // How many more combining marks the character shown last may carry (none on an escape or a count).
  let marks = 0;
  const flush = () => {
    if (spaces > SPACE_RUN && !keepSpaces) {
      units.push(`⟨${groupDigits(spaces)} spaces⟩`);
      marks = 0;
    } else if (spaces > 0) {
      units.push(" ".repeat(spaces));
      marks = APPROVAL_MARKS_PER_CHAR;
    }
    spaces = 0;
  };
  for (const char of text) {
    if (char === " ") {
      spaces++;
      continue;
    }
    flush();
    if (char === "\n" || char === "\t" || HIDING.test(char)) {
      units.push(char === "\n" ? (keepNewlines ? "\n" : "\\n") : char === "\t" ? "\\t" : escaped(char));
      marks = 0;
    } else if (MARK.test(char)) {
      units.push(marks > 0 ? char : escaped(char));
      marks--;
    } else {
      units.push(char);
      marks = APPROVAL_MARKS_PER_CHAR;
    }
  }
  flush();
  return units;
}

/** A string as the person sees it: quoted, escaped, and cut in the middle when long. */
function renderString(text: string): string {
  const units = unitsOf(text, false).map((unit) => (unit === '"' ? '\\"' : unit === "\\" ? "\\\\" : unit));
  const shown = units.join("");
  if (shown.length <= APPROVAL_STRING_CHARS) return `"${shown}"`;
  let head = "";
  for (const unit of units) {
    if (head.length + unit.length > HEAD_CHARS) break;
    head += unit;
  }
  let tail = "";
  for (let i = units.length - 1; i >= 0; i--) {
    if (tail.length + units[i]!.length > TAIL_CHARS) break;
    tail = units[i]! + tail;
  }
  return `"${head}…${tail}" (${groupDigits([...text].length)} chars)`;
}

function render(value: unknown, depth: number): string {
  if (typeof value === "string") return renderString(value);
  if (value === null || typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value === "bigint") return `${value}n`;
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    if (depth >= MAX_DEPTH) return `[… ${count(value.length, "item")}]`;
    const shown = value.slice(0, APPROVAL_NESTED_ITEMS).map((item) => render(item, depth + 1));
    const more = value.length - shown.length;
    return `[${shown.join(", ")}${more > 0 ? `, … ${count(more, "more item")}` : ""}]`;
  }
  if (isRecord(value)) {
    const keys = Object.keys(value);
    if (keys.length === 0) return "{}";
    if (depth >= MAX_DEPTH) return `{… ${count(keys.length, "key")}}`;
    const shown = keys
      .slice(0, APPROVAL_NESTED_ITEMS)
      .map((key) => `${renderKey(key)}: ${render(value[key], depth + 1)}`);
    const more = keys.length - shown.length;
    return `{ ${shown.join(", ")}${more > 0 ? `, … ${count(more, "more key")}` : ""} }`;
  }
  return `(${typeof value})`;
}

function count(n: number, noun: string): string {
  return `${groupDigits(n)} ${noun}${n === 1 ? "" : "s"}`;
}

function renderKey(key: string): string {
  return /^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(key) && !HIDING.test(key) ? key : renderString(key);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
