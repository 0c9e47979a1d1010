// Benchmarks time only runs that worked: every measured run is checked, and a failed one stops the
// benchmark loudly (a figure from a failed run is worse than no figure).

import { isDeepStrictEqual } from "node:util";
import { Worker } from "node:worker_threads";
import type { CodeRunResult, Dispatcher, ToolResult } from "cordon";
import { median, sample } from "./stats.js";

/** Throws unless the run ended `ok` with exactly the expected value. */
export function expectRun(result: CodeRunResult, expected: unknown, what: string): void {
  if (result.status === "ok" && isDeepStrictEqual(result.value, expected)) return;
  const detail = result.error
    ? `${result.error.name}: ${result.error.message}`
    : JSON.stringify(result.value);
  throw new Error(
    `benchmark "${what}": a measured run did not succeed (status ${result.status}; expected ${JSON.stringify(expected)}; got ${detail.slice(0, 300)})`,
  );
}

/** Throws unless every call of a dispatch succeeded, and (when given) each with the expected value. */
export function expectResults(
  results: readonly ToolResult[],
  what: string,
  expected?: readonly unknown[],
): void {
  results.forEach((result, i) => {
    if (result.ok && (expected === undefined || isDeepStrictEqual(result.value, expected[i]))) return;
    throw new Error(
      `benchmark "${what}": a measured call did not succeed (${result.name}: ${result.ok ? `value ${JSON.stringify(result.value)}` : result.output.slice(0, 300)})`,
    );
  });
}

/** A run function that checks every result it produces. */
export function checked(run: () => Promise<CodeRunResult>, expected: unknown, what: string) {
  return async () => expectRun(await run(), expected, what);
}

/**
 * Keeps another core busy with a spinning worker thread until `stop()`. Idle cores on this machine sleep,
 * and waking one costs ~80 µs per cross-thread hop; per-call figures are compared in the same state.
 */
export function keepOtherCoreAwake(): { stop(): Promise<void> } {
  const worker = new Worker("for (;;) {}", { eval: true });
  return { stop: async () => void (await worker.terminate()) };
}

/** The median time of one direct dispatch of the `add` tool (1 + 2), in µs, each checked for its value. */
export async function directAddMicros(dispatcher: Dispatcher, samples = 3_000): Promise<number> {
  return median(
    await sample(samples, async () => {
      const [result] = await dispatcher
        .dispatch([{ id: "c", name: "add", arguments: { a: 1, b: 2 } }])
        .results();
      if (result?.value !== 3) throw new Error("direct dispatch: wrong result");
    }),
  );
}
