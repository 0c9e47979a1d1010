/**
 * The agent's side of the type check: one worker thread per tool set, started (and warmed) when the code
 * mode is created, fed one check at a time. A check that runs over its time budget is cut off by
 * terminating the worker; one that runs over the memory cap ends the worker itself. Either way a new
 * worker starts warming at once, and the agent's event loop never waits on the compiler.
 */

import type { Worker } from "node:worker_threads";
import { TYPECHECK_IDLE_MS, TYPECHECK_START_TIMEOUT_MS } from "./limits.js";
import { repairedToolNames } from "./name-repair.js";
import type {
  CheckerWorkerData,
  CheckRequest,
  DeclaredNames,
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

/** What a checker is made for: one tool set, the typescript to load, and the limits of a check. */
export interface TypeCheckerSettings {
  typescriptPath: string;
  /** The declarations of `tools` as the checker reads them (see `toolDeclarations`' `forChecking`). */
  declarations: string;
  /** Identifier in code → real tool name. */
  toolNames: Readonly<Record<string, string>>;
  limits: TypeCheckLimits;
}

/** One started worker and the promise that it is warm. */
interface Started {
  /** Undefined when the worker could not even be created (its start problem is in `ready`). */
  worker: Worker | undefined;
  /** Resolves once the worker is ready; resolves to an error message when it could not start. */
  ready: Promise<string | undefined>;
  /** The reply handler of the check in flight, if any. */
  onReply: ((reply: WorkerReply) => void) | undefined;
  /** Told when the worker ends: by an error (its memory cap), or an exit. */
  onEnd: ((reason: "memory" | "failed", message: string) => void) | undefined;
}

/** A check's outcome as the worker gives it: without the repaired names, which this side finds. */
type Answer =
  | Exclude<TypeCheckOutcome, { status: "checked" }>
  | Omit<Extract<TypeCheckOutcome, { status: "checked" }>, "repaired">;

/** The type checker of one code mode. */
export class TypeChecker {
  readonly #settings: TypeCheckerSettings;
  #current: Started | undefined;
  /** Checks go one at a time: each one's budget is its own, not the wait before it. */
  #queue: Promise<unknown> = Promise.resolve();
  #nextId = 1;
  #closed = false;
  /** Checks asked for and not yet answered. */
  #waiting = 0;
  /** Ends an idle worker (see TYPECHECK_IDLE_MS). */
  #idleTimer: NodeJS.Timeout | undefined;

  /** Starts the worker now: it loads TypeScript and parses the lib and the declarations while idle. */
  constructor(settings: TypeCheckerSettings) {
    this.#settings = settings;
    this.#current = this.#start();
    this.#idleLater();
  }

  /** Checks the model's code (as prepared: fence taken out). `session` names what earlier runs left. */
  check(code: string, session: DeclaredNames): Promise<TypeCheckOutcome> {
    this.#waiting++;
    clearTimeout(this.#idleTimer);
    const next = this.#queue.then(() => this.#checkNow(code, session));
    this.#queue = next.catch(() => {});
    return next.finally(() => {
      if (--this.#waiting === 0) this.#idleLater();
    });
  }

  /** Ends the worker; later checks end `unchecked`. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#idleTimer);
    const current = this.#current;
    this.#current = undefined;
    await current?.worker?.terminate();
  }

  /**
   * A worker left idle for TYPECHECK_IDLE_MS is ended: it holds TypeScript and the lib (about 100 MB),
   * and a code mode that is no longer used (an MCP catalog replaced by a newer one) must not keep it.
   * The next check starts a new one.
   */
  #idleLater(): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => {
      if (this.#waiting > 0 || this.#current === undefined) return;
      const idle = this.#current;
      this.#current = undefined;
      void idle.worker?.terminate();
    }, TYPECHECK_IDLE_MS);
    this.#idleTimer.unref();
  }

  #start(): Started {
    const { typescriptPath, declarations, toolNames, limits } = this.#settings;
    const workerData: CheckerWorkerData = {
      typescriptPath,
      declarations,
      toolIdentifiers: Object.keys(toolNames),
    };
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
      return { worker: undefined, ready: Promise.resolve(message), onReply: undefined, onEnd: undefined };
    }
    // Warming must not keep the process alive; a check in flight does (see #checkNow).
    worker.unref();
    const started: Started = {
      worker,
      ready: Promise.resolve(undefined),
      onReply: undefined,
      onEnd: undefined,
    };
    started.ready = new Promise<string | undefined>((resolve) => {
      const timer = setTimeout(
        () => resolve(`the checker did not start within ${TYPECHECK_START_TIMEOUT_MS} ms`),
        TYPECHECK_START_TIMEOUT_MS,
      );
      timer.unref();
      worker.on("message", (reply: WorkerReply) => {
        if (reply.type === "ready" || reply.type === "startFailed") {
          clearTimeout(timer);
          resolve(reply.type === "ready" ? undefined : `the checker could not start: ${reply.message}`);
        } else started.onReply?.(reply);
      });
      const end = (reason: "memory" | "failed", message: string) => {
        clearTimeout(timer);
        resolve(`the checker stopped: ${message}`);
        started.onEnd?.(reason, message);
        if (this.#current === started) this.#current = undefined;
      };
      worker.on("error", (error: Error & { code?: string }) =>
        end(error.code === "ERR_WORKER_OUT_OF_MEMORY" ? "memory" : "failed", error.message),
      );
      worker.on("exit", (code) => end("failed", `it exited with code ${code}`));
    });
    return started;
  }

  async #checkNow(code: string, session: DeclaredNames): Promise<TypeCheckOutcome> {
    if (this.#closed) return { status: "unchecked", reason: "failed", message: "the code mode was closed" };
    this.#current ??= this.#start();
    const started = this.#current;
    const { aliases, repaired } = repairedToolNames(code, this.#settings.toolNames);
    started.worker?.ref();
    try {
      const startProblem = await started.ready;
      if (startProblem !== undefined) {
        this.#discard(started);
        return { status: "unchecked", reason: "failed", message: startProblem };
      }
      const request: CheckRequest = { id: this.#nextId++, code, aliases, session };
      const outcome = await this.#ask(started, request);
      if (outcome.status === "checked") return { ...outcome, repaired };
      this.#discard(started);
      return outcome;
    } finally {
      started.worker?.unref();
    }
  }

  /** Sends one request and waits for its reply, the budget, or the worker's end. */
  #ask(started: Started, request: CheckRequest): Promise<Answer> {
    const { timeMs, memoryMb } = this.#settings.limits;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        resolve({
          status: "unchecked",
          reason: "time",
          message: `the type check took longer than its budget of ${timeMs} ms and was stopped`,
        });
      }, timeMs);
      const done = () => {
        clearTimeout(timer);
        started.onReply = undefined;
        started.onEnd = undefined;
      };
      started.onReply = (reply) => {
        if (reply.type === "checked" && reply.id === request.id) {
          done();
          resolve({
            status: "checked",
            diagnostics: reply.diagnostics,
            errorCount: reply.errorCount,
            declared: reply.declared,
          });
        } else if (reply.type === "failed" && reply.id === request.id) {
          done();
          resolve({ status: "unchecked", reason: "failed", message: `the checker failed: ${reply.message}` });
        }
      };
      started.onEnd = (reason, message) => {
        done();
        resolve({
          status: "unchecked",
          reason,
          message:
            reason === "memory"
              ? `the type check needed more than its memory cap of ${memoryMb} MB and was stopped`
              : `the checker stopped: ${message}`,
        });
      };
      started.worker?.postMessage(request);
    });
  }

  /** Ends a worker that was cut off or failed, and starts warming a new one in its place. */
  #discard(started: Started): void {
    if (this.#current === started) this.#current = undefined;
    started.onReply = undefined;
    started.onEnd = undefined;
    void started.worker?.terminate();
    if (!this.#closed) this.#current = this.#start();
  }
}
