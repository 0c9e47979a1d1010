// A run's time against the calls it makes: N sequential `add` calls, each awaited (checked: the run's
// value is N), on the in-process isolate and the default environment; the median of a few runs per
// size, after one that is not counted.

import { type CodeMode, codeMode, SANDBOX_HOST_DEFAULTS, sandboxHostEnvironment } from "cordon";
import { isolateEnvironment } from "cordon/in-process";
import { expectRun } from "../../check.js";
import { median } from "../../stats.js";
import { findBend } from "../bend.js";
import { describeBend } from "../cause.js";
import { type Curve, cell, type Sample, sizes } from "../curve.js";
import { startProbe } from "../probe.js";
import { add, sequential } from "./tools.js";

/** Runs timed per size: fewer for the long ones. */
const runsFor = (n: number) => (n >= 10_000 ? 3 : n >= 1_000 ? 5 : 15);

/** The calls curve: a run's time against its sequential calls, per environment. */
export async function callsCurve(): Promise<Curve> {
  const levels = sizes("calls", [1, 10, 100, 1_000, 10_000], [1, 10, 100, 1_000]);
  const limits = { maxToolCalls: Math.max(...levels) };
  const subjects: { name: string; make: () => CodeMode; processLimit?: number }[] = [
    { name: "in-process", make: () => codeMode({ tools: [add], environment: isolateEnvironment(), limits }) },
    {
      name: "default",
      make: () => codeMode({ tools: [add], environment: sandboxHostEnvironment(), limits }),
      processLimit: SANDBOX_HOST_DEFAULTS.maxProcesses,
    },
  ];
  const series: Record<string, Sample[]> = {};
  const rows: string[][] = [];
  const bends: string[] = [];
  for (const subject of subjects) {
    const cm = subject.make();
    const samples: Sample[] = [];
    try {
      for (const n of levels) {
        process.stderr.write(`bench-scale: ${n} calls per run, ${subject.name}\n`);
        const what = `${subject.name}: a run of ${n} calls`;
        expectRun(await cm.run(sequential(n)), n, what);
        const probe = startProbe();
        const times: number[] = [];
        for (let i = 0; i < runsFor(n); i++) {
          const started = performance.now();
          expectRun(await cm.run(sequential(n)), n, what);
          times.push(performance.now() - started);
        }
        const signals = probe.stop(subject.processLimit ? { processLimit: subject.processLimit } : {});
        const ms = median(times);
        samples.push({ x: n, y: ms, signals });
        rows.push([subject.name, n.toLocaleString("en-US"), cell(ms, 2), cell((ms * 1000) / n, 1)]);
      }
    } finally {
      await cm.close();
    }
    series[`${subject.name}: ms per run`] = samples;
    const signalsAt = (x: number) => samples.find((s) => s.x === x)?.signals;
    bends.push(
      `${subject.name}: ${describeBend(findBend(samples), { per: "calls per run", cost: (v) => `${(v * 1000).toFixed(1)} µs` }, signalsAt, { from: levels[0]!, to: levels.at(-1)! })}`,
    );
  }
  return {
    id: "calls",
    title: "a run's time against the sequential calls it makes",
    series,
    charts: [
      {
        file: "scale-calls.svg",
        spec: {
          title: "A run's time against its sequential tool calls",
          xLabel: "calls per run",
          yLabel: "ms per run",
          logX: true,
          logY: true,
          series: Object.entries(series).map(([name, points]) => ({ name, points })),
        },
      },
    ],
    table: { columns: ["environment", "calls", "ms per run", "µs per call"], rows },
    bends,
  };
}
