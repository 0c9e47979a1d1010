/**
 * `--approve` for `cordon run`: `ask` asks on the terminal, one gated call at a time, when standard input
 * and standard error are both a terminal, and denies otherwise (nobody could answer); `all` allows every
 * gated call; `none` denies every one. Nothing ever allows a call by default. The question shows every
 * argument, escaped (see `approvalLines`), and `v` shows them all in full before answering.
 */

import { createInterface, type Interface } from "node:readline/promises";
import { approvalDetails, approvalLines, visibleText } from "../dispatch/preview.js";
import type { ApprovalHandler } from "../dispatch/types.js";
import type { ApprovePolicy } from "../mcp/approve-policy.js";
import type { Progress } from "./progress.js";
import type { Style } from "./style.js";

/** One gated call to ask about. */
interface AskRequest {
  toolName: string;
  args: unknown;
  approvalKeys?: readonly string[];
  signal: AbortSignal;
}

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
  const ask = async (request: AskRequest): Promise<boolean> => {
    const { toolName, args, approvalKeys, signal } = request;
    if (signal.aborted) return false;
    prompt ??= createInterface({ input: io.stdin, output: io.stderr, terminal: true });
    io.progress.clear();
    // Every argument on a line of its own, escaped: nothing can be pushed off the screen or hidden.
    const lines = approvalLines(args, approvalKeys === undefined ? {} : { keys: approvalKeys });
    const what =
      lines.length === 0 ? " (no arguments)" : ` with:\n${lines.map((line) => `    ${line}`).join("\n")}`;
    io.stderr.write(`${io.style.yellow("?")} Allow ${io.style.bold(visibleText(toolName))}${what}\n`);
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
  };
  return {
    handler: ({ toolName, args, approvalKeys, ctx }) => {
      // One question at a time: concurrent gated calls wait for the one before them to be answered.
      const request = { toolName, args, signal: ctx.signal, ...(approvalKeys ? { approvalKeys } : {}) };
      const answer = turn.then(() => ask(request));
      turn = answer.then(() => undefined);
      return answer;
    },
    close() {
      prompt?.close();
    },
  };
}
