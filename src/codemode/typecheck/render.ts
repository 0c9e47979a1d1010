/**
 * What the model reads about a type check: the errors that stopped a run, each with its line of code and
 * the fix TypeScript suggests, the errors a run was reported with, and why a check did not finish.
 */

import type { CodeModeErrorName } from "../../../common/failures.js";
import type { RepairedToolName, TypeCheckOutcome, TypeDiagnostic } from "./types.js";

/** The name of the error of a run the type check stopped. */
export const TYPE_CHECK_ERROR = "TypeCheckError" satisfies CodeModeErrorName;

/** A line of code shown under a diagnostic is cut to this many characters around the column. */
const MAX_SHOWN_LINE_CHARS = 160;

/** One diagnostic on one line: where, what, TypeScript's code, and the fix. */
export function diagnosticLine(diagnostic: TypeDiagnostic): string {
  const fix = diagnostic.fix === undefined ? "" : ` Fix: ${diagnostic.fix}`;
  return `line ${diagnostic.line}, column ${diagnostic.column}: ${diagnostic.message} [TS${diagnostic.code}]${fix}`;
}

/**
 * The message of a run stopped by type errors: how many, then each one with the line of code it is on
 * and a caret under its column, and the names the code used that the dispatcher repairs.
 */
export function blockedMessage(
  diagnostics: readonly TypeDiagnostic[],
  errorCount: number,
  repaired: readonly RepairedToolName[],
  code: string,
): string {
  const lines = code.split("\n");
  const count = errorCount === 1 ? "1 type error" : `${errorCount} type errors`;
  const parts = [
    `The code did not run: TypeScript found ${count} in it, checked against the declarations of tools. No tool was called. Fix ${errorCount === 1 ? "it" : "them"} and send the code again.`,
  ];
  for (const diagnostic of diagnostics) {
    parts.push(diagnosticLine(diagnostic));
    const shown = shownLine(lines[diagnostic.line - 1] ?? "", diagnostic.column);
    if (shown) parts.push(`  ${shown.text}`, `  ${" ".repeat(shown.caret)}^`);
  }
  if (errorCount > diagnostics.length) {
    parts.push(`…and ${errorCount - diagnostics.length} more not shown.`);
  }
  parts.push(...repairedNotes(repaired));
  return parts.join("\n");
}

/** One sentence per tool name the code used that is not the declared one, but reaches the tool. */
export function repairedNotes(repaired: readonly RepairedToolName[]): string[] {
  return repaired.map(
    ({ requested, tool }) =>
      `Note: tools.${requested} is not a declared name, but it reaches the tool ${tool}: it works, and ${tool} is its real name.`,
  );
}

/** The message of a run refused in "block" mode because its check did not finish. */
export function unfinishedBlockMessage(outcome: Extract<TypeCheckOutcome, { status: "unchecked" }>): string {
  return `The code did not run: ${outcome.message}, so it could not be checked. No tool was called. ${
    outcome.reason === "failed"
      ? "Send the code again."
      : "Write the code with simpler types (no deeply recursive or conditional types) and send it again."
  }`;
}

/** The note of a run in "report" mode whose check did not finish: it ran unchecked. */
export function unfinishedReportNote(outcome: Extract<TypeCheckOutcome, { status: "unchecked" }>): string {
  return `Type check: ${outcome.message}; the code ran unchecked.`;
}

/** The line around `column` within the shown width, and where the caret goes under it. */
function shownLine(line: string, column: number): { text: string; caret: number } | undefined {
  const text = line.replace(/\t/g, " ");
  if (text.trim() === "") return undefined;
  const at = Math.max(0, Math.min(column - 1, text.length));
  if (text.length <= MAX_SHOWN_LINE_CHARS) return { text, caret: at };
  const start = Math.max(0, Math.min(at - MAX_SHOWN_LINE_CHARS / 2, text.length - MAX_SHOWN_LINE_CHARS));
  const head = start > 0 ? "…" : "";
  const cut = text.slice(start, start + MAX_SHOWN_LINE_CHARS);
  const tail = start + MAX_SHOWN_LINE_CHARS < text.length ? "…" : "";
  return { text: `${head}${cut}${tail}`, caret: at - start + head.length };
}
