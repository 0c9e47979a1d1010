// The reader's cache on its own: single flight under concurrency, TTL, size cap, what is never kept.
import { describe, expect, it } from "vitest";
import { TtlCache } from "../../src/builtins/web-fetch/page-cache.js";

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("TtlCache", () => {
  it("shares one load among concurrent gets of the same key", async () => {
    const cache = new TtlCache<string>({ ttlMs: 60_000, maxEntries: 10 });
    let loads = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const load = async () => {
      loads++;
      await gate;
      return "page";
    };
    const all = Promise.all(Array.from({ length: 25 }, () => cache.get("u", load)));
    await tick();
    release();
    const results = await all;
    expect(loads).toBe(1);
    expect(results.map((r) => r.value)).toEqual(Array(25).fill("page"));
    expect(results.filter((r) => !r.cached)).toHaveLength(1);
    expect((await cache.get("u", load)).cached).toBe(true);
    expect(loads).toBe(1);
  });

  it("keeps each key's own value under concurrent loads of many keys, within the size cap", async () => {
    const cache = new TtlCache<string>({ ttlMs: 60_000, maxEntries: 3 });
    const keys = Array.from({ length: 40 }, (_, i) => `k${i % 10}`);
    const results = await Promise.all(
      keys.map((key, i) =>
        cache.get(key, async () => {
          await new Promise((resolve) => setTimeout(resolve, (i * 7) % 5));
          return `value of ${key}`;
        }),
      ),
    );
    for (const [i, result] of results.entries()) expect(result.value).toBe(`value of ${keys[i]}`);
    expect(cache.size).toBeLessThanOrEqual(3);
  });

  it("expires entries after the TTL", async () => {
    let now = 1_000;
    const cache = new TtlCache<number>({ ttlMs: 300_000, maxEntries: 10, now: () => now });
    let version = 0;
    const load = async () => ++version;
    expect((await cache.get("u", load)).value).toBe(1);
    now += 299_999;
    expect(await cache.get("u", load)).toEqual({ value: 1, cached: true });
    now += 1;
    expect(await cache.get("u", load)).toEqual({ value: 2, cached: false });
  });

  it("drops the least recently used entry first", async () => {
    const cache = new TtlCache<string>({ ttlMs: 60_000, maxEntries: 2 });
    const loads: string[] = [];
    const load = (key: string) => async () => {
      loads.push(key);
      return key;
    };
    await cache.get("a", load("a"));
    await cache.get("b", load("b"));
    await cache.get("a", load("a")); // a is now the most recent
    await cache.get("c", load("c")); // evicts b
    await cache.get("a", load("a"));
    await cache.get("b", load("b"));
    expect(loads).toEqual(["a", "b", "c", "b"]);
  });

  it("never keeps a failed load, and every waiter sees the failure", async () => {
    const cache = new TtlCache<string>({ ttlMs: 60_000, maxEntries: 10 });
    let attempt = 0;
    const load = async () => {
      attempt++;
      await tick();
      if (attempt === 1) throw new Error("boom");
      return "ok";
    };
    const first = await Promise.allSettled([cache.get("u", load), cache.get("u", load)]);
    expect(first.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(attempt).toBe(1);
    expect((await cache.get("u", load)).value).toBe("ok");
  });

  it("does not keep what keep() refuses, nor anything with a TTL of 0", async () => {
    const refusing = new TtlCache<number>({ ttlMs: 60_000, maxEntries: 10, keep: (v) => v < 500 });
    let status = 503;
    await refusing.get("u", async () => status);
    status = 200;
    expect(await refusing.get("u", async () => status)).toEqual({ value: 200, cached: false });
    const off = new TtlCache<number>({ ttlMs: 0, maxEntries: 10 });
    let n = 0;
    await off.get("u", async () => ++n);
    expect(await off.get("u", async () => ++n)).toEqual({ value: 2, cached: false });
    expect(off.size).toBe(0);
  });
});
