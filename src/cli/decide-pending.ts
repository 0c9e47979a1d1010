/**
 * How `cordon resume` meets the calls a paused run waits on, before it goes on: `--approve ask` asks
 * about each approval on the terminal, one at a time; `all` approves every one; `none` denies every one.
 * Questions (`ask_human`) are always asked on the terminal, whatever --approve says. When something must
 * be asked and standard input or standard error is not a terminal, nothing is decided and the command
 * says how to go on, rather than deciding for the person.
 */

import { createInterface, type Interface } from "node:readline/promises";
import { UsageError } from "../../common/errors.js";
import type { PendingCall } from "../codemode/result.js";
import { visibleText } from "../dispatch/preview.js";
import type { ApprovePolicy } from "../mcp/approve-policy.js";
import { askApproval } from "./approval-prompt.js";
import { askQuestion } from "./question-prompt.js";
import type { Style } from "./style.js";

/** The person's decisions and answers, by pending call id: what `CodeMode.resume` is given. */
export interface PeopleSaid {
  decisions: Record<string, boolean>;
  answers: Record<string, string>;
}

/** Where to ask, and what a tool shows first when asking (its `approvalKeys`). */
export interface DecideIo {
  stdin: NodeJS.ReadStream;
  stderr: NodeJS.WriteStream;
  style: Style;
  approvalKeysOf(tool: string): readonly string[] | undefined;
}

/**
 * Decides every pending call; resolves `"interrupted"` when the person pressed Ctrl-C before all were
 * decided. Throws a {@link UsageError} when something must be asked and there is no terminal.
 */
export async function decidePending(
  pending: readonly PendingCall[],
  policy: ApprovePolicy,
  io: DecideIo,
): Promise<PeopleSaid | "interrupted"> {
  const asked = pending.filter((call) => call.kind === "question" || policy === "ask");
  if (asked.length > 0 && (!io.stdin.isTTY || !io.stderr.isTTY)) throw noTerminal(asked, policy);
  const said: PeopleSaid = { decisions: {}, answers: {} };
  for (const call of pending) {
    if (call.kind === "approval" && policy !== "ask") {
      said.decisions[call.id] = policy === "all";
      const verdict = policy === "all" ? io.style.green("approved") : io.style.red("denied");
      io.stderr.write(
        `${verdict} ${visibleText(call.tool)} ${io.style.dim(`(${call.id}, --approve ${policy})`)}\n`,
      );
    }
  }
  if (asked.length === 0) return said;
  const stop = new AbortController();
  const onInterrupt = () => stop.abort();
  const prompt: Interface = createInterface({ input: io.stdin, output: io.stderr, terminal: true });
  // On a terminal, Ctrl-C reaches readline as a key rather than as a signal.
  prompt.on("SIGINT", onInterrupt);
  process.once("SIGINT", onInterrupt);
  try {
    for (const call of asked) {
      const request = {
        toolName: call.tool,
        args: call.args,
        signal: stop.signal,
        label: call.id,
        ...(call.flow ? { flow: call.flow } : {}),
      };
      if (call.kind === "question") {
        const answer = await askQuestion(prompt, io, request);
        if (answer === undefined || stop.signal.aborted) return "interrupted";
        said.answers[call.id] = answer;
      } else {
        const keys = io.approvalKeysOf(call.tool);
        const approved = await askApproval(prompt, io, keys ? { ...request, approvalKeys: keys } : request);
        if (stop.signal.aborted) return "interrupted";
        said.decisions[call.id] = approved;
      }
    }
    return said;
  } finally {
    process.off("SIGINT", onInterrupt);
    prompt.close();
  }
}

/** What to do when calls must be asked about and nobody can be asked. */
function noTerminal(asked: readonly PendingCall[], policy: ApprovePolicy): UsageError {
  const list = asked.map((call) => `${call.id} (${call.kind} of ${visibleText(call.tool)})`).join(", ");
  const questions = asked.some((call) => call.kind === "question");
  const approvals = policy === "ask" && asked.some((call) => call.kind === "approval");
  const what = [
    ...(approvals
      ? [
          "--approve ask asks about each approval on a terminal: run cordon resume in a terminal, or decide them all with --approve all or --approve none.",
        ]
      : []),
    ...(questions ? ["A question is answered on a terminal: run cordon resume in a terminal."] : []),
  ].join(" ");
  return new UsageError(
    `the run waits for a person (${list}), and standard input or standard error is not a terminal, so nobody can be asked. Nothing was resumed. ${what}`,
  );
}
