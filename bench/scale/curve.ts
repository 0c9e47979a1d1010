// What each curve of `make bench-scale` hands back: its series (with what was measured at each size),
// the charts to draw, a printed table, and one line per series on where it bends and why.

import type { Signals } from "./cause.js";
import type { LineChartSpec } from "./svg.js";

/** One size of one series: the figure, and what the machine did meanwhile. */
export interface Sample {
  x: number;
  y: number;
  signals?: Signals;
}

/** A curve's results. */
export interface Curve {
  id: string;
  /** What the curve measures, one sentence. */
  title: string;
  /** Named series of figures (e.g. "in-process: runs/s"). */
  series: Record<string, Sample[]>;
  /** Charts to write, each to docs/charts/<file>. */
  charts: { file: string; spec: LineChartSpec }[];
  /** The printed table: a header and rows. */
  table: { columns: string[]; rows: string[][] };
  /** Where each series bends and what was measured there (or that it does not). */
  bends: string[];
}

/** Sizes of a curve: `CORDON_SCALE_<NAME>=1,4,16` overrides, `CORDON_SCALE=quick` picks the small set. */
export function sizes(name: string, full: number[], quick: number[]): number[] {
  const override = process.env[`CORDON_SCALE_${name.toUpperCase()}`];
  if (override) {
    const parsed = override.split(",").map((s) => Number(s.trim()));
    if (parsed.some((n) => !Number.isInteger(n) || n < 0)) {
      throw new Error(
        `CORDON_SCALE_${name.toUpperCase()}=${override}: give whole numbers separated by commas, e.g. 1,10,100`,
      );
    }
    return parsed;
  }
  return process.env.CORDON_SCALE === "quick" ? quick : full;
}

/** The value at percentile `p` (0-100) of a list. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** A number for a table cell: thousands separated, to `digits` decimals under 100. */
export const cell = (value: number, digits = 1) =>
  value < 100 ? value.toFixed(digits) : Math.round(value).toLocaleString("en-US");
