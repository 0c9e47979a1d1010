/**
 * The question a person answers on the terminal before a gated call runs: the tool and every argument,
 * one line each and escaped (see `approvalLines`), then `Allow? [y/N]`; `v` shows every argument in full
 * before answering again. Used by `--approve ask` of `cordon run` (while the run waits) and of `cordon
 * resume` (before the paused run goes on).
 */

import type { Interface } from "node:readline/promises";
import type { FlowApproval } from "../dispatch/flow-approval.js";
import { approvalDetails, approvalLines, flowLine, visibleText } from "../dispatch/preview.js";
import type { Style } from "./style.js";

/** One gated call to ask about. */
export interface ApprovalRequest {
  toolName: string;
  args: unknown;
  /** The arguments to show first (the tool's `approvalKeys`). */
  approvalKeys?: readonly string[];
  /** Withdraws the question: the call is then not allowed. */
  signal: AbortSignal;
  /** Shown before the tool's name, e.g. the pending call's id. */
  label?: string;
  /** Set when a flow policy asks: why, and the arguments holding labelled data (marked under them). */
  flow?: FlowApproval;
}

/** Asks about one call on `prompt`; resolves true only for a yes, false for anything else or a withdrawal. */
export async function askApproval(
  prompt: Interface,
  io: { stderr: NodeJS.WriteStream; style: Style },
  request: ApprovalRequest,
): Promise<boolean> {
  const { toolName, args, approvalKeys, signal, label, flow } = request;
  if (signal.aborted) return false;
  // Every argument on a line of its own, escaped: nothing can be pushed off the screen or hidden.
  const lines = approvalLines(args, {
    ...(approvalKeys === undefined ? {} : { keys: approvalKeys }),
    ...(flow ? { marks: flow.marks } : {}),
  });
  if (flow) lines.unshift(flowLine(flow));
  const what =
    lines.length === 0 ? " (no arguments)" : ` with:\n${lines.map((line) => `    ${line}`).join("\n")}`;
  const tag = label === undefined ? "" : `${io.style.dim(visibleText(label))} `;
  io.stderr.write(`${io.style.yellow("?")} ${tag}Allow ${io.style.bold(visibleText(toolName))}${what}\n`);
  try {
    for (;;) {
      const answer = await prompt.question(`  Allow? [y/N] (v: every argument in full) `, { signal });
      if (/^\s*y(es)?\s*$/i.test(answer)) return true;
      if (!/^\s*v(iew)?\s*$/i.test(answer)) return false;
      io.stderr.write(`${approvalDetails(args).replace(/^/gm, "    ")}\n`);
    }
  } catch {
    return false;
  }
}
