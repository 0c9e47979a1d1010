/**
 * The end of `cordon run` and `cordon resume`: a paused run's (or a plan's) checkpoint saved to its file,
 * the run printed (text, or JSON with `--json`), and the exit code: 0 ok, 1 failed, 3 paused or planned,
 * 130 interrupted.
 */

import type { CodeRunResult } from "../codemode/result.js";
import { writeCheckpointFile } from "./checkpoint-file.js";
import { EXIT } from "./cli-error.js";
import { formatPlan } from "./plan-prompt.js";
import { formatPaused, formatSavedPlan, type ResumeArguments, resumeCommand } from "./print-pause.js";
import { formatRun } from "./print-run.js";
import { styleFor } from "./style.js";

/** How to report one run. */
export interface ReportOptions {
  json: boolean;
  /** Ctrl-C stopped the run. */
  interrupted: boolean;
  /** The result is a plan (`cordon run --plan`): shown with its effects, and how to carry it out. */
  plan?: boolean;
  /** For a run that may pause: where its checkpoint goes, and how it is resumed. */
  resume?: ResumeArguments;
  /** The arguments a tool shows first when asking (its `approvalKeys`). */
  approvalKeysOf(tool: string): readonly string[] | undefined;
}

/** Saves a paused run's (or a plan's) checkpoint, prints the run, and resolves with the exit code. */
export async function reportRun(result: CodeRunResult, options: ReportOptions): Promise<number> {
  const { resume } = options;
  // A plan (`cordon run --plan --approve pause`) is saved as a paused run is, and shown as a plan.
  const plan = options.plan === true;
  const waits = result.status === "paused" || result.status === "planned";
  let saved = false;
  let saveProblem: string | undefined;
  if (waits) {
    if (resume === undefined || result.checkpoint === undefined) {
      saveProblem = "the run paused without a checkpoint file to save it to";
    } else {
      try {
        await writeCheckpointFile(resume.checkpointFile, result.checkpoint);
        saved = true;
      } catch (error) {
        saveProblem = `its checkpoint could not be written to ${resume.checkpointFile}: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
  }
  if (options.json) {
    process.stdout.write(`${resultJson(result, saved ? resume?.checkpointFile : undefined)}\n`);
    if (saved && resume) process.stderr.write(`paused: go on with ${resumeCommand(resume)}\n`);
  } else {
    const style = styleFor(process.stdout);
    process.stdout.write(formatRun(result, style));
    if (saved && resume && plan) {
      const keys = { style, approvalKeysOf: options.approvalKeysOf };
      process.stdout.write(`\n${formatPlan(result, keys)}${formatSavedPlan(resume, style)}`);
    } else if (saved && resume && result.pending) {
      process.stdout.write(
        `\n${formatPaused(result.pending, resume, { style, approvalKeysOf: options.approvalKeysOf })}`,
      );
    }
  }
  if (saveProblem !== undefined) {
    process.stderr.write(
      `${styleFor(process.stderr).red("cordon:")} ${plan ? "the plan was made" : "the run paused"}, but ${saveProblem}. It cannot be resumed: the calls it made before the pause have taken effect; run the code again.\n`,
    );
    return EXIT.codeFailed;
  }
  if (options.interrupted) return EXIT.interrupted;
  if (result.status === "ok") return EXIT.ok;
  return waits ? EXIT.paused : EXIT.codeFailed;
}

/**
 * The run as JSON: a paused run's checkpoint text is left out (it is in `checkpointFile`). Should its
 * value not encode (code mode bounds what comes out of the sandbox, but a report must never be lost to
 * its value), the value is replaced by a note and the rest is printed.
 */
function resultJson(result: CodeRunResult, checkpointFile: string | undefined): string {
  const { checkpoint: _checkpoint, ...rest } = result;
  const shown = checkpointFile === undefined ? rest : { ...rest, checkpointFile };
  try {
    return JSON.stringify(shown, null, 2);
  } catch (error) {
    const note = `(the value could not be encoded as JSON: ${error instanceof Error ? error.message : String(error)})`;
    return JSON.stringify({ ...shown, value: note }, null, 2);
  }
}
