/**
 * The agent's side of the type check: a small pool of worker threads per tool set, fed from per-client
 * queues in fair turns (fair-queue.ts). One thread is started (and warmed) when the code mode is created;
 * more start only when checks of other clients would otherwise wait, up to the pool's size, and a check
 * goes to a thread once it is warm. A check that runs over its time budget is interrupted there by its
 * thread, which then checks the next one; a thread that cannot interrupt it is terminated soon after
 * the budget, and one that runs over the memory cap ends itself, and either is replaced. No check holds
 * a thread much longer than its budget, and the agent's event loop never waits on the compiler.
 */

import { type CheckerThread, startCheckerThread } from "./checker-thread.js";
import { FairQueue } from "./fair-queue.js";
import { TYPECHECK_IDLE_MS } from "./limits.js";
import { repairedToolNames } from "./name-repair.js";
import type { CheckerWorkerData, DeclaredNames, TypeCheckLimits, TypeCheckOutcome } from "./types.js";

export { CHECKER_YOUNG_GENERATION_MB } from "./checker-thread.js";

/** The client of checks that name none: they all share one queue. */
const DEFAULT_CHECK_CLIENT = "default";

/** What a checker is made for: one tool set, the typescript to load, and the limits of a check. */
export interface TypeCheckerSettings {
  typescriptPath: string;
  /** The declarations of `tools` as the checker reads them (see `toolDeclarations`' `forChecking`). */
  declarations: string;
  /** Identifier in code → real tool name. */
  toolNames: Readonly<Record<string, string>>;
  limits: TypeCheckLimits;
  /** The most worker threads checking at once (each client's checks go one at a time). */
  workers: number;
}

/** A check waiting for a thread. */
interface Waiting {
  code: string;
  session: DeclaredNames;
  resolve: (outcome: TypeCheckOutcome) => void;
  onTurn: (() => void) | undefined;
}

/** A thread of the pool. */
interface Slot {
  thread: CheckerThread;
  state: "warming" | "idle" | "checking";
  /** Ends the thread once it has been idle for TYPECHECK_IDLE_MS. */
  idleTimer: NodeJS.Timeout | undefined;
}

/** The type checker of one code mode. */
export class TypeChecker {
  readonly #settings: TypeCheckerSettings;
  readonly #workerData: Omit<CheckerWorkerData, "timeMs">;
  readonly #slots = new Set<Slot>();
  readonly #queue = new FairQueue<Waiting>();
  #nextId = 1;
  #closed = false;
  #started = 0;

  /** Starts one thread now: it loads TypeScript and parses the lib and the declarations while idle. */
  constructor(settings: TypeCheckerSettings) {
    this.#settings = settings;
    this.#workerData = {
      typescriptPath: settings.typescriptPath,
      declarations: settings.declarations,
      toolIdentifiers: Object.keys(settings.toolNames),
    };
    this.#startSlot();
  }

  /** How many worker threads are running (warming, idle or checking) now. */
  get threads(): number {
    return this.#slots.size;
  }

  /** How many worker threads were started in all (a thread that interrupted a check is not replaced). */
  get threadsStarted(): number {
    return this.#started;
  }

  /**
   * Checks the model's code (as prepared: fence taken out). `session` names what earlier runs left.
   * `client` names whose check it is: a client's checks go one at a time, and different clients' checks
   * take turns on the pool's threads. `onTurn` is told when the check leaves the queue for a thread.
   */
  check(
    code: string,
    session: DeclaredNames,
    client?: string,
    onTurn?: () => void,
  ): Promise<TypeCheckOutcome> {
    if (this.#closed) return Promise.resolve(closedOutcome());
    return new Promise((resolve) => {
      this.#queue.push(client ?? DEFAULT_CHECK_CLIENT, { code, session, resolve, onTurn });
      this.#serve();
    });
  }

  /** Ends the threads; checks waiting and later ones end `unchecked`. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const waiting of this.#queue.drain()) waiting.resolve(closedOutcome());
    const slots = [...this.#slots];
    this.#slots.clear();
    await Promise.all(
      slots.map((slot) => {
        clearTimeout(slot.idleTimer);
        return slot.thread.end();
      }),
    );
  }

  /**
   * Gives waiting checks to warm free threads, at most `workers` checking at once, and starts threads
   * for the clients still waiting, one per client up to the pool's size.
   */
  #serve(): void {
    if (this.#closed) return;
    const count = (state: Slot["state"]) => [...this.#slots].filter((slot) => slot.state === state).length;
    const { workers } = this.#settings;
    for (const slot of this.#slots) {
      if (slot.state !== "idle" || count("checking") >= workers) continue;
      const taken = this.#queue.take();
      if (taken === undefined) break;
      void this.#checkOn(slot, taken.client, taken.item);
    }
    const waiting = this.#queue.ready;
    const wanted = Math.min(waiting, workers - count("checking"));
    for (let coming = count("warming") + count("idle"); coming < wanted; coming++) this.#startSlot();
    // A check waiting for a thread to warm keeps the process alive, as one being checked does.
    for (const slot of this.#slots) if (slot.state === "warming") slot.thread.hold(waiting > 0);
  }

  async #checkOn(slot: Slot, client: string, waiting: Waiting): Promise<void> {
    slot.state = "checking";
    clearTimeout(slot.idleTimer);
    const { code, session, onTurn } = waiting;
    onTurn?.();
    const { aliases, repaired } = repairedToolNames(code, this.#settings.toolNames);
    const { answer, reusable } = await slot.thread.ask({ id: this.#nextId++, code, aliases, session });
    // A thread that interrupted a check at its budget goes on; one that failed, ran out of memory or
    // had to be cut off is ended.
    if (reusable) this.#idle(slot);
    else this.#discard(slot);
    this.#queue.done(client);
    waiting.resolve(answer.status === "checked" ? { ...answer, repaired } : answer);
    this.#serve();
  }

  #startSlot(): void {
    this.#started++;
    const slot: Slot = {
      thread: startCheckerThread(this.#workerData, this.#settings.limits),
      state: "warming",
      idleTimer: undefined,
    };
    this.#slots.add(slot);
    void slot.thread.ready.then((problem) => {
      if (!this.#slots.has(slot)) return;
      slot.thread.hold(false);
      if (problem === undefined) {
        this.#idle(slot);
        this.#serve();
        return;
      }
      // It could not start: the next check in turn is answered with why (as every check would be).
      this.#slots.delete(slot);
      void slot.thread.end();
      const taken = this.#queue.take();
      if (taken === undefined) return;
      this.#queue.done(taken.client);
      taken.item.resolve({ status: "unchecked", reason: "failed", message: problem });
      this.#serve();
    });
  }

  /**
   * A thread is free. Left idle for TYPECHECK_IDLE_MS it is ended: it holds TypeScript and the lib
   * (about 100 MB), and a code mode that is no longer used (an MCP catalog replaced by a newer one) must
   * not keep it. The next check starts a new one.
   */
  #idle(slot: Slot): void {
    slot.state = "idle";
    clearTimeout(slot.idleTimer);
    slot.idleTimer = setTimeout(() => {
      if (slot.state !== "idle" || !this.#slots.delete(slot)) return;
      void slot.thread.end();
    }, TYPECHECK_IDLE_MS);
    slot.idleTimer.unref();
  }

  /**
   * Ends a thread that was cut off or failed. When it was the last one, a new one starts warming in its
   * place at once, as at creation; waiting checks start theirs in #serve.
   */
  #discard(slot: Slot): void {
    clearTimeout(slot.idleTimer);
    this.#slots.delete(slot);
    void slot.thread.end();
    if (!this.#closed && this.#slots.size === 0) this.#startSlot();
  }
}

function closedOutcome(): TypeCheckOutcome {
  return { status: "unchecked", reason: "failed", message: "the code mode was closed" };
}
