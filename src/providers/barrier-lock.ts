/**
 * Lets calls run together, except a barrier, which waits for the calls already running, runs alone,
 * and then lets the rest go on: the dispatcher's `parallel: false` rule across separate dispatches (the
 * AI SDK runs each call of a step on its own). First come, first served.
 */
export class BarrierLock {
  readonly #queue: { barrier: boolean; admit: (release: () => void) => void }[] = [];
  #running = 0;
  #barrierRunning = false;

  /** Resolves with the function that releases the place once the caller may run. */
  enter(barrier: boolean): Promise<() => void> {
    return new Promise((admit) => {
      this.#queue.push({ barrier, admit });
      this.#admit();
    });
  }

  #admit(): void {
    while (this.#queue.length > 0 && !this.#barrierRunning) {
      const next = this.#queue[0]!;
      if (next.barrier && this.#running > 0) return;
      this.#queue.shift();
      this.#running++;
      if (next.barrier) this.#barrierRunning = true;
      let released = false;
      next.admit(() => {
        if (released) return;
        released = true;
        this.#running--;
        if (next.barrier) this.#barrierRunning = false;
        this.#admit();
      });
    }
  }
}
