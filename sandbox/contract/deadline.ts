/**
 * A deadline that can be paused: time spent paused does not count. A run's wall clock stops while one of
 * its tool calls waits for a person (an approval, a question), so that one taking a minute does not run
 * out the model's time.
 */
export class PausableDeadline {
  #remaining: number;
  #since = 0;
  #timer: NodeJS.Timeout | undefined;
  #pauses = 0;
  #done = false;
  readonly #onExpire: () => void;

  /** Starts counting `ms` at once; `onExpire` runs once when it has run out. */
  constructor(ms: number, onExpire: () => void) {
    this.#remaining = ms;
    this.#onExpire = onExpire;
    this.#arm();
  }

  /** Stops the clock until a matching {@link resume}; pauses nest. */
  pause(): void {
    if (this.#done || this.#pauses++ > 0) return;
    clearTimeout(this.#timer);
    this.#remaining -= performance.now() - this.#since;
  }

  /** Ends one pause; the clock runs again when no pause is left. */
  resume(): void {
    if (this.#done || this.#pauses === 0 || --this.#pauses > 0) return;
    this.#arm();
  }

  /**
   * The time left, in ms (Infinity while paused: a paused clock cannot run out). What a stretch of code
   * run synchronously may be given, since the timer cannot fire while that code holds the thread.
   */
  get remainingMs(): number {
    if (this.#done) return 0;
    if (this.#pauses > 0) return Number.POSITIVE_INFINITY;
    return Math.max(0, this.#remaining - (performance.now() - this.#since));
  }

  /** Stops the deadline for good. */
  clear(): void {
    this.#done = true;
    clearTimeout(this.#timer);
  }

  #arm(): void {
    this.#since = performance.now();
    // setTimeout treats delays above 2^31-1 ms (about 24 days) as 1 ms.
    const delay = Math.min(Math.max(0, this.#remaining), 2 ** 31 - 1);
    this.#timer = setTimeout(() => {
      this.#done = true;
      this.#onExpire();
    }, delay);
  }
}
