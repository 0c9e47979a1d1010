/**
 * Writes one durable run's journal to its store, ahead of what it records: records are turned into JSON
 * as they come and appended in order, each append's records sealed together; records that come while an
 * append is under way, or in the same turn of the event loop, go in the same append (group commit), so a
 * `Promise.all` of a hundred calls is three appends (the starts, the outcomes, the end), not two hundred. The writer holds the
 * run's lease and renews it; when the store says the lease is another's (the run was claimed) or fails,
 * the writer fails for good and every wait on it rejects: the run stops, and no call starts after.
 */

import { messageOf } from "../../../common/errors.js";
import type { CodeModeErrorName } from "../../../common/failures.js";
import { type RunRecord, type SealChain, sealBatches } from "./records.js";
import type { JournalRecord, RunJournal } from "./run-journal.js";

/** Why a durable run stopped writing: its lease is another process's, or its store failed. */
export class JournalStopped extends Error {
  override readonly name: "LeaseLost" | "JournalFailed";

  constructor(name: "LeaseLost" | "JournalFailed", message: string) {
    super(message);
    this.name = name satisfies CodeModeErrorName;
  }
}

/** What a writer needs: the store, the run, its key and chain, and its lease. */
export interface RunWriterInit {
  store: RunJournal;
  runId: string;
  key: Buffer;
  /** The next record's place and the MAC it follows (after the header, or after a recovered journal's end). */
  chain: SealChain;
  /** The lease's owner (this process's, for this run) and how long a lease lasts. */
  owner: string;
  leaseMs: number;
  /** Told once, when the writer fails (the run must stop). */
  onFailed: (error: JournalStopped) => void;
  /**
   * The run's creation in the store (its header and lease) when it is still under way: the code starts
   * meanwhile, and the first append waits for it, so a commit is saved from the run's start. `false`
   * (the id is taken) or a failure stops the run before any call starts.
   */
  created?: Promise<boolean>;
}

const RESOLVED = Promise.resolve();

/** The journal writer of one run (see the file's comment). */
export class RunWriter {
  readonly #init: RunWriterInit;
  /** Records not yet given to the store, as JSON (made when added: the objects may change after). */
  #queue: string[] = [];
  /** The append under way, resolved once its records are durable. */
  #flushing: Promise<void> | undefined;
  /** Resolved once the queued records are durable; made when someone waits for them. */
  #next: Deferred | undefined;
  #failure: JournalStopped | undefined;
  #renewal: NodeJS.Timeout | undefined;
  #finished = false;
  /** A flush is scheduled for the end of this turn of the event loop. */
  #scheduled = false;
  /** The run's creation is under way (there is no lease to renew yet). */
  #creating = false;
  #idTaken = false;

  constructor(init: RunWriterInit) {
    this.#init = init;
    const every = Math.max(1, Math.floor(init.leaseMs / 3));
    this.#renewal = setInterval(() => this.#renew(), every);
    this.#renewal.unref();
    if (init.created) this.#awaitCreation(init.created);
  }

  /** Whether the store refused to create the run because a run of its id exists already. */
  get idTaken(): boolean {
    return this.#idTaken;
  }

  /** Why the writer stopped, once it has. */
  get failure(): JournalStopped | undefined {
    return this.#failure;
  }

  /** Queues `record` after the ones before it; it is sealed and written with the next append. */
  add(record: RunRecord): void {
    if (this.#failure || this.#finished) return;
    this.#queue.push(JSON.stringify(record));
  }

  /** Resolves once every record added so far is durable; rejects with {@link JournalStopped}. */
  written(): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#queue.length === 0) return this.#flushing ?? RESOLVED;
    if (this.#next === undefined) {
      this.#next = deferred();
      if (this.#flushing === undefined) this.#schedule();
    }
    return this.#next.promise;
  }

  /**
   * Flushes once this turn of the event loop is over: the calls the code makes together reach the host
   * as separate callbacks of one turn (and the calls an append let start end in it), so they are
   * appended together rather than the first alone and the rest after it.
   */
  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#flush();
    });
  }

  /**
   * The run ended (`end`), or stops here to go on elsewhere (`release`: it paused, or its recovery could
   * not replay it here): the records go in, then the lease is given up, so that `cm.recover` can claim
   * the run. Waits for the appends under way; the renewals stop. Rejects with {@link JournalStopped}
   * when the store refuses or fails.
   */
  async finish(how: "end" | "release", last?: RunRecord): Promise<void> {
    if (last) this.add(last);
    this.#finished = true;
    clearInterval(this.#renewal);
    while (this.#flushing) await this.#flushing.catch(() => {});
    if (this.#failure) throw this.#failure;
    const { store, runId, owner } = this.#init;
    const records = this.#sealQueue();
    const waiting = this.#next;
    this.#next = undefined;
    let done: boolean;
    try {
      if (how === "end") done = await store.end(runId, records, owner);
      else {
        done =
          (await store.append(runId, records, owner)) &&
          (await store.renew(runId, { owner, until: Date.now() }));
      }
    } catch (error) {
      const failure = this.#fail("JournalFailed", storeFailed(runId, error));
      waiting?.reject(failure);
      throw failure;
    }
    if (!done) {
      const failure = this.#fail("LeaseLost", leaseLost(runId));
      waiting?.reject(failure);
      throw failure;
    }
    waiting?.resolve();
  }

  /** Stops renewing the lease (the run is over without a last record: it failed). */
  stop(): void {
    this.#finished = true;
    clearInterval(this.#renewal);
  }

  #flush(): void {
    const waiting = this.#next;
    if (this.#flushing || this.#failure || waiting === undefined) return;
    const batch = this.#sealQueue();
    this.#next = undefined;
    this.#flushing = waiting.promise;
    const { store, runId, owner } = this.#init;
    store.append(runId, batch, owner).then(
      (appended) => {
        this.#flushing = undefined;
        if (!appended) {
          waiting.reject(this.#fail("LeaseLost", leaseLost(runId)));
          return;
        }
        waiting.resolve();
        // What the waiters do now (calls that start, outcomes that come back) goes in the next append.
        if (this.#next !== undefined) this.#schedule();
      },
      (error: unknown) => {
        this.#flushing = undefined;
        waiting.reject(this.#fail("JournalFailed", storeFailed(runId, error)));
      },
    );
  }

  /** Holds the appends back until the run exists in the store: the creation is the first write. */
  #awaitCreation(created: Promise<boolean>): void {
    const { runId } = this.#init;
    this.#creating = true;
    const creating = created.then(
      (done) => {
        this.#creating = false;
        this.#flushing = undefined;
        if (!done) {
          this.#idTaken = true;
          throw this.#fail("JournalFailed", `Run ${runId} is in the journal already: nothing was written.`);
        }
        if (this.#next !== undefined) this.#schedule();
      },
      (error: unknown) => {
        this.#creating = false;
        this.#flushing = undefined;
        throw this.#fail(
          "JournalFailed",
          `The journal store could not start run ${runId} (${messageOf(error)}): no call ran.`,
        );
      },
    );
    creating.catch(() => {});
    this.#flushing = creating;
  }

  /** The queued records, sealed as the chain's next batches; the queue is empty after. */
  #sealQueue(): JournalRecord[] {
    const { key, runId, chain } = this.#init;
    const sealed = sealBatches(key, runId, chain, this.#queue);
    this.#queue = [];
    return sealed;
  }

  #renew(): void {
    if (this.#failure || this.#finished || this.#creating) return;
    const { store, runId, owner, leaseMs } = this.#init;
    store.renew(runId, { owner, until: Date.now() + leaseMs }).then(
      (renewed) => {
        if (!renewed && !this.#finished) this.#fail("LeaseLost", leaseLost(runId));
      },
      // A store that fails to renew may answer the next time; an append will tell if it is gone.
      () => {},
    );
  }

  #fail(name: JournalStopped["name"], message: string): JournalStopped {
    if (this.#failure) return this.#failure;
    const failure = new JournalStopped(name, message);
    this.#failure = failure;
    clearInterval(this.#renewal);
    this.#next?.reject(failure);
    this.#next = undefined;
    this.#init.onFailed(failure);
    return failure;
  }
}

function leaseLost(runId: string): string {
  return `Run ${runId} was claimed by another process (its lease ran out, and cm.recover claimed it there), or it ended: this process stopped it, and no call started after. The run goes on where it was claimed.`;
}

function storeFailed(runId: string, error: unknown): string {
  return `The journal store failed to write run ${runId} (${messageOf(error)}): the run was stopped, and no call started after. Once its lease runs out, cm.recover("${runId}") continues it where the journal ends.`;
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  // A batch nobody awaits any more (the run stopped) must not be an unhandled rejection.
  promise.catch(() => {});
  return { promise, resolve, reject };
}
