// What the benchmarks of journaled runs time (bench/durable.ts on each store, bench/dbos.ts and
// bench/restate.ts on the engines): one cheap synchronous tool, the code (N sequential calls, a fan-out
// of 100), the code mode the engines' benchmarks run it in, and the per-call figure.

import { type CodeMode, codeMode, tool } from "cordon";
import { isolateEnvironment } from "cordon/in-process";
import { z } from "zod";
import { median } from "./stats.js";

/** The tool every call of the code makes: cheap and synchronous, so that what is timed is the call. */
export const add = tool({
  name: "add",
  description: "Add.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});

/** A code mode with `add` on the in-process isolate that lets the fan-out's 100 calls run at once. */
export function benchCodeMode(): CodeMode {
  return codeMode({
    tools: [add],
    environment: isolateEnvironment(),
    limits: { maxToolCalls: 1_000, maxConcurrentCalls: 100 },
    pause: { key: "a benchmark secret, 32 bytes long" },
  });
}

/** `n` calls of `add`, each awaited; the run's value is `n`. */
export const sequential = (n: number) =>
  `let s = 0; for (let i = 0; i < ${n}; i++) s = await tools.add({ a: s, b: 1 }); return s`;

/** One Promise.all of 100 calls of `add`; the run's value is 100. */
export const FAN_OUT =
  "return (await Promise.all(Array.from({ length: 100 }, (_, i) => tools.add({ a: i, b: 0 })))).length";

/** What one sequential call takes: (run with `n` calls - run with none) / `n`, from their medians. */
export const perCall = (none: number[], many: number[], n: number) => (median(many) - median(none)) / n;
