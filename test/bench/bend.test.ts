// Where a curve of make bench-scale bends, found from its data, and the cause named from what was measured.
import { describe, expect, it } from "vitest";
import { findBend, levelsOffAt, marginalCosts } from "../../bench/scale/bend.js";
import { causeOf, describeBend, type Signals } from "../../bench/scale/cause.js";

const quiet: Signals = {
  cpuCores: 0.6,
  waitingForCpu: 0.1,
  cores: 2,
  loadAverage: 0.4,
  gcShare: 0.01,
  rssMb: 300,
};

describe("findBend", () => {
  it("finds the first size where the marginal cost per unit grows past twice every one before it", () => {
    // 1 ms per unit up to 100, then 5 ms per unit.
    const points = [1, 10, 100, 1_000].map((x) => ({ x, y: x <= 100 ? x : 100 + 5 * (x - 100) }));
    expect(findBend(points)).toMatchObject({ x: 1_000, previousX: 100, before: 1, at: 5, growth: 5 });
  });

  it("finds the knee of a latency curve that is flat, then grows with the runs at once", () => {
    const latency = [
      { x: 1, y: 1.0 },
      { x: 2, y: 1.02 },
      { x: 4, y: 1.05 },
      { x: 8, y: 2.1 },
      { x: 16, y: 4.2 },
    ];
    expect(findBend(latency)?.x).toBe(8);
  });

  it("finds no bend on a straight line with noise, nor on a flattening curve", () => {
    const noisy = [1, 10, 100, 1_000, 10_000].map((x, i) => ({ x, y: 50 + 0.7 * x * (i % 2 ? 1.3 : 0.8) }));
    expect(findBend(noisy)).toBeUndefined();
    expect(findBend([1, 10, 100, 1_000].map((x) => ({ x, y: Math.log10(x) + 1 })))).toBeUndefined();
  });

  it("does not call noise on a flat curve a bend: the figure itself must rise by a fifth", () => {
    expect(
      findBend([
        { x: 1, y: 100 },
        { x: 10, y: 100.1 },
        { x: 100, y: 101 },
      ]),
    ).toBeUndefined();
  });

  it("takes the marginal cost between consecutive sizes, in any order given", () => {
    expect(
      marginalCosts([
        { x: 10, y: 30 },
        { x: 1, y: 3 },
      ]),
    ).toEqual([{ x: 10, y: 3 }]);
  });
});

describe("levelsOffAt", () => {
  it("is the first size that reaches 90% of the peak rate", () => {
    const rate = [1, 4, 16, 64].map((x, i) => ({ x, y: [400, 900, 1_000, 980][i]! }));
    expect(levelsOffAt(rate)).toEqual({ x: 4, y: 900 });
  });
});

describe("causeOf", () => {
  it("names the CPU when this process and its children use nearly every core", () => {
    expect(causeOf({ ...quiet, cpuCores: 1.9 })).toMatch(/^CPU: .* used 1\.90 of the 2 cores/);
  });

  it("names the process limit when every sandbox-host process the environment may start is up", () => {
    expect(causeOf({ ...quiet, processes: 8, processLimit: 8 })).toMatch(
      /^a process limit: 8 sandbox-host processes/,
    );
  });

  it("names the processes started when there are more sandbox-host processes than the size before", () => {
    expect(causeOf({ ...quiet, processes: 4, rssMb: 400 }, { ...quiet, processes: 2, rssMb: 290 })).toBe(
      "more sandbox-host processes: 2 -> 4 (RSS 290 -> 400 MB; CPU 0.60 of 2 cores)",
    );
  });

  it("names garbage collection when it takes a fifth of the time and more than the size before", () => {
    expect(causeOf({ ...quiet, gcShare: 0.3 }, { ...quiet, gcShare: 0.05 })).toMatch(
      /^garbage collection: 30%/,
    );
  });

  it("names other work's load when the machine is busy and this process's threads waited for a core", () => {
    expect(causeOf({ ...quiet, loadAverage: 6, waitingForCpu: 1.2 })).toBe(
      "CPU taken by other work: load average 6.0 on 2 cores; this used 0.60 and its threads waited 1.20 cores' worth for a core",
    );
  });

  it("does not blame other work when the threads did not wait for a core on a busy machine", () => {
    expect(causeOf({ ...quiet, loadAverage: 6 })).toMatch(/^none of the limits measured/);
  });

  it("says the runs were waiting, not computing, when they neither ran nor waited for a core", () => {
    expect(causeOf({ ...quiet, cpuCores: 0.1, waitingForCpu: 0.05 })).toMatch(
      /^waiting, not computing: CPU 0\.10 of 2 cores and threads waited 0\.05/,
    );
  });

  it("names processes started, not CPU, for a memory curve on a busy machine", () => {
    const busy = { ...quiet, loadAverage: 9, waitingForCpu: 1.5 };
    expect(causeOf({ ...busy, processes: 8, rssMb: 900 }, { ...busy, processes: 2 }, "memory")).toBe(
      "more sandbox-host processes: 2 -> 8 (RSS 300 -> 900 MB)",
    );
    expect(causeOf({ ...busy, processes: 2, rssMb: 400 }, { ...busy, processes: 2 }, "memory")).toMatch(
      /^what each unit keeps in the 2 sandbox-host processes there were already \(RSS 300 -> 400 MB\)/,
    );
  });

  it("says when none of the measured limits was met", () => {
    expect(causeOf(quiet)).toMatch(/^none of the limits measured: CPU 0\.60 of 2 cores/);
  });
});

describe("describeBend", () => {
  const unit = { per: "runs at once", cost: (v: number) => `${v} ms` };
  it("states the bend's size, the growth of the marginal cost and the cause measured there", () => {
    const line = describeBend(
      { x: 8, previousX: 4, before: 0.1, at: 0.5, growth: 5 },
      unit,
      () => ({ ...quiet, cpuCores: 2 }),
      { from: 1, to: 16 },
    );
    expect(line).toBe(
      "bends at 8 runs at once: the marginal cost grows 5.0x (0.1 ms -> 0.5 ms per one more); measured there: CPU: the agent and its sandbox-host processes used 2.00 of the 2 cores",
    );
  });

  it("says there is no bend over the range measured", () => {
    expect(describeBend(undefined, unit, () => undefined, { from: 1, to: 256 })).toMatch(
      /^no bend from 1 to 256 runs at once/,
    );
  });
});
