// The four measures of bench-peers, shared by the Node harness (peers.mjs) and the workerd Worker
// (workerd/worker.mjs), so that every executor in both runtimes does the same runs in the same order:
// trivial runs, one sequential tool call (a run of 100 calls less a run of none, the two alternated so
// that drift reaches both), 100 calls of 10 ms in one Promise.all, and trivial runs with 4 at once.
// An executor is { run(code, expected), code: { trivial, loop(n), fan } }; its run checks the value.
// `batch` is how many runs one timed sample holds: 1 in Node; more where the clock counts whole
// milliseconds (workerd), the same number of runs in all, grouped.

const CALLS = 100;
/** Trivial runs timed per round, and pairs of runs (100 calls, no calls) for the sequential call. */
const TRIVIAL_RUNS = 100;
const LOOP_PAIRS = 25;

/** The middle value (the upper one of an even count). */
export const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

/** Times `samples` samples of `batch` calls of fn each: the time per call of each sample, in ms. */
async function sample(samples, batch, fn) {
  const times = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    for (let j = 0; j < batch; j++) await fn();
    times.push((performance.now() - started) / batch);
  }
  return times;
}

/** One round of the four measures for one executor: { trivial (ms), perCallUs, fan (ms), rate (runs/s) }. */
export async function measure(executor, { batch = 1, step = () => {} } = {}) {
  const { run, code } = executor;
  step("trivial runs");
  await sample(20, 1, () => run(code.trivial, 2));
  const trivial = median(await sample(TRIVIAL_RUNS / batch, batch, () => run(code.trivial, 2)));
  step("sequential calls");
  const withCalls = [];
  const withoutCalls = [];
  for (let i = 0; i < LOOP_PAIRS / batch; i++) {
    withCalls.push(...(await sample(1, batch, () => run(code.loop(CALLS), CALLS))));
    withoutCalls.push(...(await sample(1, batch, () => run(code.loop(0), 0))));
  }
  const perCallUs = ((median(withCalls) - median(withoutCalls)) / CALLS) * 1000;
  step("fan-out");
  const fan = median(await sample(3, 1, () => run(code.fan, 100)));
  step("throughput");
  const total = 300;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next++ < total) await run(code.trivial, 2);
    }),
  );
  const rate = total / ((performance.now() - started) / 1000);
  return { trivial, perCallUs, fan, rate };
}
