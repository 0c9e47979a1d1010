// The pool of idle isolates behind the isolate environment: reused by memory limit, bounded in all.
import ivm from "isolated-vm";
import { describe, expect, it } from "vitest";
import { IsolatePool, MAX_IDLE_ISOLATES } from "../../sandbox/isolate/isolates.js";
import type { IsolatedVm } from "../../sandbox/isolate/load.js";

describe("IsolatePool", () => {
  it("gives an idle isolate back to the next sandbox with the same memory limit", async () => {
    const pool = new IsolatePool(ivm as unknown as IsolatedVm);
    const first = pool.take(16);
    pool.give(first);
    const again = pool.take(16);
    expect(again.isolate).toBe(first.isolate);
    expect(again.uses).toBe(2);
    expect(pool.take(16).isolate).not.toBe(first.isolate);
    await pool.close();
  });

  it("keeps at most MAX_IDLE_ISOLATES idle over all memory limits, disposing the oldest", async () => {
    const pool = new IsolatePool(ivm as unknown as IsolatedVm);
    const slots = Array.from({ length: MAX_IDLE_ISOLATES + 3 }, (_, i) => pool.take(16 + i));
    for (const slot of slots) pool.give(slot);
    const disposed = slots.filter((slot) => slot.isolate.isDisposed);
    expect(disposed).toEqual(slots.slice(0, 3));
    await pool.close();
    expect(slots.every((slot) => slot.isolate.isDisposed)).toBe(true);
  });
});
