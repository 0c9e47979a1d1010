/**
 * The store a durable run writes its journal to, as it goes: what replay needs to continue the run in
 * another process after this one died (issue 41). Code mode seals every record (an HMAC with the
 * checkpoint key, chained to the record before it and bound to the run id), so a store only keeps and
 * returns text: it never needs to understand a record, and it cannot change one unseen.
 *
 * A run is written by the one process that holds its lease. A lease has an owner (a random id per
 * process and run) and an expiry; the owner renews it while the run lasts. When it expires (the process
 * died, or stalled longer than the lease), any process may claim the run; the claim is one atomic step
 * of the store, so of every claimer exactly one wins, and from then on the store refuses the old owner's
 * writes. Every store implements these rules the same way, and test/durable/journal-store-suite.ts holds
 * each one to them.
 */

/** One record of a run's journal, as the store keeps it: its place in the run, and sealed text. */
export interface JournalRecord {
  /** 0 for the run's first record (its header), then 1, 2, 3… without gaps. */
  seq: number;
  /** The sealed record (code mode's own format). At most {@link MAX_JOURNAL_RECORD_CHARS} characters. */
  text: string;
}

/** Who may write a run, until when. */
export interface Lease {
  /** An id that is unique per process and run (a random UUID). */
  owner: string;
  /** When the lease ends, in ms since the epoch, unless renewed. */
  until: number;
}

/** A run as a store keeps it. */
export interface StoredRun {
  runId: string;
  /** Every record, in `seq` order from 0. */
  records: JournalRecord[];
  /** The lease: who writes it, until when. */
  lease: Lease;
  /** Whether the run ended (ok, failed, or paused and handed to a checkpoint): nothing more is written. */
  ended: boolean;
}

/** A run that has not ended and whose lease expired: its process is presumed dead. */
export interface IncompleteRun {
  runId: string;
  /** When its lease ended, in ms since the epoch. */
  leaseExpired: number;
  /** How many records it has (its header included). */
  records: number;
}

/**
 * The durable store of runs' journals. Every method may be called from several processes at once (a
 * fleet of workers sharing one store); each write is durable when its promise resolves (a result reaches
 * the model's code only after the record of it is).
 *
 * Refusals are answers, not errors: `false` when the run exists / the lease is not the caller's / the
 * claim was lost. A method rejects only when the store itself fails (the database is unreachable…).
 */
export interface RunJournal {
  /**
   * Starts run `runId` with its header (`seq` 0) and a lease. `false` when a run of that id exists
   * already, ended or not (run ids are never reused).
   */
  create(runId: string, header: JournalRecord, lease: Lease): Promise<boolean>;
  /**
   * Appends `records` (consecutive `seq`s, the first one right after the run's last) while `owner`
   * holds the lease and the run has not ended. `false`, and nothing written, when another owner holds
   * the lease (it was claimed: this process must stop the run), the run ended, or the `seq`s do not
   * follow on. Writes of one owner are not concurrent: code mode appends in order and batches the
   * records that arrive while a write is under way (group commit).
   */
  append(runId: string, records: readonly JournalRecord[], owner: string): Promise<boolean>;
  /** Extends `lease.owner`'s lease to `lease.until`; `false` when the lease is someone else's or the run ended. */
  renew(runId: string, lease: Lease): Promise<boolean>;
  /**
   * Claims a run whose lease expired by `now` and that has not ended: atomically, so of every claim of
   * that lease exactly one returns `true`; the lease is then `lease`. `false` for a run that is not
   * there, ended, or whose lease has not expired.
   */
  claim(runId: string, lease: Lease, now: number): Promise<boolean>;
  /**
   * Appends the run's last records (may be none) and marks it ended, while `owner` holds the lease;
   * `false` as {@link append}.
   */
  end(runId: string, records: readonly JournalRecord[], owner: string): Promise<boolean>;
  /** The run as stored, or undefined when there is none of that id. */
  read(runId: string): Promise<StoredRun | undefined>;
  /** Runs not ended whose lease expired by `now`, oldest expiry first, at most `limit` (default 100). */
  incomplete(now: number, limit?: number): Promise<IncompleteRun[]>;
  /** Forgets a run (a host's clean-up of ended runs); nothing when there is none. */
  remove(runId: string): Promise<void>;
}

/** The longest sealed record a store must keep: a tool's result of up to 8 MB, as JSON, sealed. */
export const MAX_JOURNAL_RECORD_CHARS = 12 * 1024 * 1024;

/** The longest run id: ids are the host's (`cm.run(code, { runId })`) or random UUIDs. */
export const MAX_RUN_ID_CHARS = 200;
