/**
 * A code mode's flow policies (`codeMode({ flows })`): which labels of tool results may not reach which
 * tools. Checked once, when the code mode is made, against the tools it offers; a run applies them
 * through its {@link RunLabels} (run-labels.ts). See docs/effects.md.
 */

import { UserError } from "../../common/errors.js";
import { closestName } from "../tools/closest.js";
import { LABEL_PATTERN } from "../tools/tool.js";
import type { Toolset } from "../tools/toolset.js";

/** What happens to a call that a flow policy covers. */
type FlowAction = "deny" | "approve";

/**
 * One flow policy: once a run has received a result labelled `from`, its later calls to the tools in
 * `to` are refused (`deny`) or go to a person first (`approve`), whether or not the tool needs approval.
 */
export interface FlowPolicy {
  /** A label some tool's results carry (`tool({ labels })`), e.g. `"untrusted"`. */
  from: string;
  /** The tools that labelled data may not reach freely, by their real names. */
  to: readonly string[];
  action: FlowAction;
}

/** A policy as a run applies it to one tool. */
export interface ToolFlow {
  label: string;
  action: FlowAction;
}

/** A code mode's flows, checked: for each tool they cover, what applies to it (deny first). */
export interface ResolvedFlows {
  byTool: ReadonlyMap<string, readonly ToolFlow[]>;
}

const ACTIONS: readonly FlowAction[] = ["deny", "approve"];
const POLICY_KEYS = new Set(["from", "to", "action"]);

/**
 * Checks `flows` against the tools of the code mode; undefined when there are none. Throws a
 * `UserError` for a policy that is not `{ from, to, action }`, an unknown action, a tool in `to` the code
 * mode does not have, or a `from` label no tool carries (a typo there would leave the policy guarding
 * nothing, silently).
 */
export function resolveFlows(flows: unknown, toolset: Toolset): ResolvedFlows | undefined {
  if (flows === undefined) return undefined;
  if (!Array.isArray(flows)) {
    throw new UserError(
      'codeMode: flows must be an array of policies, e.g. [{ from: "untrusted", to: ["send_email"], action: "deny" }].',
    );
  }
  const carried = labelsCarried(toolset);
  const byTool = new Map<string, ToolFlow[]>();
  flows.forEach((policy: unknown, i) => {
    const where = `codeMode: flows[${i}]`;
    if (typeof policy !== "object" || policy === null || Array.isArray(policy)) {
      throw new UserError(`${where} must be an object { from, to, action }.`);
    }
    const given = policy as Record<string, unknown>;
    for (const key of Object.keys(given)) {
      if (!POLICY_KEYS.has(key))
        throw new UserError(`${where}: unknown key "${key}". A policy has from, to and action.`);
    }
    const label = checkLabel(given.from, carried, where);
    const action = given.action;
    if (typeof action !== "string" || !ACTIONS.includes(action as FlowAction)) {
      throw new UserError(
        `${where}: action must be "deny" (the call is refused) or "approve" (a person decides first), got ${JSON.stringify(action)}.`,
      );
    }
    for (const name of checkTools(given.to, toolset, where)) {
      const list = byTool.get(name) ?? [];
      list.push({ label, action: action as FlowAction });
      // Deny before approve: a call both cover is refused.
      list.sort((a, b) => ACTIONS.indexOf(a.action) - ACTIONS.indexOf(b.action));
      byTool.set(name, list);
    }
  });
  return byTool.size === 0 ? undefined : { byTool };
}

/** The labels the tools' results carry, with the tools that carry each. */
function labelsCarried(toolset: Toolset): Map<string, string[]> {
  const carried = new Map<string, string[]>();
  for (const t of toolset.list()) {
    for (const label of t.options.labels ?? []) carried.set(label, [...(carried.get(label) ?? []), t.name]);
  }
  return carried;
}

function checkLabel(from: unknown, carried: Map<string, string[]>, where: string): string {
  if (typeof from !== "string" || !LABEL_PATTERN.test(from)) {
    throw new UserError(
      `${where}: from must be a label name such as "untrusted", got ${JSON.stringify(from)}.`,
    );
  }
  if (carried.has(from)) return from;
  const known = [...carried].map(([label, tools]) => `${label} (${tools.slice(0, 5).join(", ")})`);
  const close = closestName(from, carried.keys());
  throw new UserError(
    `${where}: no tool of this code mode carries the label "${from}", so the policy would guard nothing.${close ? ` Did you mean "${close}"?` : ""} ${known.length > 0 ? `Labels carried: ${known.join("; ")}.` : "No tool carries a label: give the tools whose results it covers labels: [...]."}`,
  );
}

function checkTools(to: unknown, toolset: Toolset, where: string): string[] {
  if (!Array.isArray(to) || to.length === 0 || !to.every((name) => typeof name === "string")) {
    throw new UserError(
      `${where}: to must be a non-empty array of tool names, e.g. ["send_email"], got ${JSON.stringify(to)}.`,
    );
  }
  const names = toolset.names();
  for (const name of to as string[]) {
    if (toolset.get(name) !== undefined) continue;
    const close = closestName(name, names);
    throw new UserError(
      `${where}: the code mode has no tool "${name}".${close ? ` Did you mean "${close}"?` : ""} Name tools by their real names.`,
    );
  }
  return [...new Set(to as string[])];
}
