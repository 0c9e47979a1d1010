// How cordon's cost grows (make bench-scale): runs/s and latency against runs at once, memory against
// idle sessions, a run's time against its calls, tools.$search against the catalog's size, and
// checkpoint/journal size and resume time against recorded calls. Each curve prints a table and where it
// bends with what was measured there; the series go to docs/charts/scale.json and the charts to
// docs/charts/*.svg. Every timed run is checked for its status and value; a failed one stops the bench.
// Options (environment): CORDON_SCALE=quick (small sizes), CORDON_SCALE_<CURVE>=1,4,16 (a curve's
// sizes), CORDON_SCALE_CURVES=concurrency,calls (which curves), CORDON_SCALE_OUT=dir (where to write),
// CORDON_SCALE_REDRAW=1 (draw the charts again from the last run's series, measuring nothing).
// Run: make bench-scale (the built package: "cordon" resolves to dist/; needs --expose-gc).

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import type { Curve } from "./curve.js";
import { callsCurve } from "./curves/calls.js";
import { concurrencyCurve } from "./curves/concurrency.js";
import { journalCurve } from "./curves/journal.js";
import { searchCurve } from "./curves/search.js";
import { sessionsCurve } from "./curves/sessions.js";
import { lineChart } from "./svg.js";

const CURVES: Record<string, () => Promise<Curve>> = {
  concurrency: concurrencyCurve,
  sessions: sessionsCurve,
  calls: callsCurve,
  search: searchCurve,
  journal: journalCurve,
};
const chosen = (process.env.CORDON_SCALE_CURVES ?? Object.keys(CURVES).join(","))
  .split(",")
  .map((s) => s.trim());
const unknown = chosen.filter((name) => !(name in CURVES));
if (unknown.length > 0) {
  throw new Error(
    `CORDON_SCALE_CURVES names no curve ${unknown.join(", ")}: choose among ${Object.keys(CURVES).join(", ")}`,
  );
}
const out = process.env.CORDON_SCALE_OUT ?? "docs/charts";
const file = join(out, "scale.json");

// CORDON_SCALE_REDRAW=1: draw the charts again from the series of the last run, measuring nothing.
if (process.env.CORDON_SCALE_REDRAW === "1") {
  const { curves } = JSON.parse(readFileSync(file, "utf8")) as { curves: Curve[] };
  for (const chart of curves.flatMap((c) => c.charts))
    writeFileSync(join(out, chart.file), lineChart(chart.spec));
  console.log(`bench-scale: ${curves.length} curves drawn again from ${file}`);
  process.exit(0);
}

function printTable(curve: Curve): void {
  const { columns, rows } = curve.table;
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    `  ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")}`;
  console.log(`\n${curve.title}`);
  console.log(line(columns));
  for (const row of rows) console.log(line(row));
  for (const bend of curve.bends) console.log(`  - ${bend}`);
}

const machine = {
  date: new Date().toISOString(),
  node: process.version,
  cores: availableParallelism(),
  loadAverageAtStart: loadavg().map((n) => Number(n.toFixed(2))),
  sizes: process.env.CORDON_SCALE === "quick" ? "quick" : "full",
};
console.log(
  `bench-scale on ${machine.cores} cores, Node ${machine.node}, load average at start ${machine.loadAverageAtStart.join(" / ")} (1/5/15 min)`,
);
const curves: Curve[] = [];
for (const name of chosen) {
  const curve = await CURVES[name]!();
  printTable(curve);
  curves.push(curve);
}
mkdirSync(out, { recursive: true });
for (const curve of curves) {
  for (const chart of curve.charts) writeFileSync(join(out, chart.file), lineChart(chart.spec));
}
const loadAverageAtEnd = loadavg().map((n) => Number(n.toFixed(2)));
// A run of some curves keeps the others' series of the last run (each curve says when it was measured).
const measured = curves.map((curve) => ({ ...curve, machine: { ...machine, loadAverageAtEnd } }));
const kept = existsSync(file)
  ? (JSON.parse(readFileSync(file, "utf8")) as { curves: Curve[] }).curves.filter(
      (old) => !chosen.includes(old.id) && old.id in CURVES,
    )
  : [];
const order = Object.keys(CURVES);
const all = [...kept, ...measured].sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
writeFileSync(file, `${JSON.stringify({ curves: all }, null, 1)}\n`);
console.log(
  `\nbench-scale: load average at the end ${loadAverageAtEnd.join(" / ")}; series in ${join(out, "scale.json")}, charts: ${curves.flatMap((c) => c.charts.map((ch) => join(out, ch.file))).join(", ")}`,
);
process.exit(0);
