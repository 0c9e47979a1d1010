/** Bounds how many things run at once; `acquire` waits for a free slot. */
export class Semaphore {
  readonly #limit: number;
  #active = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Waits for a slot; call the returned function once to give it back. */
  async acquire(): Promise<() => void> {
    const release = this.tryAcquire();
    if (release) return release;
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
    return this.#releaser();
  }

  /** Takes a free slot now, without waiting: its release function, or undefined when none is free. */
  tryAcquire(): (() => void) | undefined {
    if (this.#active >= this.#limit) return undefined;
    this.#active++;
    return this.#releaser();
  }

  /** Gives a slot back once: to the longest waiter, or to the pool. */
  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next) next();
      else this.#active--;
    };
  }
}
