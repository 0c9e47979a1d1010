// The sandbox-host process's peak-memory watch, on this test process's own memory: a spike is a real
// buffer filled and dropped, as one huge value the code builds and drops is in a sandbox-host process.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import {
  PEAK_ALLOWANCE_BYTES_PER_CHAR,
  PEAK_ALLOWANCE_EXTRA_MB,
  PEAK_ALLOWANCE_FACTOR,
  peakAllowanceMb,
  processGauge,
  processPeakWatch,
} from "../../sandbox/program/peak-memory.js";

const SPIKE_MB = 300;

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

/** How long a spike's memory may take to be given back before the test says so instead of measuring. */
const RETURN_TIMEOUT_MS = 10_000;

/**
 * Fills SPIKE_MB of memory and lets it go, as a value that is garbage at once; collected at once too,
 * and waited for until the process's resident memory is back where it was. V8 may free a large buffer's
 * memory after `gc()` returns (its array-buffer sweeper runs beside the main thread); the next window
 * would then open with this spike still resident and the next spike would only reach the same peak, which
 * the watch rightly does not blame on the run.
 */
function spike(): void {
  const beforeMb = processGauge.residentMb();
  Buffer.alloc(SPIKE_MB * 2 ** 20, 1);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + RETURN_TIMEOUT_MS;
  for (;;) {
    collectGarbage();
    if (processGauge.residentMb() < beforeMb + SPIKE_MB / 4) return;
    if (Date.now() > deadline) {
      throw new Error(
        `the spike's ${SPIKE_MB} MB were still resident ${RETURN_TIMEOUT_MS} ms after it was dropped: the windows below cannot be measured`,
      );
    }
    Atomics.wait(pause, 0, 0, 5);
  }
}

/** A watch that records what it would end the process for. */
function watchRecordingShared(budgetMb?: number) {
  const shared: string[] = [];
  const options = budgetMb === undefined ? {} : { budgetMb };
  return { watch: processPeakWatch((reason) => shared.push(reason), options), shared };
}

describe("sandbox-host: the process's peak memory over each run", () => {
  it("allows a run its heap limit times the factor, plus the extra", () => {
    expect(peakAllowanceMb(128)).toBe(Math.ceil(128 * PEAK_ALLOWANCE_FACTOR + PEAK_ALLOWANCE_EXTRA_MB));
    expect(peakAllowanceMb(8)).toBeLessThan(SPIKE_MB);
  });

  it("a run alone in its window whose spike passed its allowance is told by how much", () => {
    const { watch, shared } = watchRecordingShared();
    const run = watch.begin(8);
    spike();
    const overrun = run.passed();
    run.end();
    expect(overrun?.allowedMb).toBe(peakAllowanceMb(8));
    expect(overrun?.roseMb).toBeGreaterThanOrEqual(SPIKE_MB - 20);
    expect(shared).toEqual([]);
  });

  it("a quiet run after a spiking one is not blamed: each window measures from its own start", () => {
    expect(processGauge.resetPeak()).toBe(true);
    const { watch } = watchRecordingShared();
    const loud = watch.begin(8);
    spike();
    expect(loud.passed()).toBeDefined();
    loud.end();
    const quiet = watch.begin(8);
    expect(quiet.passed()).toBeUndefined();
    quiet.end();
  });

  it("a spike while two runs share the window blames neither and asks for the process to end", () => {
    const { watch, shared } = watchRecordingShared();
    const first = watch.begin(8);
    const second = watch.begin(8);
    spike();
    expect(second.passed()).toBeUndefined();
    second.end();
    first.end();
    expect(shared).toHaveLength(1);
    expect(shared[0]).toMatch(/^memory: this process's peak rose \d+ MB while 2 sandboxes ran in it/);
  });

  it("messages a run exchanged with the host raise its allowance by what they cost this process", () => {
    const { watch } = watchRecordingShared();
    const chatty = watch.begin(8);
    const chars = 2 * SPIKE_MB * 2 ** 20;
    chatty.crossed(chars);
    spike();
    expect(chatty.passed()).toBeUndefined();
    chatty.end();
    const quiet = watch.begin(8);
    quiet.crossed(2 ** 20);
    spike();
    expect(quiet.passed()?.allowedMb).toBe(peakAllowanceMb(8) + Math.ceil(PEAK_ALLOWANCE_BYTES_PER_CHAR));
    quiet.end();
    expect(chars * PEAK_ALLOWANCE_BYTES_PER_CHAR).toBeGreaterThan(SPIKE_MB * 2 ** 20);
  });

  it("the window closes when its last run ends: the next run is alone in a window of its own", () => {
    const { watch, shared } = watchRecordingShared();
    const first = watch.begin(8);
    const second = watch.begin(8);
    first.end();
    second.end();
    second.end();
    const third = watch.begin(8);
    spike();
    expect(third.passed()).toMatchObject({ allowedMb: peakAllowanceMb(8) });
    third.end();
    expect(shared).toEqual([]);
  });

  it("a run that passed the process's budget and gave the memory back before it ended still ends the process", () => {
    const budgetMb = Math.round(processGauge.residentMb() + SPIKE_MB / 2);
    const { watch, shared } = watchRecordingShared(budgetMb);
    const run = watch.begin(1024);
    spike();
    expect(processGauge.residentMb()).toBeLessThan(budgetMb);
    expect(run.passed()).toBeUndefined();
    run.end();
    expect(shared).toHaveLength(1);
    expect(shared[0]).toMatch(
      new RegExp(`^memory: the process used \\d+ MB, over its budget of ${budgetMb} MB$`),
    );
  });

  it("a run whose window stayed within the process's budget does not end it", () => {
    const budgetMb = Math.round(processGauge.residentMb() + SPIKE_MB * 2);
    const { watch, shared } = watchRecordingShared(budgetMb);
    const run = watch.begin(1024);
    spike();
    expect(run.passed()).toBeUndefined();
    run.end();
    expect(shared).toEqual([]);
  });
});
