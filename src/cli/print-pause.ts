/**
 * How a paused run is shown: every call that waits for a person (its id, whether it is an approval or
 * a question, the tool and every argument, escaped as the approval prompt shows them), where the
 * checkpoint is, and the exact `cordon resume` command that goes on.
 */

import type { PendingCall } from "../codemode/result.js";
import { approvalLines, flowLine, visibleText } from "../dispatch/preview.js";
import type { Style } from "./style.js";

/** What `cordon resume` needs besides the checkpoint file: the same tools, and the same limits. */
export interface ResumeArguments {
  checkpointFile: string;
  toolsPath: string;
  /** The --env the run was given, if any. */
  envName?: string;
  /** The --timeout the run was given, if any: a checkpoint resumes only with the limits it was made with. */
  timeoutMs?: number;
}

/** The command line that resumes a run, its words quoted for a POSIX shell where they need it. */
export function resumeCommand(args: ResumeArguments): string {
  const words = ["cordon", "resume", args.checkpointFile, "--tools", args.toolsPath];
  if (args.envName !== undefined) words.push("--env", args.envName);
  if (args.timeoutMs !== undefined) words.push("--timeout", String(args.timeoutMs));
  return words.map(shellWord).join(" ");
}

/** The pending calls, where the checkpoint is and how to go on; ends with a newline. */
export function formatPaused(
  pending: readonly PendingCall[],
  resume: ResumeArguments,
  options: { style: Style; approvalKeysOf(tool: string): readonly string[] | undefined },
): string {
  const { style } = options;
  const out = [style.yellow(`waiting for a person (${pending.length})`)];
  const idWidth = Math.max(...pending.map((call) => call.id.length));
  for (const call of pending) {
    const kind = call.kind === "approval" ? "approval" : "question";
    out.push(
      `  ${visibleText(call.id).padEnd(idWidth)}  ${kind.padEnd(8)}  ${style.bold(visibleText(call.tool))}`,
    );
    const keys = options.approvalKeysOf(call.tool);
    const lines = approvalLines(call.args, {
      ...(keys === undefined ? {} : { keys }),
      ...(call.flow ? { marks: call.flow.marks } : {}),
    });
    if (call.flow) lines.unshift(flowLine(call.flow));
    for (const line of lines.length === 0 ? ["(no arguments)"] : lines) out.push(`      ${line}`);
  }
  out.push(
    "",
    `The checkpoint is in ${visibleText(resume.checkpointFile)} (readable by you only). Decide and go on with:`,
    `  ${resumeCommand(resume)}`,
  );
  if (pending.some((call) => call.kind === "approval")) {
    out.push(
      style.dim(
        "  It asks about each approval on the terminal; add --approve all or --approve none to decide them all.",
      ),
    );
  }
  if (pending.some((call) => call.kind === "question")) {
    out.push(style.dim("  Questions are asked on the terminal."));
  }
  return `${out.join("\n")}\n`;
}

/** Where a saved plan is and how it is carried out: follows the plan (see `formatPlan`); ends with a newline. */
export function formatSavedPlan(resume: ResumeArguments, style: Style): string {
  return `${[
    "",
    `The plan is in ${visibleText(resume.checkpointFile)} (readable by you only): nothing of it was carried out. Decide and carry it out with:`,
    `  ${resumeCommand(resume)}`,
    style.dim(
      "  It asks once on the terminal whether to carry the plan out; add --approve all to carry it out, or --approve none to only show it.",
    ),
  ].join("\n")}\n`;
}

/** A word as a POSIX shell reads it back: as it is when it is plain, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
