import type { Environment, Sandbox, SandboxLimits } from "../../sandbox/contract/index.js";

/** How long an unused session sandbox lives, and how many live at once, by default. */
export const DEFAULT_SESSION_IDLE_MS = 10 * 60_000;
export const DEFAULT_MAX_SESSIONS = 16;

/** How many expired or evicted session ids are remembered, so that their next run is told it starts over. */
const MAX_FORGOTTEN = 1_000;

/** What runs in a session: its sandbox, whether it is new after a loss, and a way to start it over. */
export type SessionTask<T> = (
  sandbox: Sandbox,
  replaced: boolean,
  reopen: () => Promise<Sandbox>,
) => Promise<T>;

interface Entry {
  sandbox: Sandbox | undefined;
  lastUsed: number;
  /** The sandbox died during a run (timeout, limit, cancellation): the next run starts over. */
  lost: boolean;
  /** Runs waiting or running; a busy session is never evicted. */
  pending: number;
  /** Runs of one session go one after another. */
  queue: Promise<unknown>;
}

/**
 * The sandboxes kept alive between runs, one per session id: variables persist across runs. Idle
 * sessions expire; past the cap the least recently used idle one is disposed.
 */
export class SessionPool {
  readonly #environment: Environment;
  readonly #limits: SandboxLimits;
  readonly #idleMs: number;
  readonly #max: number;
  readonly #entries = new Map<string, Entry>();
  /** Ids of sessions dropped for idleness or the cap, most recent last (at most MAX_FORGOTTEN). */
  readonly #forgotten = new Set<string>();
  #sweeper: NodeJS.Timeout | undefined;

  constructor(
    environment: Environment,
    limits: SandboxLimits,
    options: { idleMs: number; maxSessions: number },
  ) {
    this.#environment = environment;
    this.#limits = limits;
    this.#idleMs = options.idleMs;
    this.#max = options.maxSessions;
  }

  /** How many sessions are alive. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * Runs `task` with the session's sandbox, after the session's earlier runs. `restart` disposes the old
   * sandbox first. `replaced` tells the task that the session's sandbox had died and this one is new;
   * `reopen` disposes the session's sandbox and gives the task a fresh one in its place.
   */
  use<T>(id: string, restart: boolean, task: SessionTask<T>): Promise<T> {
    const entry = this.#entries.get(id) ?? {
      sandbox: undefined,
      // A session that expired or was evicted comes back empty: its next run is told so.
      lost: this.#forgotten.delete(id),
      lastUsed: Date.now(),
      pending: 0,
      queue: Promise.resolve(),
    };
    // Re-inserting keeps the Map in least-recently-used order.
    this.#entries.delete(id);
    this.#entries.set(id, entry);
    entry.pending++;
    const run = entry.queue.then(() => this.#runIn(id, entry, restart, task));
    entry.queue = run.catch(() => {});
    this.#evictOverCap();
    this.#scheduleSweep();
    return run;
  }

  async #runIn<T>(sessionId: string, entry: Entry, restart: boolean, task: SessionTask<T>): Promise<T> {
    try {
      if (entry.sandbox && (restart || !entry.sandbox.alive)) {
        entry.lost ||= !entry.sandbox.alive;
        await entry.sandbox.dispose();
        entry.sandbox = undefined;
      }
      const replaced = entry.lost && !restart;
      entry.lost = false;
      // A session is a tenant: its sandbox shares a process with no other session's.
      entry.sandbox ??= await this.#environment.open(this.#limits, { tenant: sessionId });
      const reopen = async () => {
        const old = entry.sandbox;
        entry.sandbox = undefined;
        await old?.dispose();
        entry.sandbox = await this.#environment.open(this.#limits, { tenant: sessionId });
        return entry.sandbox;
      };
      return await task(entry.sandbox, replaced, reopen);
    } finally {
      entry.pending--;
      entry.lastUsed = Date.now();
      if (entry.sandbox && !entry.sandbox.alive) {
        entry.sandbox = undefined;
        entry.lost = true;
      }
    }
  }

  /** Disposes every session's sandbox. */
  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
    await Promise.all([...this.#entries].map(([id, entry]) => this.#drop(id, entry)));
  }

  #evictOverCap(): void {
    for (const [id, entry] of this.#entries) {
      if (this.#entries.size <= this.#max) break;
      if (entry.pending === 0) void this.#drop(id, entry, true);
    }
  }

  #scheduleSweep(): void {
    if (this.#sweeper) return;
    this.#sweeper = setInterval(() => this.#sweep(), Math.min(this.#idleMs, 60_000));
    // Idle sessions must not keep the host process alive.
    this.#sweeper.unref();
  }

  #sweep(): void {
    const now = Date.now();
    for (const [id, entry] of this.#entries) {
      if (entry.pending === 0 && now - entry.lastUsed >= this.#idleMs) void this.#drop(id, entry, true);
    }
    if (this.#entries.size === 0) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  }

  async #drop(id: string, entry: Entry, remember = false): Promise<void> {
    if (this.#entries.get(id) === entry) this.#entries.delete(id);
    if (remember) {
      this.#forgotten.add(id);
      if (this.#forgotten.size > MAX_FORGOTTEN)
        this.#forgotten.delete(this.#forgotten.values().next().value!);
    }
    await entry.queue;
    const sandbox = entry.sandbox;
    entry.sandbox = undefined;
    await sandbox?.dispose();
  }
}
