/**
 * `--approve` for `cordon run`: `ask` asks on the terminal, one gated call at a time, when standard input
 * and standard error are both a terminal, and denies otherwise (nobody could answer); `all` allows every
 * gated call; `none` denies every one. Nothing ever allows a call by default.
 */

import { createInterface, type Interface } from "node:readline/promises";
import { previewArguments } from "../dispatch/preview.js";
import type { ApprovalHandler } from "../dispatch/types.js";
import type { ApprovePolicy } from "../mcp/approve-policy.js";
import type { Progress } from "./progress.js";
import type { Style } from "./style.js";

/** Characters of a call's arguments shown in the question. */
const ARGS_PREVIEW_CHARS = 400;

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
  const ask = async (toolName: string, args: unknown, signal: AbortSignal): Promise<boolean> => {
    if (signal.aborted) return false;
    prompt ??= createInterface({ input: io.stdin, output: io.stderr, terminal: true });
    io.progress.clear();
    const question = `${io.style.yellow("?")} Allow ${io.style.bold(toolName)} ${preview(args)}? [y/N] `;
    try {
      const answer = await prompt.question(question, { signal });
      return /^\s*y(es)?\s*$/i.test(answer);
    } catch {
      return false;
    }
  };
  return {
    handler: ({ toolName, args, ctx }) => {
      // One question at a time: concurrent gated calls wait for the one before them to be answered.
      const answer = turn.then(() => ask(toolName, args, ctx.signal));
      turn = answer.then(() => undefined);
      return answer;
    },
    close() {
      prompt?.close();
    },
  };
}

function preview(args: unknown): string {
  return previewArguments(args, ARGS_PREVIEW_CHARS) ?? "(arguments that cannot be shown)";
}
