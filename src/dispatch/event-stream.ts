/**
 * A buffered, single-consumer async queue of events. Besides delivering events it knows whether a
 * consumer is reading and when the consumer has finished with an event (it asked for the next one or
 * stopped reading): that is when an approval nobody decided falls through to the handler.
 */
export class EventStream<T> implements AsyncIterable<T> {
  readonly #queue: T[] = [];
  #waiter: ((result: IteratorResult<T>) => void) | undefined;
  #failWaiter: ((error: unknown) => void) | undefined;
  #ended = false;
  #error: unknown;
  #iterating = false;
  #pushed = 0;
  #finished = 0;
  readonly #handled: { seq: number; resolve: () => void }[] = [];
  #onDetach: (() => void)[] = [];
  readonly #onFirstRead: () => void;
  readonly #unread: boolean;

  /**
   * `unread`: no consumer can ever read this stream (nobody was handed it), so events are counted but
   * not kept: a long code-mode run does not hold every event of its calls until it ends.
   */
  constructor(onFirstRead: () => void = () => {}, options: { unread?: boolean } = {}) {
    this.#onFirstRead = onFirstRead;
    this.#unread = options.unread === true;
  }

  /** Whether no consumer can ever read this stream (see the constructor): its events are only counted. */
  get unread(): boolean {
    return this.#unread;
  }

  /** Whether a consumer is reading the stream now. */
  get hasConsumer(): boolean {
    return this.#iterating;
  }

  /** Adds an event; returns its sequence number. Events pushed after the end are dropped. */
  push(event: T): number {
    if (this.#ended) return -1;
    const seq = ++this.#pushed;
    if (this.#unread) return seq;
    const waiter = this.#waiter;
    if (waiter) {
      this.#clearWaiter();
      waiter({ value: event, done: false });
    } else {
      this.#queue.push(event);
    }
    return seq;
  }

  /** Ends the stream; with an error, the consumer's loop throws it after the buffered events. */
  end(error?: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#error = error;
    if (this.#waiter && this.#queue.length === 0) {
      const waiter = this.#waiter;
      const fail = this.#failWaiter;
      this.#clearWaiter();
      if (error === undefined) waiter({ value: undefined, done: true });
      else fail?.(error);
    }
  }

  /** Resolves once the consumer is done with event `seq`, or at once when nobody is reading. */
  handled(seq: number): Promise<void> {
    if (!this.#iterating || seq <= this.#finished) return Promise.resolve();
    return new Promise((resolve) => this.#handled.push({ seq, resolve }));
  }

  /** Resolves when the consumer stops reading, or at once when nobody is reading. */
  detached(): Promise<void> {
    if (!this.#iterating) return Promise.resolve();
    return new Promise((resolve) => this.#onDetach.push(resolve));
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.#iterating) throw new Error("A dispatch's events can be read by one consumer only.");
    this.#iterating = true;
    this.#onFirstRead();
    return {
      next: () => this.#next(),
      return: async () => {
        this.#stopReading();
        return { value: undefined, done: true };
      },
    };
  }

  #next(): Promise<IteratorResult<T>> {
    // Asking for the next event means the consumer is done with every event it already received.
    this.#finish(this.#pushed - this.#queue.length);
    const event = this.#queue.shift();
    if (event !== undefined) {
      return Promise.resolve({ value: event, done: false });
    }
    if (this.#ended) {
      this.#stopReading();
      return this.#error === undefined
        ? Promise.resolve({ value: undefined, done: true })
        : Promise.reject(this.#error);
    }
    return new Promise((resolve, reject) => {
      this.#waiter = resolve;
      this.#failWaiter = reject;
    });
  }

  #finish(upTo: number): void {
    if (upTo <= this.#finished) return;
    this.#finished = upTo;
    for (let i = this.#handled.length - 1; i >= 0; i--) {
      const entry = this.#handled[i]!;
      if (entry.seq <= upTo) {
        this.#handled.splice(i, 1);
        entry.resolve();
      }
    }
  }

  #stopReading(): void {
    this.#iterating = false;
    this.#finish(Number.POSITIVE_INFINITY);
    const waiting = this.#onDetach;
    this.#onDetach = [];
    for (const resolve of waiting) resolve();
  }

  #clearWaiter(): void {
    this.#waiter = undefined;
    this.#failWaiter = undefined;
  }
}
