/**
 * The supervisor's pool of sandbox-host processes: it keeps a number of them running, hands out the
 * least busy one, and starts a replacement whenever one dies or retires. A process that cannot start
 * is retried with a growing pause, and callers learn why it failed instead of waiting.
 */

import { closedEnding } from "../wire/endings.js";
import { type HostProcessSettings, SandboxHostProcess } from "./host-process.js";

/** The longest pause between attempts to start a process that keeps failing, in ms. */
const MAX_RESTART_DELAY_MS = 30_000;

/** How long `close()` waits for a killed process to be gone, in ms. */
const EXIT_WAIT_MS = 2_000;

/** Keeps `size` sandbox-host processes ready. */
export class ProcessPool {
  readonly #settings: HostProcessSettings;
  readonly #size: number;
  readonly #processes = new Set<SandboxHostProcess>();
  #failures = 0;
  #lastFailure: Error | undefined;
  #restartTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(settings: HostProcessSettings, size: number) {
    this.#settings = settings;
    this.#size = size;
  }

  /** The processes alive now (starting, ready or retiring). */
  get processes(): readonly SandboxHostProcess[] {
    return [...this.#processes];
  }

  /**
   * The least busy ready process; waits for one that is starting. Rejects with the reason when no
   * process could be started.
   */
  async acquire(): Promise<SandboxHostProcess> {
    for (;;) {
      if (this.#closed) throw new Error("This sandbox environment was closed; create a new one.");
      this.#fill();
      const ready = this.#least("ready");
      if (ready) return ready;
      const starting = [...this.#processes].filter((process) => process.state === "starting");
      if (starting.length === 0) {
        throw this.#lastFailure ?? new Error("No sandbox process could be started.");
      }
      try {
        await Promise.any(starting.map((process) => process.started));
      } catch {
        // Every one of them failed; the loop reports it (a new attempt waits for a pause).
      }
    }
  }

  /** Kills every process (their runs end as cancelled) and starts no more. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#restartTimer);
    const processes = [...this.#processes];
    for (const process of processes) process.kill(closedEnding());
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(processes.map((process) => process.exited)),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, EXIT_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
  }

  #least(state: "ready"): SandboxHostProcess | undefined {
    let best: SandboxHostProcess | undefined;
    for (const process of this.#processes) {
      if (process.state === state && (!best || process.load < best.load)) best = process;
    }
    return best;
  }

  /** Starts processes until `size` are starting or ready, unless a pause after failures is running. */
  #fill(): void {
    if (this.#closed || this.#restartTimer) return;
    let serving = 0;
    for (const process of this.#processes)
      if (process.state === "starting" || process.state === "ready") serving++;
    for (; serving < this.#size; serving++) this.#start();
  }

  #start(): void {
    const process = new SandboxHostProcess(this.#settings, (changed) => this.#changed(changed));
    this.#processes.add(process);
    process.started.then(
      () => {
        this.#failures = 0;
      },
      (error: Error) => {
        this.#lastFailure = error;
      },
    );
  }

  #changed(process: SandboxHostProcess): void {
    if (process.state === "dead") {
      this.#processes.delete(process);
      if (!process.wasReady) this.#failures++;
    }
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
    }, delay);
    this.#restartTimer.unref();
  }
}
