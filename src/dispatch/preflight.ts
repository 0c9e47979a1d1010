import { BudgetExceeded, InvalidToolArguments, messageOf } from "../errors.js";
import { parseArguments } from "../tools/arguments.js";
import type { AnyTool } from "../tools/types.js";
import { untilAborted } from "./abort.js";
import type { Decision } from "./approvals.js";
import { resolveToolName } from "./names.js";
import type { CallScope } from "./scope.js";
import type { CallFailure, ToolCall } from "./types.js";

/** The most tool names an unknown-tool message lists. */
export const MAX_LISTED_TOOL_NAMES = 40;

/** A call that passed preflight and may run. */
export interface PreparedCall {
  call: ToolCall;
  tool: AnyTool;
  /** The arguments as parsed from the model's JSON (what policies see). */
  rawArgs: Record<string, unknown>;
  /** The arguments after validation and coercion (what approval predicates saw). */
  args: unknown;
}

/** The outcome of preflight: ready to run, or a failure that becomes the call's result. */
export type Preflight =
  | { ok: true; prepared: PreparedCall }
  | { ok: false; name: string; failure: CallFailure };

/**
 * Resolves, validates, charges the budget and asks for approval, in that order. Runs serially in
 * request order so that prompts and budget accounting are deterministic.
 */
export async function preflight(call: ToolCall, scope: CallScope): Promise<Preflight> {
  const requested = String(call.name);
  // The exact name is the common case: a map lookup, without listing every tool.
  let tool = scope.toolset.get(requested);
  if (!tool) {
    const names = scope.toolset.names();
    const repaired = resolveToolName(requested, names);
    if (repaired === undefined) return { ok: false, name: requested, failure: unknownTool(requested, names) };
    tool = scope.toolset.get(repaired)!;
  }
  const name = tool.name;

  const parsed = parseArguments(call.arguments);
  if (!parsed.ok) return invalid(name, new InvalidToolArguments(name, parsed.issues));
  let validated: Awaited<ReturnType<AnyTool["validate"]>>;
  try {
    validated = await tool.validate(parsed.value);
  } catch (error) {
    validated = { ok: false, issues: [{ path: "", message: `could not be checked: ${messageOf(error)}` }] };
  }
  if (!validated.ok) return invalid(name, new InvalidToolArguments(name, validated.issues));

  try {
    scope.turn.budget.charge("toolCalls");
  } catch (error) {
    if (!(error instanceof BudgetExceeded)) throw error;
    scope.turn.stop(error);
    return { ok: false, name, failure: { kind: "budget", message: error.message } };
  }

  const decision = await approve(call, name, tool, validated.value, scope);
  if (decision && !decision.approved) {
    const reason = decision.reason ? `: ${decision.reason}` : ".";
    return {
      ok: false,
      name,
      failure: { kind: "denied", message: `${name} was not run: the call was denied${reason}` },
    };
  }
  return { ok: true, prepared: { call, tool, rawArgs: parsed.value, args: validated.value } };
}

function invalid(name: string, error: InvalidToolArguments): Preflight {
  return { ok: false, name, failure: { kind: "invalid_arguments", message: error.message } };
}

function unknownTool(requested: string, names: string[]): CallFailure {
  const listed = names.slice(0, MAX_LISTED_TOOL_NAMES).join(", ");
  const more =
    names.length > MAX_LISTED_TOOL_NAMES ? `, and ${names.length - MAX_LISTED_TOOL_NAMES} more` : "";
  const available = names.length === 0 ? "There are no tools." : `Available tools: ${listed}${more}.`;
  return {
    kind: "unknown_tool",
    message: `There is no tool named "${requested.slice(0, 100)}". ${available}`,
  };
}

/**
 * Asks for a decision when the tool is gated; `undefined` when it is not. Order: the stream consumer,
 * then the approval handler, then nobody (denied). Anything that throws denies.
 */
async function approve(
  call: ToolCall,
  name: string,
  tool: AnyTool,
  args: unknown,
  scope: CallScope,
): Promise<Decision | undefined> {
  const needs = tool.options.needsApproval;
  if (needs === undefined || needs === false) return undefined;
  const ctx = scope.context(call.id, name, 0, scope.signal);
  if (typeof needs === "function") {
    try {
      if (!(await needs(args, ctx))) return undefined;
    } catch (error) {
      return decided(scope, call.id, name, {
        approved: false,
        by: "default",
        reason: `the approval check failed (${messageOf(error)})`,
      });
    }
  }

  const { turn } = scope;
  const ticket = turn.board.open(call.id);
  const seq = scope.emit({
    type: "approval_required",
    callId: call.id,
    name,
    ...scope.parentField,
    args,
    approve: () => ticket.decide({ approved: true, by: "consumer" }),
    reject: (reason?: string) => ticket.decide({ approved: false, by: "consumer", reason }),
  });
  // The consumer gets the first word: wait until it has handled the event (or decided).
  await Promise.race([ticket.decided, turn.stream.handled(seq)]);
  const early = await Promise.race([ticket.decided, Promise.resolve(undefined)]);
  if (early) return decided(scope, call.id, name, early);

  const handler = scope.settings.approvalHandler;
  if (!handler) {
    ticket.decide({ approved: false, by: "default", reason: "nobody approved it" });
  } else {
    let answer: Awaited<ReturnType<typeof handler>> | undefined;
    try {
      answer = await handler({ call, toolName: name, args, ctx });
    } catch (error) {
      ticket.decide({
        approved: false,
        by: "handler",
        reason: `the approval handler failed (${messageOf(error)})`,
      });
    }
    if (answer === true || answer === "allow") ticket.decide({ approved: true, by: "handler" });
    else if (answer === false || answer === "deny") ticket.decide({ approved: false, by: "handler" });
    else if (answer !== "ask") {
      ticket.decide({ approved: false, by: "handler", reason: "the approval handler gave no decision" });
    }
  }
  const decision = await untilAborted(ticket.decided, scope.signal);
  return decided(scope, call.id, name, decision);
}

function decided(scope: CallScope, callId: string, name: string, decision: Decision): Decision {
  scope.emit({
    type: "approval_decided",
    callId,
    name,
    ...scope.parentField,
    approved: decision.approved,
    by: decision.by,
    ...(decision.reason === undefined ? {} : { reason: decision.reason }),
  });
  return decision;
}
