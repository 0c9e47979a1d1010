// The comparison of make bench-check: each figure of a fresh run against the figure of record
// (docs/measurements.json), as a ratio where above 1 is worse whichever way the figure improves, flagged
// past a threshold. Pure: bench/check-figures.ts runs the benchmarks and prints what this returns.

import type { Better, Figure } from "./figures.js";

/** A figure of record, as docs/measurements.json keeps it. */
export interface RecordedFigure {
  value: number;
  unit: string;
  better: Better;
  row: string;
}

/** One line of the comparison. */
export interface Comparison {
  id: string;
  recorded: number;
  fresh?: number;
  unit: string;
  /** fresh / recorded for a figure better lower, recorded / fresh for one better higher: above 1 is worse. */
  worseBy?: number;
  flagged: boolean;
}

/** Compares fresh figures (the last of each id) with the recorded ones, flagging any worse than `threshold`. */
export function compareFigures(
  recorded: Record<string, RecordedFigure>,
  fresh: readonly Figure[],
  threshold = 1.25,
): Comparison[] {
  const latest = new Map(fresh.map((f) => [f.id, f.value]));
  return Object.entries(recorded).map(([id, r]) => {
    const value = latest.get(id);
    if (value === undefined) return { id, recorded: r.value, unit: r.unit, flagged: false };
    const worseBy = r.better === "lower" ? value / r.value : r.value / value;
    return { id, recorded: r.value, fresh: value, unit: r.unit, worseBy, flagged: worseBy > threshold };
  });
}

/** The comparison as printed lines: id, recorded, fresh, ratio, and a flag past the threshold. */
export function comparisonLines(comparisons: readonly Comparison[], threshold = 1.25): string[] {
  const width = Math.max(...comparisons.map((c) => c.id.length));
  const num = (n: number) => (n < 100 ? n.toFixed(n < 10 ? 2 : 1) : Math.round(n).toLocaleString("en-US"));
  return comparisons.map((c) => {
    const head = `  ${c.id.padEnd(width)}  recorded ${`${num(c.recorded)} ${c.unit}`.padStart(14)}`;
    if (c.fresh === undefined || c.worseBy === undefined) return `${head}  fresh: not measured by this run`;
    const flag = c.flagged ? `  WORSE than ${threshold}x` : "";
    return `${head}  fresh ${`${num(c.fresh)} ${c.unit}`.padStart(14)}  ${c.worseBy.toFixed(2)}x${flag}`;
  });
}
