/** What a run does after its type check, by mode: stop with the errors, or go on with what was found. */

import { blockedMessage, TYPE_CHECK_ERROR, unfinishedBlockMessage, unfinishedReportNote } from "./render.js";
import type { DeclaredNames, TypeCheckOutcome, TypeDiagnostic } from "./types.js";

/** The run stops: nothing runs, and this is its error. */
export interface StopVerdict {
  run: false;
  error: { name: typeof TYPE_CHECK_ERROR; message: string };
  /** The errors found; empty when the check did not finish. */
  diagnostics: TypeDiagnostic[];
}

/** The run goes on, with what the check found for its report. */
export interface GoVerdict {
  run: true;
  /** In "report" mode, the errors found (absent when none). */
  diagnostics?: TypeDiagnostic[];
  /** A note for the run's report (a check that did not finish). */
  note?: string;
  /** What the code declares at its top level, when the check read it. */
  declared?: DeclaredNames;
}

/** The verdict on a run from its check's outcome. `code` is the checked code, for the lines shown. */
export function verdictOf(
  mode: "block" | "report",
  outcome: TypeCheckOutcome,
  code: string,
): StopVerdict | GoVerdict {
  if (outcome.status === "unchecked") {
    return mode === "block"
      ? {
          run: false,
          error: { name: TYPE_CHECK_ERROR, message: unfinishedBlockMessage(outcome) },
          diagnostics: [],
        }
      : { run: true, note: unfinishedReportNote(outcome) };
  }
  const { diagnostics, errorCount, repaired, declared } = outcome;
  if (errorCount === 0) return { run: true, declared };
  if (mode === "block") {
    return {
      run: false,
      error: { name: TYPE_CHECK_ERROR, message: blockedMessage(diagnostics, errorCount, repaired, code) },
      diagnostics,
    };
  }
  return { run: true, diagnostics, declared };
}
