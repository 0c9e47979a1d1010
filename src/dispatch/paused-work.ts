/**
 * Work that paused for a person instead of waiting (code mode's run_code with `approval: "pause"`), as
 * a call's failure carries it: plain JSON a host can store and resume from later, anywhere.
 */

/** A call that waits for a person, in work that paused (see `CodeRunResult.pending`). */
export interface PendingCall {
  /** The call's id: the key of its decision or answer when the work is resumed. */
  id: string;
  /** The real tool name. */
  tool: string;
  /** Its arguments as validated: what the person should see before deciding. */
  args: unknown;
  /** `approval`: the call needs to be approved or denied. `question`: a tool asks the person (`ask_human`). */
  kind: "approval" | "question";
}

/** Work that paused for a person: the sealed checkpoint that resumes it, and the calls that wait. */
export interface PausedWork {
  checkpoint: string;
  /** The checkpoint's unique id. */
  checkpointId: string;
  pending: PendingCall[];
}
