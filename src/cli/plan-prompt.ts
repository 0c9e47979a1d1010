/**
 * `cordon run --plan`: the plan shown (each effect's id, tool and every argument, escaped as the
 * approval prompt shows them) and decided once: `--approve ask` asks `Carry out this plan? [y/N]` on the
 * terminal, with `e` to decide each effect in turn; `all` carries it out; `none` only shows it. A plan
 * that paused before its end (an effect without a preview) has its waiting calls decided as `cordon
 * resume` decides them.
 */

import { createInterface } from "node:readline/promises";
import { UsageError } from "../../common/errors.js";
import type { CodeRunResult, PlannedEffect } from "../codemode/result.js";
import { approvalLines, visibleText } from "../dispatch/preview.js";
import type { ApprovePolicy } from "../mcp/approve-policy.js";
import { askApproval } from "./approval-prompt.js";
import { type DecideIo, decidePending, type PeopleSaid } from "./decide-pending.js";
import type { Style } from "./style.js";

/** What a plan is shown and decided from: a plan's result, or a saved plan's checkpoint (`cm.inspect`). */
type Plan = Pick<CodeRunResult, "effects" | "pending">;

/** The plan's effects, and the calls it waits on when it paused; ends with a newline. */
export function formatPlan(
  plan: Plan,
  options: { style: Style; approvalKeysOf(tool: string): readonly string[] | undefined },
): string {
  const { style } = options;
  const effects = plan.effects ?? [];
  const pending = plan.pending ?? [];
  const out = [
    style.yellow(
      `plan: ${effects.length} effect${effects.length === 1 ? "" : "s"}, none run yet (the reads ran)`,
    ),
  ];
  const rows = [...effects.map((effect) => ({ ...effect, kind: "effect" })), ...pending];
  const idWidth = Math.max(0, ...rows.map((row) => row.id.length));
  for (const row of rows) {
    const kind = row.kind === "effect" ? "" : `${row.kind}  `;
    out.push(`  ${visibleText(row.id).padEnd(idWidth)}  ${kind}${style.bold(visibleText(row.tool))}`);
    const keys = options.approvalKeysOf(row.tool);
    const lines = approvalLines(row.args, keys === undefined ? {} : { keys });
    for (const line of lines.length === 0 ? ["(no arguments)"] : lines) out.push(`      ${line}`);
  }
  if (pending.length > 0) {
    out.push(
      style.dim(
        "  The plan stopped at the calls above that wait for a person (an effect without a preview).",
      ),
    );
  }
  return `${out.join("\n")}\n`;
}

/**
 * Decides the plan once: the decisions and answers to carry it out with, `"declined"` when it is not
 * carried out, `"interrupted"` on Ctrl-C. Throws a {@link UsageError} when it must ask and there is no
 * terminal, naming `asker` (the command or flag that asks).
 */
export async function decidePlan(
  plan: Plan,
  policy: ApprovePolicy,
  io: DecideIo,
  asker = "--plan",
): Promise<PeopleSaid | "declined" | "interrupted"> {
  const effects = plan.effects ?? [];
  const pending = plan.pending ?? [];
  if (policy === "none") return "declined";
  if (policy === "all") return withPending(allApproved(effects), pending, "all", io);
  if (!io.stdin.isTTY || !io.stderr.isTTY) {
    throw new UsageError(
      `${asker} asks on a terminal whether to carry the plan out, and standard input or standard error is not a terminal. Nothing was carried out (only the reads ran). Pass --approve all to carry it out, or --approve none to only show it.`,
    );
  }
  const stop = new AbortController();
  const prompt = createInterface({ input: io.stdin, output: io.stderr, terminal: true });
  const onInterrupt = () => stop.abort();
  prompt.on("SIGINT", onInterrupt);
  process.once("SIGINT", onInterrupt);
  let decisions: Record<string, boolean>;
  let each = false;
  try {
    let answer: string;
    try {
      answer = await prompt.question("Carry out this plan? [y/N] (e: decide each effect) ", {
        signal: stop.signal,
      });
    } catch {
      return "interrupted";
    }
    if (/^\s*y(es)?\s*$/i.test(answer)) decisions = allApproved(effects);
    else if (/^\s*e(ach)?\s*$/i.test(answer)) {
      each = true;
      decisions = {};
      for (const effect of effects) {
        const keys = io.approvalKeysOf(effect.tool);
        const request = { toolName: effect.tool, args: effect.args, signal: stop.signal, label: effect.id };
        decisions[effect.id] = await askApproval(
          prompt,
          io,
          keys ? { ...request, approvalKeys: keys } : request,
        );
        if (stop.signal.aborted) return "interrupted";
      }
    } else return "declined";
  } finally {
    process.off("SIGINT", onInterrupt);
    prompt.close();
  }
  return withPending(decisions, pending, each ? "ask" : "all", io);
}

function allApproved(effects: readonly PlannedEffect[]): Record<string, boolean> {
  return Object.fromEntries(effects.map((effect) => [effect.id, true]));
}

/** The effects' decisions, with the calls a paused plan waits on decided as `cordon resume` does. */
async function withPending(
  decisions: Record<string, boolean>,
  pending: CodeRunResult["pending"] & {},
  policy: ApprovePolicy,
  io: DecideIo,
): Promise<PeopleSaid | "interrupted"> {
  if (pending.length === 0) return { decisions, answers: {} };
  const said = await decidePending(pending, policy, io);
  if (said === "interrupted") return said;
  return { decisions: { ...decisions, ...said.decisions }, answers: said.answers };
}
