import { untilAborted } from "../../common/abort.js";
import { BudgetExceeded, InvalidToolArguments, messageOf } from "../../common/errors.js";
import { isPromiseLike } from "../../common/promise-like.js";
import { parseArguments } from "../tools/arguments.js";
import type { AnyTool, RunContext } from "../tools/types.js";
import type { Decision, Ticket } from "./approvals.js";
import { formatDuration } from "./failures.js";
import { resolveToolName } from "./names.js";
import type { CallScope } from "./scope.js";
import type { ApprovalAnswer, ApprovalHandler, CallFailure, ToolCall } from "./types.js";

/** The most tool names an unknown-tool message lists. */
const MAX_LISTED_TOOL_NAMES = 40;

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
 * request order so that prompts and budget accounting are deterministic. Returns synchronously when
 * nothing has to be waited for (validation is synchronous and the tool needs no approval): a call from
 * code then reaches its tool within the host's first step, without a suspension per stage.
 */
export function preflight(call: ToolCall, scope: CallScope): Preflight | Promise<Preflight> {
  const requested = String(call.name);
  // The exact name is the common case: a map lookup, without listing every tool.
  let tool = scope.tool ?? scope.toolset.get(requested);
  if (!tool) {
    const names = scope.toolset.names();
    const repaired = resolveToolName(requested, names);
    if (repaired === undefined) return { ok: false, name: requested, failure: unknownTool(requested, names) };
    tool = scope.toolset.get(repaired)!;
  }
  const found = tool;
  const parsed = parseArguments(call.arguments);
  if (!parsed.ok) return invalid(found.name, new InvalidToolArguments(found.name, parsed.issues));
  let validated: ReturnType<AnyTool["validate"]>;
  try {
    validated = found.validate(parsed.value);
  } catch (error) {
    validated = uncheckable(error);
  }
  if (!isPromiseLike(validated)) return approveAndCharge(call, found, parsed.value, validated, scope);
  return Promise.resolve(validated).then(
    (result) => approveAndCharge(call, found, parsed.value, result, scope),
    (error: unknown) => approveAndCharge(call, found, parsed.value, uncheckable(error), scope),
  );
}

type Validation = Awaited<ReturnType<AnyTool["validate"]>>;

function uncheckable(error: unknown): Validation {
  return { ok: false, issues: [{ path: "", message: `could not be checked: ${messageOf(error)}` }] };
}

/** The rest of preflight once the arguments are validated: budget, approval, budget again, charge. */
function approveAndCharge(
  call: ToolCall,
  tool: AnyTool,
  rawArgs: Record<string, unknown>,
  validated: Validation,
  scope: CallScope,
): Preflight | Promise<Preflight> {
  const name = tool.name;
  if (!validated.ok) return invalid(name, new InvalidToolArguments(name, validated.issues));
  // Check the budget before asking anyone, but charge it only for a call that will run.
  const { budget } = scope.turn;
  if (budget.remaining("toolCalls") < 1) return outOfBudget(name, scope);
  const ready = (): Preflight => {
    if (budget.remaining("toolCalls") < 1) return outOfBudget(name, scope);
    budget.charge("toolCalls");
    return { ok: true, prepared: { call, tool, rawArgs, args: validated.value } };
  };
  if (!mayNeedPerson(tool, scope)) return ready();
  return approve(call, name, tool, validated.value, scope).then((decision) => {
    if (decision === PAUSED) {
      scope.paused = { kind: "approval", args: validated.value, ...(scope.flow ? { flow: scope.flow } : {}) };
      return {
        ok: false,
        name,
        failure: { kind: "paused", message: `${name} waits for a person's approval: the run pauses here.` },
      };
    }
    if (decision && !decision.approved) {
      const reason = decision.reason ? `: ${decision.reason}` : ".";
      return {
        ok: false,
        name,
        failure: { kind: "denied", message: `${name} was not run: the call was denied${reason}` },
      };
    }
    return ready();
  });
}

/** The run's budget of tool calls is used up: the turn ends at the next safe point. */
function outOfBudget(name: string, scope: CallScope): Preflight {
  const error = new BudgetExceeded(
    `The run's budget of ${scope.turn.budget.limits.toolCalls} toolCalls is used up.`,
    { budget: scope.turn.budget, resource: "toolCalls" },
  );
  scope.turn.stop(error);
  return { ok: false, name, failure: { kind: "budget", message: error.message } };
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
 * then the approval handler (the dispatcher's, else the root dispatcher's for calls made from code),
 * then nobody: denied. Anything that throws denies; cancelling the turn ends every wait.
 */
/** What {@link approve} gives for a call of a run that pauses rather than wait for a person. */
const PAUSED = Symbol("paused");

/**
 * Whether a call may need a person's decision: its tool is gated, or a person decided on it already, or
 * it is an effect of a plan being carried out (`PersonPolicy.effects` "gate"). An effect of a plan being
 * made is not asked about: it is not run (its preview is).
 */
function mayNeedPerson(tool: AnyTool, scope: CallScope): boolean {
  const person = scope.person;
  const effect = tool.options.effect === true;
  if (effect && person?.effects === "preview") return false;
  // A flow policy gates the call whatever its tool says (code mode's flows).
  if (scope.flow || person?.decision !== undefined || (effect && person?.effects === "gate")) return true;
  const needs = tool.options.needsApproval;
  return needs !== undefined && needs !== false;
}

async function approve(
  call: ToolCall,
  name: string,
  tool: AnyTool,
  args: unknown,
  scope: CallScope,
): Promise<Decision | typeof PAUSED | undefined> {
  if (!mayNeedPerson(tool, scope)) return undefined;
  // A flow policy gates the call whatever its tool says (code mode's flows).
  const needs = scope.flow ? true : tool.options.needsApproval;
  const person = scope.person;
  const gated = tool.options.effect === true && person?.effects === "gate";
  const ctx = scope.context(call.id, name, 0, scope.signal);
  // A decision a person made on this very call (a resume) is applied first, whatever a predicate says now.
  if (typeof needs === "function" && person?.decision === undefined && !gated) {
    try {
      if (!(await untilAborted(Promise.resolve(needs(args, ctx)), scope.signal))) return undefined;
    } catch (error) {
      if (scope.signal.aborted) throw error;
      return decided(scope, call.id, name, {
        approved: false,
        by: "default",
        reason: `the approval check failed (${messageOf(error)})`,
      });
    }
  }

  if (person?.decision !== undefined) {
    // A person decided earlier (the run that paused for it is resuming): nobody is asked again.
    const { approved, reason } = person.decision;
    return decided(scope, call.id, name, {
      approved,
      by: "consumer",
      ...(reason === undefined ? {} : { reason }),
    });
  }
  // An effect of a plan that nobody approved waits for a person: no handler decides it on the spot.
  if (gated && person?.pause === true) return PAUSED;
  if (person?.pause === true) return decideOrPause(call, name, args, ctx, scope);

  const { turn } = scope;
  const ticket = turn.board.open(call.id);
  const keys = tool.options.approvalKeys;
  const approvalKeys = {
    ...(keys === undefined ? {} : { approvalKeys: keys }),
    ...(scope.flow ? { flow: scope.flow } : {}),
  };
  const waitMs = scope.settings.approvalTimeoutMs;
  // No decision in time is a denial, whoever was meant to decide (a handler that asks a human included).
  const deadline = setTimeout(
    () => {
      ticket.decide({
        approved: false,
        by: "default",
        reason: `nobody answered the approval request within ${formatDuration(waitMs)} (approvalTimeoutMs)`,
      });
    },
    Math.min(waitMs, 2 ** 31 - 1),
  );
  try {
    const seq = scope.emit({
      type: "approval_required",
      callId: call.id,
      name,
      ...scope.parentField,
      args,
      ...approvalKeys,
      approve: () => ticket.decide({ approved: true, by: "consumer" }),
      reject: (reason?: string) => ticket.decide({ approved: false, by: "consumer", reason }),
    });
    // The consumer gets the first word: wait until it has handled the event (or decided).
    await untilAborted(Promise.race([ticket.decided, turn.stream.handled(seq)]), scope.signal);
    if (!ticket.done) {
      await Promise.race([
        askHandler(ticket, { call, toolName: name, args, ...approvalKeys, ctx }, scope),
        ticket.decided,
      ]);
    }
    return decided(scope, call.id, name, await untilAborted(ticket.decided, scope.signal));
  } catch (error) {
    // Cancelled while waiting: the call leaves the board, and observers learn it was not approved.
    if (ticket.decide({ approved: false, by: "default", reason: "the run was cancelled" })) {
      decided(scope, call.id, name, { approved: false, by: "default", reason: "the run was cancelled" });
    }
    throw error;
  } finally {
    clearTimeout(deadline);
  }
}

/**
 * For a run that pauses rather than wait: the approval handler may decide at once (allow or deny); when
 * it asks, or there is none, nobody is asked and the call pauses. A handler that throws denies.
 */
async function decideOrPause(
  call: ToolCall,
  name: string,
  args: unknown,
  ctx: RunContext,
  scope: CallScope,
): Promise<Decision | typeof PAUSED> {
  const handler = scope.settings.approvalHandler ?? scope.turn.approvalHandler;
  if (!handler) return PAUSED;
  let answer: ApprovalAnswer;
  try {
    const flow = scope.flow ? { flow: scope.flow } : {};
    answer = await untilAborted(
      Promise.resolve(handler({ call, toolName: name, args, ...flow, ctx })),
      scope.signal,
    );
  } catch (error) {
    if (scope.signal.aborted) throw error;
    return decided(scope, call.id, name, {
      approved: false,
      by: "handler",
      reason: `the approval handler failed (${messageOf(error)})`,
    });
  }
  if (answer === true || answer === "allow")
    return decided(scope, call.id, name, { approved: true, by: "handler" });
  if (answer === false || answer === "deny")
    return decided(scope, call.id, name, { approved: false, by: "handler" });
  return PAUSED;
}

/**
 * Lets the approval handler decide. `"ask"` defers to the consumer and the approvals channel, for as
 * long as someone reads the dispatch's events; with nobody reading, nobody can decide, so it denies.
 */
async function askHandler(
  ticket: Ticket,
  request: Parameters<ApprovalHandler>[0],
  scope: CallScope,
): Promise<void> {
  const handler = scope.settings.approvalHandler ?? scope.turn.approvalHandler;
  if (!handler) {
    ticket.decide({ approved: false, by: "default", reason: "nobody approved it" });
    return;
  }
  let answer: ApprovalAnswer;
  try {
    answer = await untilAborted(Promise.resolve(handler(request)), scope.signal);
  } catch (error) {
    if (scope.signal.aborted) throw error;
    ticket.decide({
      approved: false,
      by: "handler",
      reason: `the approval handler failed (${messageOf(error)})`,
    });
    return;
  }
  if (answer === true || answer === "allow") ticket.decide({ approved: true, by: "handler" });
  else if (answer === false || answer === "deny") ticket.decide({ approved: false, by: "handler" });
  else if (answer !== "ask") {
    ticket.decide({ approved: false, by: "handler", reason: "the approval handler gave no decision" });
  } else {
    await untilAborted(Promise.race([ticket.decided, scope.turn.stream.detached()]), scope.signal);
    ticket.decide({
      approved: false,
      by: "default",
      reason: "the handler asked, but nobody reading the events decided",
    });
  }
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
