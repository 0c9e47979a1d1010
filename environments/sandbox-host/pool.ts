/**
 * The supervisor's pool of sandbox-host processes, and where each sandbox is placed. It keeps `size`
 * processes running, starts more (up to `max`) when no running one may take a sandbox, retires the
 * extra ones once they are idle, and replaces a process that dies. A process that cannot start is
 * retried with a growing pause, and callers learn why it failed instead of waiting.
 *
 * The placement policy keeps neighbours apart. A process hosts the sandboxes of one tenant at a time
 * (a session, a sandbox server's client) unless the pool may share; the heap limits of the sandboxes
 * placed on a process add up to at most its memory budget, so that runs each within their own limit
 * cannot together push the process over its own; and a sandbox may ask to run alone. A sandbox counts
 * against its process from the moment it is placed, before its process has heard of it.
 */

import { closedEnding } from "../wire/endings.js";
import { type HostProcessSettings, SandboxHostProcess } from "./host-process.js";

/** The longest pause between attempts to start a process that keeps failing, in ms. */
const MAX_RESTART_DELAY_MS = 30_000;

/** How long `close()` waits for a killed process to be gone, in ms. */
const EXIT_WAIT_MS = 2_000;

/** How many processes the pool keeps, may have, and how it places sandboxes on them. */
export interface PoolPolicy {
  /** Processes kept running, ready for sandboxes. */
  size: number;
  /** Processes at most, the ones started for tenants that could not share included. */
  max: number;
  /** Sandboxes of different tenants may share a process. */
  share: boolean;
  /** What the heap limits of the sandboxes placed on one process may add up to, in MB. */
  budgetMb: number;
  /** How long a sandbox may wait for a place before its opening fails, in ms. */
  waitMs: number;
  /** A process beyond `size` that has hosted nothing for this long is retired, in ms. */
  idleMs: number;
}

/** What a sandbox asks of the process it is placed on. */
export interface Placement {
  /** Whose sandbox it is (see `OpenOptions.tenant`); undefined is one tenant too. */
  tenant: string | undefined;
  /** Its heap limit, in MB. */
  memoryMb: number;
  /** It runs alone in its process (a run tried again after a neighbour crashed the one it was in). */
  alone?: boolean;
  /**
   * It would take the process's lane (see `sandbox/program/lane.ts`): placed on an empty process, it
   * gets the process to itself and the lane with it, as long as one process stays free of lanes for the
   * sandboxes that share; placed elsewhere, it shares as any other.
   */
  lane?: boolean;
}

/** A sandbox's place in a process, held from placement until released (once; later calls do nothing). */
export interface Seat {
  process: SandboxHostProcess;
  /** The sandbox has the process to itself and may use its lane. */
  lane: boolean;
  release(): void;
}

/** Who is placed on a process now. */
interface Occupancy {
  tenant: string | undefined;
  sandboxes: number;
  committedMb: number;
  alone: boolean;
  /** Its one sandbox has the process's lane. */
  lane: boolean;
  idleTimer: NodeJS.Timeout | undefined;
}

/** Keeps sandbox-host processes ready, and places sandboxes on them. */
export class ProcessPool {
  readonly #settings: HostProcessSettings;
  readonly #policy: PoolPolicy;
  readonly #processes = new Map<SandboxHostProcess, Occupancy>();
  /** Callers waiting for a place: woken whenever a place may have opened. */
  readonly #waiting = new Set<() => void>();
  #failures = 0;
  #lastFailure: Error | undefined;
  #restartTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(settings: HostProcessSettings, policy: PoolPolicy) {
    this.#settings = settings;
    this.#policy = policy;
  }

  /** The processes alive now (starting, ready or retiring). */
  get processes(): readonly SandboxHostProcess[] {
    return [...this.#processes.keys()];
  }

  /**
   * A place for a sandbox: on the least busy ready process that may take it, else on a process started
   * for it (up to `max`), else once one frees up. Rejects with the reason when no process could be
   * started, or when no place opened within `waitMs`.
   */
  async place(placement: Placement): Promise<Seat> {
    const deadline = performance.now() + this.#policy.waitMs;
    for (;;) {
      if (this.#closed) throw new Error("This sandbox environment was closed; create a new one.");
      this.#fill();
      const seat = this.#seat(placement);
      if (seat) return seat;
      const starting = [...this.#processes.keys()].filter((process) => process.state === "starting");
      if (starting.length === 0 && this.#live() < this.#policy.max && !this.#restartTimer) {
        starting.push(this.#start());
      }
      if (starting.length === 0 && this.#live() === 0) {
        throw this.#lastFailure ?? new Error("No sandbox process could be started.");
      }
      const left = deadline - performance.now();
      if (left <= 0) throw this.#noPlace(placement);
      await this.#wait(starting, left);
    }
  }

  /** Starts processes until `size` are starting or ready, ahead of the first placement. */
  warm(): void {
    this.#fill();
  }

  /** Kills every process (their runs end as cancelled) and starts no more. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#restartTimer);
    const processes = [...this.#processes.keys()];
    for (const occupancy of this.#processes.values()) clearTimeout(occupancy.idleTimer);
    for (const process of processes) process.kill(closedEnding());
    this.#wake();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(processes.map((process) => process.exited)),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, EXIT_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
  }

  /**
   * A seat on the least busy ready process that may take the placement, or undefined. Busy counts the
   * sandboxes placed on a process, including those placed a moment ago that it has not heard of yet.
   */
  #seat(placement: Placement): Seat | undefined {
    let best: [SandboxHostProcess, Occupancy] | undefined;
    const busier = (a: [SandboxHostProcess, Occupancy], b: [SandboxHostProcess, Occupancy]) =>
      a[1].sandboxes - b[1].sandboxes || a[0].load - b[0].load;
    for (const entry of this.#processes) {
      if (this.#fits(entry[0], entry[1], placement) && (!best || busier(entry, best) < 0)) best = entry;
    }
    if (!best) return undefined;
    const [process, occupancy] = best;
    const lane = placement.lane === true && occupancy.sandboxes === 0 && this.#lanes() < this.#policy.max - 1;
    clearTimeout(occupancy.idleTimer);
    occupancy.idleTimer = undefined;
    occupancy.tenant = placement.tenant;
    occupancy.alone = placement.alone === true || lane;
    occupancy.lane = lane;
    occupancy.sandboxes++;
    occupancy.committedMb += placement.memoryMb;
    let released = false;
    return {
      process,
      lane,
      release: () => {
        if (released) return;
        released = true;
        this.#release(process, placement.memoryMb);
      },
    };
  }

  #fits(process: SandboxHostProcess, occupancy: Occupancy, placement: Placement): boolean {
    if (process.state !== "ready") return false;
    // An empty process takes any sandbox, even one whose heap limit alone is over the budget.
    if (occupancy.sandboxes === 0) return true;
    if (occupancy.alone || placement.alone) return false;
    if (!this.#policy.share && occupancy.tenant !== placement.tenant) return false;
    return occupancy.committedMb + placement.memoryMb <= this.#policy.budgetMb;
  }

  #release(process: SandboxHostProcess, memoryMb: number): void {
    const occupancy = this.#processes.get(process);
    if (occupancy) {
      occupancy.sandboxes--;
      occupancy.committedMb -= memoryMb;
      if (occupancy.sandboxes === 0) {
        occupancy.tenant = undefined;
        occupancy.alone = false;
        occupancy.lane = false;
        occupancy.committedMb = 0;
        this.#retireWhenIdle(process, occupancy);
      }
    }
    this.#wake();
  }

  /** A process beyond the pool's size that stays empty for `idleMs` is retired. */
  #retireWhenIdle(process: SandboxHostProcess, occupancy: Occupancy): void {
    if (this.#live() <= this.#policy.size) return;
    occupancy.idleTimer = setTimeout(() => {
      occupancy.idleTimer = undefined;
      if (occupancy.sandboxes === 0 && this.#live() > this.#policy.size) process.retire();
    }, this.#policy.idleMs);
    occupancy.idleTimer.unref();
  }

  #noPlace(placement: Placement): Error {
    const busy = [...this.#processes.values()].filter((occupancy) => occupancy.sandboxes > 0).length;
    const why = this.#policy.share
      ? "their memory budgets are taken"
      : "they host other tenants' sandboxes, or their memory budgets are taken";
    return new Error(
      `No sandbox process could take this run within ${this.#policy.waitMs} ms: ${busy} of at most ${this.#policy.max} processes are busy and ${why}${placement.alone ? " (the run needed one to itself)" : ""}. Try again shortly.`,
    );
  }

  /** Resolves when a place may have opened: a process started or failed, a seat was released, or `ms` passed. */
  #wait(starting: readonly SandboxHostProcess[], ms: number): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        this.#waiting.delete(done);
        resolve();
      };
      timer = setTimeout(done, ms);
      this.#waiting.add(done);
      for (const process of starting) process.started.then(done, done);
    });
  }

  #wake(): void {
    for (const wake of [...this.#waiting]) wake();
  }

  /** Processes whose sandbox has their lane. */
  #lanes(): number {
    let lanes = 0;
    for (const occupancy of this.#processes.values()) if (occupancy.lane) lanes++;
    return lanes;
  }

  /** Processes starting or ready: the ones that count toward `size` and `max`. */
  #live(): number {
    let live = 0;
    for (const process of this.#processes.keys())
      if (process.state === "starting" || process.state === "ready") live++;
    return live;
  }

  /** Starts processes until `size` are starting or ready, unless a pause after failures is running. */
  #fill(): void {
    if (this.#closed || this.#restartTimer) return;
    for (let live = this.#live(); live < this.#policy.size; live++) this.#start();
  }

  #start(): SandboxHostProcess {
    const process = new SandboxHostProcess(this.#settings, (changed) => this.#changed(changed));
    this.#processes.set(process, {
      tenant: undefined,
      sandboxes: 0,
      committedMb: 0,
      alone: false,
      lane: false,
      idleTimer: undefined,
    });
    process.started.then(
      () => {
        this.#failures = 0;
      },
      (error: Error) => {
        this.#lastFailure = error;
      },
    );
    return process;
  }

  #changed(process: SandboxHostProcess): void {
    if (process.state === "dead") {
      clearTimeout(this.#processes.get(process)?.idleTimer);
      this.#processes.delete(process);
      if (!process.wasReady) this.#failures++;
    }
    this.#wake();
    if (this.#closed || process.state === "ready" || process.state === "starting") return;
    if (this.#failures === 0) {
      this.#fill();
      return;
    }
    // Starting keeps failing: try again after a pause that grows, so a broken install does not spin.
    if (this.#restartTimer) return;
    const delay = Math.min(MAX_RESTART_DELAY_MS, 250 * 2 ** (this.#failures - 1));
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = undefined;
      this.#fill();
      this.#wake();
    }, delay);
    this.#restartTimer.unref();
  }
}
