/**
 * Warm spares: sandboxes opened ahead of time, so that `open()` hands out one that is ready instead of
 * creating an isolate, a context and the prelude while the caller waits. A spare is made when a sandbox
 * is taken (on a later turn of the event loop, so that its creation overlaps the run that took the last
 * one), is handed out once, and then belongs to the caller like any other sandbox.
 */

import type { IsolateSandbox } from "./sandbox.js";

/** A spare being created; `claimed` once an `open()` waits for it (it then never joins the ready list). */
interface InFlight {
  claimed: boolean;
  promise: Promise<IsolateSandbox | undefined>;
}

/** The spares of one set of limits: at most `target` ready or in the making. */
export class SpareSandboxes {
  readonly #create: () => Promise<IsolateSandbox>;
  readonly #target: number;
  readonly #ready: IsolateSandbox[] = [];
  readonly #inFlight = new Set<InFlight>();
  #scheduled: NodeJS.Immediate | undefined;
  #closed = false;

  /** `create` opens a sandbox with this pool's limits; `target` is how many to keep ready. */
  constructor(create: () => Promise<IsolateSandbox>, target: number) {
    this.#create = create;
    this.#target = target;
  }

  /**
   * Takes a spare: a ready one, else one being created (waiting for it); undefined when there is none or
   * it could not be created. The spare is removed from the pool: no one else gets it.
   */
  async take(): Promise<IsolateSandbox | undefined> {
    for (let spare = this.#ready.shift(); spare; spare = this.#ready.shift()) {
      if (spare.alive) return spare;
    }
    for (const inFlight of this.#inFlight) {
      if (inFlight.claimed) continue;
      inFlight.claimed = true;
      const spare = await inFlight.promise;
      return spare?.alive ? spare : undefined;
    }
    return undefined;
  }

  /**
   * Makes spares until `target` are ready or in the making, starting on a later turn of the event loop
   * (an unref'd immediate, so it never keeps the process alive).
   */
  refill(): void {
    if (this.#closed || this.#scheduled || this.#target <= 0) return;
    this.#scheduled = setImmediate(() => {
      this.#scheduled = undefined;
      let available = this.#ready.length;
      for (const inFlight of this.#inFlight) if (!inFlight.claimed) available++;
      for (; available < this.#target && !this.#closed; available++) this.#start();
    });
    this.#scheduled.unref();
  }

  /** Disposes every spare, waiting for those being created; later spares are never made. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    const ready = this.#ready.splice(0);
    await Promise.all([
      ...ready.map((spare) => spare.dispose()),
      ...[...this.#inFlight].map((inFlight) => inFlight.promise),
    ]);
  }

  #start(): void {
    const inFlight: InFlight = { claimed: false, promise: Promise.resolve(undefined) };
    inFlight.promise = this.#create().then(
      async (spare) => {
        this.#inFlight.delete(inFlight);
        // A claimed spare goes to the open() waiting for it (which checks for a closed environment).
        if (inFlight.claimed) return spare;
        if (this.#closed) await spare.dispose();
        else this.#ready.push(spare);
        return undefined;
      },
      () => {
        // A spare that could not be made is no error of any run: open() then creates one itself.
        this.#inFlight.delete(inFlight);
        return undefined;
      },
    );
    this.#inFlight.add(inFlight);
  }
}
