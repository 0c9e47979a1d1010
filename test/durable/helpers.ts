/**
 * What the durable-run tests share: a world of effectful tools that count every invocation, and a
 * store handle that can "crash" (from then on every method of it rejects, as a dead process's would
 * never answer), so that a run can be abandoned halfway in one process and recovered by another code
 * mode sharing the same store.
 */

import { z } from "zod";
import type { RunRecord } from "../../src/codemode/durable/records.js";
import type { JournalRecord, RunJournal } from "../../src/codemode/durable/run-journal.js";
import { tool } from "../../src/index.js";
import type { RunContext } from "../../src/tools/types.js";

/** The key the tests seal journals with. */
export const KEY = "a host secret, 32 bytes at least!";

/** The run records in stored sealed batches, in order (read without checking the seals). */
export function recordsIn(batches: readonly JournalRecord[]): RunRecord[] {
  return batches.flatMap(({ text }) => JSON.parse(text.slice(text.indexOf(".") + 1)) as RunRecord[]);
}

/** A handle on `store` that dies on `crash()`: every call after rejects, and nothing more is written. */
export function crashable(store: RunJournal): { journal: RunJournal; crash: () => void } {
  let dead = false;
  const journal = Object.fromEntries(
    (Object.keys(store) as (keyof RunJournal)[]).map((name) => [
      name,
      (...args: unknown[]) =>
        dead
          ? Promise.reject(new Error("this process died"))
          : (store[name] as (...a: unknown[]) => Promise<unknown>)(...args),
    ]),
  ) as unknown as RunJournal;
  return { journal, crash: () => (dead = true) };
}

/**
 * Effects as a service keeps them: `effects` has each idempotency key once when the tool is idempotent
 * (the service dedupes by key), and `invocations` every time a tool really ran.
 */
export function effectWorld(options: {
  idempotent: boolean;
  delayMs?: number;
  onEffect?: (n: number) => void;
}) {
  const effects: string[] = [];
  const invocations: string[] = [];
  const effect = tool({
    name: "effect",
    description: "Makes one effect, keyed by the call's idempotency key.",
    input: z.object({ n: z.number() }),
    idempotent: options.idempotent,
    run: async ({ n }, ctx: RunContext) => {
      invocations.push(ctx.idempotencyKey);
      await new Promise((resolve) => setTimeout(resolve, options.delayMs ?? 1));
      if (!options.idempotent || !effects.includes(ctx.idempotencyKey)) effects.push(ctx.idempotencyKey);
      options.onEffect?.(effects.length);
      return n * 2;
    },
  });
  return { effects, invocations, effect };
}

/** 40 effectful calls: sequential ones and Promise.all batches; the value is the sum of their results. */
export const FORTY_CALLS = `
let total = 0;
for (let i = 0; i < 10; i++) total += await tools.effect({ n: i });
const batch = await Promise.all(Array.from({ length: 20 }, (_, i) => tools.effect({ n: 10 + i })));
total += batch.reduce((a, b) => a + b, 0);
for (let i = 30; i < 35; i++) total += await tools.effect({ n: i });
const last = await Promise.all([35, 36, 37, 38, 39].map((n) => tools.effect({ n })));
total += last.reduce((a, b) => a + b, 0);
return { total, when: Date.now() > 0, dice: Math.random() < 2 };
`;

/** The value {@link FORTY_CALLS} returns. */
export const FORTY_CALLS_VALUE = { total: 2 * ((39 * 40) / 2), when: true, dice: true };

/** Effects, one that needs a person's approval (`send`), then more effects. */
export const APPROVAL_CALLS = `
let total = 0;
for (let i = 0; i < 5; i++) total += await tools.effect({ n: i });
const sent = await tools.send({ to: "ops" });
for (let i = 5; i < 15; i++) total += await tools.effect({ n: i });
const more = await Promise.all([15, 16, 17, 18, 19].map((n) => tools.effect({ n })));
return { total: total + more.reduce((a, b) => a + b, 0), sent };
`;

/** The value {@link APPROVAL_CALLS} returns once `send` was approved. */
export const APPROVAL_CALLS_VALUE = { total: 2 * ((19 * 20) / 2), sent: "sent to ops" };

/** Twenty effects, then a failure: with `onFailure: "revert"`, the run reverts all twenty, last first. */
export const REVERTED_CALLS = `
for (let i = 0; i < 20; i++) await tools.effect({ n: i });
throw new Error("the last step failed");
`;
