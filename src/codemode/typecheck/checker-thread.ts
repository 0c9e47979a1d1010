/**
 * One checker worker thread as the agent's thread sees it: started (and warmed) at once, asked one check
 * at a time within the check's time budget. The thread interrupts a check at its budget itself and may be
 * asked again; one that has not answered soon after the budget (TYPECHECK_INTERRUPT_GRACE_MS), has
 * failed, or has run out of memory is not, and its owner (type-checker.ts) ends it.
 */

import type { Worker } from "node:worker_threads";
import { TYPECHECK_INTERRUPT_GRACE_MS, TYPECHECK_START_TIMEOUT_MS } from "./limits.js";
import type {
  CheckerWorkerData,
  CheckRequest,
  TypeCheckLimits,
  TypeCheckOutcome,
  WorkerReply,
} from "./types.js";
import { startCheckerWorker } from "./worker-script.js";

/**
 * The checker's young generation, in MB: each check allocates a new program's worth of short-lived
 * objects, and a roomier nursery collects them less often (bench/typecheck.ts: p50 about 2 ms lower).
 */
export const CHECKER_YOUNG_GENERATION_MB = 64;

/** A check's outcome as the worker gives it: without the repaired names, which the agent's side finds. */
type ThreadAnswer =
  | Exclude<TypeCheckOutcome, { status: "checked" }>
  | Omit<Extract<TypeCheckOutcome, { status: "checked" }>, "repaired">;

/** How one check on a thread ended, and whether the thread may check again. */
interface ThreadOutcome {
  answer: ThreadAnswer;
  /** False after a failure, a memory or start problem, or a check the thread did not interrupt itself. */
  reusable: boolean;
}

/** One started checker thread. */
export interface CheckerThread {
  /** Resolves once the thread is warm; resolves to an error message when it could not start. */
  readonly ready: Promise<string | undefined>;
  /** Checks one request (after `ready`); answers at the latest shortly after the budget runs out. */
  ask(request: CheckRequest): Promise<ThreadOutcome>;
  /** Whether the thread keeps the process alive while it warms (a check waits for it). */
  hold(on: boolean): void;
  /** Ends the thread (a check in flight is answered `unchecked`). */
  end(): Promise<void>;
}

/** Starts a checker thread for `workerData`, with the heap and time `limits` of a check. */
export function startCheckerThread(
  data: Omit<CheckerWorkerData, "timeMs">,
  limits: TypeCheckLimits,
): CheckerThread {
  const workerData: CheckerWorkerData = { ...data, timeMs: limits.timeMs };
  let worker: Worker;
  try {
    worker = startCheckerWorker({
      workerData,
      resourceLimits: {
        maxOldGenerationSizeMb: limits.memoryMb,
        maxYoungGenerationSizeMb: CHECKER_YOUNG_GENERATION_MB,
      },
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      ready: Promise.resolve(message),
      ask: async () => ({ answer: { status: "unchecked", reason: "failed", message }, reusable: false }),
      hold: () => {},
      end: async () => {},
    };
  }
  // Warming must not keep the process alive; a check in flight, or one waiting for it, does.
  worker.unref();
  let asking = false;
  let held = false;
  const refer = () => (asking || held ? worker.ref() : worker.unref());
  let onReply: ((reply: WorkerReply) => void) | undefined;
  let onEnd: ((reason: "memory" | "failed", message: string) => void) | undefined;
  let ended: { reason: "memory" | "failed"; message: string } | undefined;
  const ready = new Promise<string | undefined>((resolve) => {
    const timer = setTimeout(
      () => resolve(`the checker did not start within ${TYPECHECK_START_TIMEOUT_MS} ms`),
      TYPECHECK_START_TIMEOUT_MS,
    );
    timer.unref();
    worker.on("message", (reply: WorkerReply) => {
      if (reply.type === "ready" || reply.type === "startFailed") {
        clearTimeout(timer);
        resolve(reply.type === "ready" ? undefined : `the checker could not start: ${reply.message}`);
      } else onReply?.(reply);
    });
    const end = (reason: "memory" | "failed", message: string) => {
      clearTimeout(timer);
      ended ??= { reason, message };
      resolve(`the checker stopped: ${message}`);
      onEnd?.(reason, message);
    };
    worker.on("error", (error: Error & { code?: string }) =>
      end(error.code === "ERR_WORKER_OUT_OF_MEMORY" ? "memory" : "failed", error.message),
    );
    worker.on("exit", (code) => end("failed", `it exited with code ${code}`));
  });

  const endedAnswer = (reason: "memory" | "failed", message: string): ThreadAnswer => ({
    status: "unchecked",
    reason,
    message:
      reason === "memory"
        ? `the type check needed more than its memory cap of ${limits.memoryMb} MB and was stopped`
        : `the checker stopped: ${message}`,
  });

  const overBudget: ThreadAnswer = {
    status: "unchecked",
    reason: "time",
    message: `the type check took longer than its budget of ${limits.timeMs} ms and was stopped`,
  };

  /** Sends one request to the warm thread and waits for its reply, the budget's end, or the thread's end. */
  const send = (request: CheckRequest): Promise<ThreadOutcome> =>
    new Promise<ThreadOutcome>((resolve) => {
      // The thread interrupts the check at the budget; this is for a check it could not interrupt.
      const timer = setTimeout(() => settle(overBudget, false), limits.timeMs + TYPECHECK_INTERRUPT_GRACE_MS);
      const settle = (answer: ThreadAnswer, reusable: boolean) => {
        clearTimeout(timer);
        onReply = undefined;
        onEnd = undefined;
        resolve({ answer, reusable });
      };
      onReply = (reply) => {
        if (!("id" in reply) || reply.id !== request.id) return;
        if (reply.type === "checked") {
          const { diagnostics, errorCount, declared } = reply;
          settle({ status: "checked", diagnostics, errorCount, declared }, true);
        } else if (reply.type === "interrupted") {
          settle(overBudget, reply.sound);
        } else if (reply.type === "failed") {
          settle(
            { status: "unchecked", reason: "failed", message: `the checker failed: ${reply.message}` },
            false,
          );
        }
      };
      onEnd = (reason, message) => settle(endedAnswer(reason, message), false);
      if (ended) settle(endedAnswer(ended.reason, ended.message), false);
      else worker.postMessage(request);
    });

  const ask = async (request: CheckRequest): Promise<ThreadOutcome> => {
    asking = true;
    refer();
    try {
      const startProblem = await ready;
      if (startProblem !== undefined) {
        return { answer: { status: "unchecked", reason: "failed", message: startProblem }, reusable: false };
      }
      return await send(request);
    } finally {
      asking = false;
      refer();
    }
  };

  return {
    ready,
    ask,
    hold: (on) => {
      held = on;
      refer();
    },
    end: async () => {
      await worker.terminate();
    },
  };
}
