// make bench-check: a report, not a test. Runs a fast subset of make bench (bench/dispatch.ts,
// bench/codemode.ts and bench/containment.ts: the dispatcher, code mode in-process and the default
// environment; CORDON_BENCH_CHECK=dispatch,codemode picks fewer), each recording its figures
// (bench/figures.ts), then prints each figure beside the one of record in docs/measurements.json (the
// table of docs/measurements.md) as a ratio where above 1 is worse, flagging any worse than 1.25x. Exits
// 0 unless a benchmark itself failed. Run: make bench-check (on the built package).

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { compareFigures, comparisonLines, type RecordedFigure } from "./check-figures-compare.js";
import type { Figure } from "./figures.js";

const BENCHES: Record<string, string[]> = {
  dispatch: ["bench/dispatch.ts"],
  codemode: ["--expose-gc", "bench/codemode.ts"],
  containment: ["bench/containment.ts"],
};
const THRESHOLD = 1.25;
const chosen = (process.env.CORDON_BENCH_CHECK ?? Object.keys(BENCHES).join(","))
  .split(",")
  .map((s) => s.trim());
const unknown = chosen.filter((name) => !(name in BENCHES));
if (unknown.length > 0) {
  console.error(
    `CORDON_BENCH_CHECK names no benchmark ${unknown.join(", ")}: choose among ${Object.keys(BENCHES).join(", ")}`,
  );
  process.exit(2);
}

const recorded = (
  JSON.parse(readFileSync("docs/measurements.json", "utf8")) as { figures: Record<string, RecordedFigure> }
).figures;
const dir = mkdtempSync(join(tmpdir(), "cordon-bench-check-"));
const file = join(dir, "figures.jsonl");
const loadAtStart = loadavg()[0]!.toFixed(1);
let failed: string | undefined;
try {
  for (const name of chosen) {
    const [...args] = BENCHES[name]!;
    const script = args.pop()!;
    console.log(`bench-check: ${script}`);
    const run = spawnSync(process.execPath, ["--no-node-snapshot", ...args, "--import", "tsx", script], {
      stdio: "inherit",
      env: { ...process.env, CORDON_BENCH_FIGURES: file, TSX_TSCONFIG_PATH: "tsconfig.build.json" },
    });
    if (run.status !== 0) {
      failed = `${script} failed (exit ${run.status ?? run.signal}): no figures from it are compared`;
      break;
    }
  }
  let fresh: Figure[] = [];
  try {
    fresh = readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Figure);
  } catch {
    // No benchmark recorded anything (the first one failed).
  }
  const comparisons = compareFigures(recorded, fresh, THRESHOLD);
  console.log(
    `\nbench-check: this run against the figures of record (docs/measurements.json; above 1x is worse; load average ${loadAtStart} at the start, ${loadavg()[0]!.toFixed(1)} at the end, on this machine's ${availableParallelism()} cores)`,
  );
  for (const line of comparisonLines(comparisons, THRESHOLD)) console.log(line);
  const flagged = comparisons.filter((c) => c.flagged).length;
  console.log(
    `bench-check: ${flagged} of ${comparisons.length} figures worse than ${THRESHOLD}x (a report, not a test)`,
  );
  const busiest = Math.max(Number(loadAtStart), loadavg()[0]!);
  if (busiest > availableParallelism()) {
    console.log(
      `bench-check: the machine was busy (load average up to ${busiest.toFixed(1)} on ${availableParallelism()} cores) while the figures of record were taken with nothing else running: rerun on a quiet machine before reading a flag as a regression`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (failed) {
  console.error(`bench-check: ${failed}`);
  process.exit(1);
}
