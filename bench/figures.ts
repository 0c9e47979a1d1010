// The figures a benchmark hands to `make bench-check`: when CORDON_BENCH_FIGURES names a file, each
// recorded figure is appended to it as one JSON line; otherwise recording does nothing. bench/check-figures.ts
// compares them with the figures of record in docs/measurements.json.

import { appendFileSync } from "node:fs";

/** Which way a figure improves. */
export type Better = "lower" | "higher";

/** One figure as recorded: its id (as in docs/measurements.json), value, unit and which way is better. */
export interface Figure {
  id: string;
  value: number;
  unit: string;
  better: Better;
}

/** Records one figure for `make bench-check` (a no-op unless CORDON_BENCH_FIGURES is set). */
export function recordFigure(id: string, value: number, unit: string, better: Better = "lower"): void {
  const file = process.env.CORDON_BENCH_FIGURES;
  if (!file) return;
  const figure: Figure = { id, value, unit, better };
  appendFileSync(file, `${JSON.stringify(figure)}\n`);
}
