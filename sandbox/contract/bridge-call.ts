/**
 * One tool call of a run, made through the run's {@link SandboxBridge} with the run's clock stopped
 * while the call waits for a person. The isolate engine makes its calls this way, and so does cordon's
 * end of the wire for calls that arrive from a sandbox host.
 */

import { isPromiseLike } from "../../common/promise-like.js";
import type { BridgeCallOutcome, SandboxBridge } from "./environment.js";

/** A clock a run's calls stop while they wait for a person (see `PausableDeadline`). */
export interface PausableClock {
  pause(): void;
  resume(): void;
}

/** What a call needs to know of its run, shared by every call of the run. */
export interface CallingRun {
  /** The run's clock; undefined when it has none. */
  readonly clock: PausableClock | undefined;
  /** True once the run is over: a call that stops waiting after that moves no clock. */
  readonly over: boolean;
  /** Also told when one call starts (`true`) or stops waiting for a person. */
  onWaiting?(call: number, waiting: boolean): void;
}

/**
 * Calls `name` through `bridge`. While the call waits for a person the run's clock is paused (once
 * per call, however often the bridge says so). `deliver` gets the outcome and its value is returned:
 * at once when the bridge has the outcome at once (a synchronous tool), else in one reaction, since a
 * call from code is on the path of every sequential step. A bridge that throws or rejects becomes a
 * failed call. Never throws or rejects.
 */
export function callThroughBridge<T>(
  bridge: Pick<SandboxBridge, "callTool">,
  run: CallingRun,
  call: { id: number; name: string; argsJson: string; requested: string | undefined },
  deliver: (outcome: BridgeCallOutcome) => T,
): T | Promise<T> {
  let paused = false;
  const waiting = (now: boolean) => {
    if (now === paused || run.over) return;
    paused = now;
    run.onWaiting?.(call.id, now);
    if (now) run.clock?.pause();
    else run.clock?.resume();
  };
  const done = (outcome: BridgeCallOutcome) => {
    waiting(false);
    return deliver(outcome);
  };
  const failed = (error: unknown) =>
    done(
      callFailure(
        call.name,
        "error",
        `The tool call failed in the host: ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
  let work: BridgeCallOutcome | Promise<BridgeCallOutcome>;
  try {
    work = bridge.callTool(call.name, call.argsJson, waiting, call.requested);
  } catch (error) {
    return failed(error);
  }
  return isPromiseLike(work) ? work.then(done, failed) : done(work);
}

/** The outcome of a call that failed before or outside its tool: `kind` says how (`limit`, `unknown_tool`, ...). */
export function callFailure(tool: string, kind: string, message: string): BridgeCallOutcome {
  return { ok: false, error: { tool, kind, message } };
}
