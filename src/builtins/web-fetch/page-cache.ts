/**
 * A small TTL cache with a size cap (least recently used first out) and single flight: concurrent
 * requests for the same key share one load, so an `offset` continuation and a parallel call both read
 * the version of the page that was downloaded once.
 */

interface Entry<V> {
  value: V;
  expires: number;
}

/** Options of {@link TtlCache}. */
export interface TtlCacheOptions<V> {
  /** How long a value stays fresh, in milliseconds; 0 disables caching (loads are still shared). */
  ttlMs: number;
  /** Entries kept at most. */
  maxEntries: number;
  /** Whether a loaded value may be kept (a failed load never is). Default: always. */
  keep?: (value: V) => boolean;
  /** The clock, for tests. */
  now?: () => number;
}

/** A per-key cache of loaded values; safe under concurrent `get`s of the same or different keys. */
export class TtlCache<V> {
  readonly #entries = new Map<string, Entry<V>>();
  readonly #loading = new Map<string, Promise<V>>();
  readonly #options: Required<TtlCacheOptions<V>>;

  constructor(options: TtlCacheOptions<V>) {
    this.#options = { keep: () => true, now: Date.now, ...options };
  }

  /** How many values are stored now (fresh or not yet evicted). */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * The fresh value for `key`, or the result of `load()`. While a load for `key` is running, other
   * callers wait for it instead of starting their own. A load that throws is not stored.
   */
  async get(key: string, load: () => Promise<V>): Promise<{ value: V; cached: boolean }> {
    const hit = this.#fresh(key);
    if (hit !== undefined) return { value: hit.value, cached: true };
    const running = this.#loading.get(key);
    if (running) return { value: await running, cached: true };
    const loading = load();
    this.#loading.set(key, loading);
    try {
      const value = await loading;
      this.#store(key, value);
      return { value, cached: false };
    } finally {
      this.#loading.delete(key);
    }
  }

  /** Forgets every entry. */
  clear(): void {
    this.#entries.clear();
  }

  #fresh(key: string): Entry<V> | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (entry.expires <= this.#options.now()) return undefined;
    // Re-inserting keeps the map in least-recently-used order.
    this.#entries.set(key, entry);
    return entry;
  }

  #store(key: string, value: V): void {
    const { ttlMs, maxEntries, keep, now } = this.#options;
    if (ttlMs <= 0 || maxEntries <= 0 || !keep(value)) return;
    this.#entries.delete(key);
    while (this.#entries.size >= maxEntries) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
    this.#entries.set(key, { value, expires: now() + ttlMs });
  }
}
