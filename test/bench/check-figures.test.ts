// make bench-check's comparison: each fresh figure against the one of record, above 1x worse whichever
// way the figure improves, flagged past 1.25x.
import { describe, expect, it } from "vitest";
import { compareFigures, comparisonLines, type RecordedFigure } from "../../bench/check-figures-compare.js";

const recorded: Record<string, RecordedFigure> = {
  call: { value: 20, unit: "µs", better: "lower", row: "a call" },
  rate: { value: 1_000, unit: "runs/s", better: "higher", row: "runs" },
  memory: { value: 0.7, unit: "MB", better: "lower", row: "memory" },
};

describe("compareFigures", () => {
  it("divides fresh by recorded for a time, recorded by fresh for a rate, and flags past 1.25x", () => {
    const comparisons = compareFigures(recorded, [
      { id: "call", value: 30, unit: "µs", better: "lower" },
      { id: "rate", value: 900, unit: "runs/s", better: "higher" },
    ]);
    expect(comparisons).toEqual([
      { id: "call", recorded: 20, fresh: 30, unit: "µs", worseBy: 1.5, flagged: true },
      { id: "rate", recorded: 1_000, fresh: 900, unit: "runs/s", worseBy: 1_000 / 900, flagged: false },
      { id: "memory", recorded: 0.7, unit: "MB", flagged: false },
    ]);
  });

  it("takes the last figure a run recorded under an id", () => {
    const [call] = compareFigures({ call: recorded.call! }, [
      { id: "call", value: 40, unit: "µs", better: "lower" },
      { id: "call", value: 22, unit: "µs", better: "lower" },
    ]);
    expect(call?.fresh).toBe(22);
  });
});

describe("comparisonLines", () => {
  it("prints a ratio per figure, a flag on the worse ones, and says which were not measured", () => {
    const lines = comparisonLines(
      compareFigures(recorded, [
        { id: "call", value: 30, unit: "µs", better: "lower" },
        { id: "rate", value: 1_100, unit: "runs/s", better: "higher" },
      ]),
    );
    expect(lines[0]).toMatch(/call .*recorded +20\.0 µs +fresh +30\.0 µs +1\.50x +WORSE than 1\.25x$/);
    expect(lines[1]).toMatch(/rate .*0\.91x$/);
    expect(lines[2]).toMatch(/memory .*fresh: not measured by this run$/);
  });
});
