import type { Toolset } from "../tools/toolset.js";
import type { AnyTool, RunContext, ToolPolicy, ToolRenderer } from "../tools/types.js";
import type { FlowApproval } from "./flow-approval.js";
import { type Turn, TurnContext } from "./turn.js";
import type { ApprovalHandler, DispatchEvent, PersonPolicy, ResultObserver } from "./types.js";

/** The dispatcher's options with their defaults applied. */
export interface Settings {
  maxOutputChars: number;
  maxConcurrency: number;
  retries: number;
  timeout: number | undefined;
  retryDelay: number;
  approvalHandler: ApprovalHandler | undefined;
  approvalTimeoutMs: number;
  render: ToolRenderer | undefined;
  policies: readonly ToolPolicy[];
  /** Told of every successful call's value; replaced, never changed in place, when one is added or removed. */
  resultObservers: readonly ResultObserver[];
}

/**
 * Everything the calls of one `dispatch` share: the turn, the tools, the settings, the parent call (for
 * calls made from code) and the signal that cancels them.
 */
export class CallScope {
  readonly turn: Turn;
  readonly toolset: Toolset;
  readonly settings: Settings;
  readonly parentCallId: string | undefined;
  /** `{ parentCallId }` for nested calls, `{}` otherwise: spread into events. */
  readonly parentField: { parentCallId?: string };
  readonly signal: AbortSignal;
  /**
   * Tool invocations of this scope that have not settled yet. A timeout or a cancellation ends a call
   * at once, but the tool's own promise may go on (a tool that ignores its signal): it stays here until
   * it really settles.
   */
  readonly running = new Set<Promise<unknown>>();
  /**
   * Whether anyone can see this scope's events: an observer, or a consumer of the turn's stream. When
   * nobody can, the calls' progress events (requested, started, retrying, completed, failed) are not
   * made at all; approval events always are.
   */
  readonly listening: boolean;
  /**
   * Whether the scope keeps its call's raw value: only `runCall`'s scope of one call does, to hand it
   * on. Other scopes keep nothing, so a batch's handle does not hold a large value (or its JSON) alive.
   */
  readonly keepsValue: boolean;
  /**
   * The raw value of the call that succeeded in this scope (when {@link keepsValue}), kept even when its
   * rendered output was truncated and the result dropped the value: code that called the tool needs it.
   */
  value: unknown;
  /** That value as JSON text, when rendering it already made exactly that (see `RunCallOutcome`). */
  valueJson: string | undefined;
  /** How a call of this scope that needs a person is met without waiting (runCall's `person`). */
  readonly person: PersonPolicy | undefined;
  /** The idempotency key of runCall's one call, when its caller gave one; else each call's id is its key. */
  readonly idempotencyKey: string | undefined;
  /** The tool runCall's one call runs in place of the toolset's (`RunCallOptions.tool`). */
  readonly tool: AnyTool | undefined;
  /** Set when a flow policy sends runCall's one call to approval (runCall's `flow`). */
  readonly flow: FlowApproval | undefined;
  /** Set when this scope's call paused (see `RunCallOutcome.paused`). */
  paused: { kind: "approval" | "question" | "held"; args: unknown; flow?: FlowApproval } | undefined;
  /** Set when this scope's call gave its tool's preview instead of running (see `RunCallOutcome.previewed`). */
  previewed: { args: unknown } | undefined;
  readonly #observers: ((event: DispatchEvent) => void)[];

  constructor(init: {
    turn: Turn;
    toolset: Toolset;
    settings: Settings;
    parentCallId: string | undefined;
    signal: AbortSignal;
    /** Also told every event of this scope's calls (a nested dispatch's own stream, `onEvent`). */
    observers?: ((event: DispatchEvent) => void)[];
    /** See {@link CallScope.keepsValue}. */
    keepsValue?: boolean;
    /** See {@link CallScope.person}. */
    person?: PersonPolicy;
    /** See {@link CallScope.idempotencyKey}. */
    idempotencyKey?: string | undefined;
    /** See {@link CallScope.tool}. */
    tool?: AnyTool | undefined;
    /** See {@link CallScope.flow}. */
    flow?: FlowApproval | undefined;
  }) {
    this.turn = init.turn;
    this.toolset = init.toolset;
    this.settings = init.settings;
    this.parentCallId = init.parentCallId;
    this.parentField = init.parentCallId === undefined ? {} : { parentCallId: init.parentCallId };
    this.signal = init.signal;
    this.#observers = init.observers ?? [];
    this.keepsValue = init.keepsValue === true;
    this.person = init.person;
    this.idempotencyKey = init.idempotencyKey;
    this.tool = init.tool;
    this.flow = init.flow;
    this.listening = this.#observers.length > 0 || !init.turn.stream.unread;
  }

  /** Reports an event to the observers and on the turn's stream; returns its sequence number there. */
  emit(event: DispatchEvent): number {
    for (const observe of this.#observers) {
      try {
        observe(event);
      } catch {
        // An observer's failure must not change what happens to the call.
      }
    }
    return this.turn.stream.push(event);
  }

  /** Keeps `work` in {@link running} until it settles. */
  track(work: Promise<unknown>): void {
    this.running.add(work);
    const done = () => this.running.delete(work);
    work.then(done, done);
  }

  /** Resolves once every tool invocation started in this scope so far has settled. */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** A RunContext for one attempt of a call (attempt 0 for approval checks). */
  context(callId: string, toolName: string, attempt: number, signal: AbortSignal): RunContext {
    const idempotencyKey = this.idempotencyKey ?? callId;
    const call = { callId, toolName, parentCallId: this.parentCallId, attempt, idempotencyKey };
    return new TurnContext(this.turn, call, signal);
  }
}
