import { setMaxListeners } from "node:events";
import { BudgetExceeded, RunCancelled } from "../../common/errors.js";
import type { Budget } from "../tools/budget.js";
import type { RunContext, Session } from "../tools/types.js";
import { ApprovalBoard } from "./approvals.js";
import { EventStream } from "./event-stream.js";
import type { TurnTrace } from "./tracing/tracing.js";
import type { ApprovalHandler, DispatchEvent } from "./types.js";

/** Why a turn stopped before all its calls ran. */
export type StopReason = RunCancelled | BudgetExceeded;

/**
 * What the calls of one root dispatch share, nested calls from code included: the event stream the
 * consumer reads, the approval board, the budget, the session, and cancellation.
 */
export class Turn {
  readonly runId: string;
  readonly stream: EventStream<DispatchEvent>;
  readonly board = new ApprovalBoard();
  readonly budget: Budget;
  readonly session: Session | undefined;
  readonly deps: unknown;
  /** The root dispatcher's approval handler: nested calls fall back to it when their dispatcher has none. */
  readonly approvalHandler: ApprovalHandler | undefined;
  /** The turn's spans, when its dispatcher traces and the turn's span records. */
  trace: TurnTrace | undefined;
  readonly #controller = new AbortController();
  #stopReason: StopReason | undefined;
  #detach: () => void = () => {};

  constructor(init: {
    runId: string;
    budget: Budget;
    session: Session | undefined;
    deps: unknown;
    approvalHandler: ApprovalHandler | undefined;
    signal: AbortSignal | undefined;
    onFirstRead: () => void;
    /** Nobody can read the turn's events (a run opened without a handle): they are not kept. */
    unread?: boolean;
  }) {
    this.runId = init.runId;
    this.budget = init.budget;
    this.session = init.session;
    this.deps = init.deps;
    this.approvalHandler = init.approvalHandler;
    this.stream = new EventStream(init.onFirstRead, { unread: init.unread });
    // Every call in flight listens for cancellation; a turn of hundreds of calls is not a leak.
    setMaxListeners(0, this.#controller.signal);
    const signal = init.signal;
    if (signal) {
      const onAbort = () => this.stop(new RunCancelled(cancelMessage(signal.reason)));
      if (signal.aborted) onAbort();
      else {
        signal.addEventListener("abort", onAbort, { once: true });
        this.#detach = () => signal.removeEventListener("abort", onAbort);
      }
    }
  }

  /**
   * Ends the turn once every call has finished: it stops listening to the caller's signal, and fires the
   * turn's own, so whatever a tool left running sees its `ctx.signal` abort and a nested dispatch made
   * later with a context of this turn runs nothing.
   */
  finish(): void {
    this.#detach();
    if (!this.#controller.signal.aborted)
      this.#controller.abort(new Error("The turn this call belongs to has ended."));
  }

  /** Aborts when the turn is cancelled. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Set once the turn has been told to stop. */
  get stopReason(): StopReason | undefined {
    return this.#stopReason;
  }

  /**
   * Stops the turn: no further call starts. Cancellation also aborts every call in flight; an
   * exhausted budget lets them finish (the next safe point is the end of the calls already running).
   */
  stop(reason: StopReason): void {
    if (this.#stopReason instanceof RunCancelled) return;
    this.#stopReason = reason;
    if (reason instanceof RunCancelled) this.#controller.abort(reason);
  }

  /** Whether an error from a tool is this turn's own budget running out. */
  ownsBudgetError(error: unknown): error is BudgetExceeded {
    return error instanceof BudgetExceeded && error.budget === this.budget;
  }
}

function cancelMessage(reason: unknown): string {
  if (reason instanceof RunCancelled) return reason.message;
  if (reason instanceof Error && reason.name !== "AbortError")
    return `The run was cancelled: ${reason.message}`;
  if (typeof reason === "string") return `The run was cancelled: ${reason}`;
  return "The run was cancelled.";
}

/**
 * A RunContext the dispatcher made for one attempt of a call: it knows its turn itself, so that code can
 * dispatch nested calls with it, without an entry in a weak map for every attempt.
 */
export class TurnContext implements RunContext {
  readonly runId: string;
  readonly callId: string;
  readonly toolName: string;
  readonly signal: AbortSignal;
  readonly deps: unknown;
  readonly session: Session | undefined;
  readonly budget: Budget;
  readonly parentCallId: string | undefined;
  readonly attempt: number;
  readonly idempotencyKey: string;
  readonly #turn: Turn;

  constructor(
    turn: Turn,
    call: {
      callId: string;
      toolName: string;
      parentCallId: string | undefined;
      attempt: number;
      idempotencyKey: string;
    },
    signal: AbortSignal,
  ) {
    this.runId = turn.runId;
    this.callId = call.callId;
    this.toolName = call.toolName;
    this.signal = signal;
    this.deps = turn.deps;
    this.session = turn.session;
    this.budget = turn.budget;
    this.parentCallId = call.parentCallId;
    this.attempt = call.attempt;
    this.idempotencyKey = call.idempotencyKey;
    this.#turn = turn;
  }

  /** The turn of a context made by the dispatcher, or undefined. */
  static turnOf(ctx: RunContext): Turn | undefined {
    return #turn in ctx ? (ctx as TurnContext).#turn : undefined;
  }
}

/** Links other contexts (a run's, made by spreading another) to their turn. */
const turnsByContext = new WeakMap<RunContext, Turn>();

/** Records which turn a context belongs to. */
export function linkContext(ctx: RunContext, turn: Turn): void {
  turnsByContext.set(ctx, turn);
}

/** The turn a context belongs to, when the dispatcher made it. */
export function turnOf(ctx: RunContext): Turn | undefined {
  if (typeof ctx !== "object" || ctx === null) return undefined;
  return TurnContext.turnOf(ctx) ?? turnsByContext.get(ctx);
}
