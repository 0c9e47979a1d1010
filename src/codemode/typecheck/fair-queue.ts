/**
 * Checks waiting for a checker thread, one queue per client, served in turn. A client has at most one
 * check in flight, so its checks wait only behind its own; among clients with a check waiting, the one
 * served least (start-time fair queueing: each check costs one turn) goes first, and on the same turn the
 * one that has waited longest. A client that was idle joins at the current turn, with no credit saved
 * up, and a check in flight earns its client none either. A client that sends check after check (each
 * one cut off at its budget) therefore holds at most one thread, and another client's check waits for
 * the first thread to come free, behind only the clients already waiting for one when it came.
 */

interface ClientQueue<T> {
  items: T[];
  /** The turn of its next check: one more than the turn its last check was taken on. */
  turn: number;
  /**
   * Since when it has had a check waiting and none in flight (a count, not a time): among clients on
   * the same turn, the one waiting longest goes first, and a check in flight does not count as waiting.
   */
  waitingSince: number;
  inFlight: boolean;
}

/** Per-client queues of `T`, taken in fair turns, one in flight per client. */
export class FairQueue<T> {
  readonly #clients = new Map<string, ClientQueue<T>>();
  /** The turn of the check taken last: a client that joins starts here. */
  #turn = 0;
  /** Counts the moments clients start waiting. */
  #ticks = 0;

  /** Adds `item` to the queue of `client`. */
  push(client: string, item: T): void {
    const queue = this.#clients.get(client);
    if (queue === undefined) {
      this.#clients.set(client, {
        items: [item],
        turn: this.#turn,
        waitingSince: this.#ticks++,
        inFlight: false,
      });
      return;
    }
    queue.items.push(item);
  }

  /** How many clients have a check that could be taken now (one waiting, none in flight). */
  get ready(): number {
    let count = 0;
    for (const queue of this.#clients.values()) if (!queue.inFlight && queue.items.length > 0) count++;
    return count;
  }

  /** Takes the next check in turn, marking its client in flight until {@link done}. */
  take(): { client: string; item: T } | undefined {
    let next: { client: string; queue: ClientQueue<T>; turn: number } | undefined;
    for (const [client, queue] of this.#clients) {
      if (queue.inFlight || queue.items.length === 0) continue;
      // No credit for turns missed while in flight: a check that ran long does not earn its client a run
      // of turns afterwards.
      const turn = Math.max(queue.turn, this.#turn);
      if (
        next === undefined ||
        turn < next.turn ||
        (turn === next.turn && queue.waitingSince < next.queue.waitingSince)
      )
        next = { client, queue, turn };
    }
    if (next === undefined) return undefined;
    const { client, queue, turn } = next;
    this.#turn = turn;
    queue.turn = turn + 1;
    queue.inFlight = true;
    return { client, item: queue.items.shift() as T };
  }

  /** The check of `client` taken last has ended: its next one may be taken. */
  done(client: string): void {
    const queue = this.#clients.get(client);
    if (queue === undefined) return;
    queue.inFlight = false;
    // A client with nothing waiting leaves; when it comes back it joins at the current turn.
    if (queue.items.length === 0) this.#clients.delete(client);
    else queue.waitingSince = this.#ticks++;
  }

  /** Takes every waiting check out (the checker is closing). */
  drain(): T[] {
    const items: T[] = [];
    for (const queue of this.#clients.values()) items.push(...queue.items.splice(0));
    return items;
  }
}
