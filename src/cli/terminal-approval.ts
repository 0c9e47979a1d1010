/**
 * `--approve` for `cordon run`: `ask` asks on the terminal, one gated call at a time, when standard input
 * and standard error are both a terminal, and denies otherwise (nobody could answer); `all` allows every
 * gated call; `none` denies every one. Nothing ever allows a call by default. The question is
 * {@link askApproval}'s: every argument, escaped, and `v` to see them all in full before answering.
 */

import { createInterface, type Interface } from "node:readline/promises";
import type { ApprovalHandler } from "../dispatch/types.js";
import type { ApprovePolicy } from "../mcp/approve-policy.js";
import { type ApprovalRequest, askApproval } from "./approval-prompt.js";
import type { Progress } from "./progress.js";
import type { Style } from "./style.js";

/** An approval handler for a run, and what to release once the run is over. */
export interface TerminalApproval {
  handler: ApprovalHandler;
  /** Stops reading the terminal. */
  close(): void;
}

/** The approval handler for `policy` on this process's terminal. */
export function terminalApproval(
  policy: ApprovePolicy,
  io: { stdin: NodeJS.ReadStream; stderr: NodeJS.WriteStream; style: Style; progress: Progress },
): TerminalApproval {
  if (policy === "all") return { handler: () => true, close() {} };
  if (policy === "none") return { handler: () => false, close() {} };
  if (!io.stdin.isTTY || !io.stderr.isTTY) {
    let told = false;
    return {
      handler: ({ toolName }) => {
        if (!told) {
          told = true;
          io.stderr.write(
            `${io.style.yellow("denied")} ${toolName}: it needs approval, and --approve ask can only ask on a terminal. Pass --approve all to allow gated calls, or run cordon in a terminal.\n`,
          );
        }
        return false;
      },
      close() {},
    };
  }
  let prompt: Interface | undefined;
  let turn = Promise.resolve();
  const ask = async (request: ApprovalRequest): Promise<boolean> => {
    if (request.signal.aborted) return false;
    prompt ??= createInterface({ input: io.stdin, output: io.stderr, terminal: true });
    io.progress.clear();
    return askApproval(prompt, io, request);
  };
  return {
    handler: ({ toolName, args, approvalKeys, flow, ctx }) => {
      // One question at a time: concurrent gated calls wait for the one before them to be answered.
      const request = {
        toolName,
        args,
        signal: ctx.signal,
        ...(approvalKeys ? { approvalKeys } : {}),
        ...(flow ? { flow } : {}),
      };
      const answer = turn.then(() => ask(request));
      turn = answer.then(() => undefined);
      return answer;
    },
    close() {
      prompt?.close();
    },
  };
}
