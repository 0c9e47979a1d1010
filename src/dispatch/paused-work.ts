/**
 * Work that paused for a person instead of waiting (code mode's run_code with `approval: "pause"`), as
 * a call's failure carries it: plain JSON a host can store and resume from later, anywhere; and the
 * error a tool throws to say its work paused.
 */

import type { FlowApproval } from "./flow-approval.js";

/** A call that waits for a person, in work that paused (see `CodeRunResult.pending`). */
export interface PendingCall {
  /** The call's id: the key of its decision or answer when the work is resumed. */
  id: string;
  /** The real tool name. */
  tool: string;
  /** Its arguments as validated: what the person should see before deciding. */
  args: unknown;
  /**
   * `approval`: the call needs to be approved or denied. `question`: a tool asks the person (`ask_human`).
   * `unknown-outcome`: a durable run's process died while the call ran, and its tool is not idempotent:
   * whether it took effect is not known, and a person says whether to run it again, treat it as failed,
   * or what its result was (see `cm.recover`).
   */
  kind: "approval" | "question" | "unknown-outcome";
  /** For an `unknown-outcome` call: the key it ran with (`ctx.idempotencyKey`), to look it up by. */
  idempotencyKey?: string;
  /**
   * For an `approval` a flow policy asked for (code mode's `flows`): why, and which arguments hold
   * labelled data (show them with `approvalLines(args, { marks: flow.marks })`).
   */
  flow?: FlowApproval;
}

/** An effect a plan lists (`CodeRunResult.effects`): the call that would have run, not run. */
export interface PlannedEffect {
  /** The call's id: the key of its decision when the plan is carried out (`cm.resume`). */
  id: string;
  /** The real tool name. */
  tool: string;
  /** Its arguments as validated: what the person approves. */
  args: unknown;
}

/** Work that paused for a person: the sealed checkpoint that resumes it, and the calls that wait. */
export interface PausedWork {
  checkpoint: string;
  /** The checkpoint's unique id. */
  checkpointId: string;
  /** The calls that wait for a person; for a plan, its effects first, each as an `approval`. */
  pending: PendingCall[];
  /** For a plan (code mode's `plan: true`): its effects, none run (each is in `pending` too). */
  effects?: PlannedEffect[];
}

/**
 * Thrown by a tool whose work paused for a person instead of waiting (code mode's run_code with
 * `approval: "pause"`): the call fails with kind `paused`, is never retried, and its failure carries
 * `paused`, with which the work is resumed later.
 */
export class ToolPaused extends Error {
  override name = "ToolPaused";
  readonly paused: PausedWork;

  constructor(message: string, paused: PausedWork) {
    super(message);
    this.paused = paused;
  }
}
