// Runs per second and each run's latency (p50, p99) against how many runs are under way at once, on the
// in-process isolate and on the default environment (sandbox-host processes). Each run makes one tool
// call (`return await tools.add({ a: 1, b: 2 })`, checked to be 3). At each size, `concurrency` workers
// take runs from a shared count until it is spent; CPU use of this process and its sandbox-host
// processes is read over the same time.

import { type CodeMode, codeMode, SANDBOX_HOST_DEFAULTS, sandboxHostEnvironment } from "cordon";
import { isolateEnvironment } from "cordon/in-process";
import { expectRun } from "../../check.js";
import { findBend, levelsOffAt } from "../bend.js";
import { causeOf, describeBend } from "../cause.js";
import { type Curve, cell, percentile, type Sample, sizes } from "../curve.js";
import { startProbe } from "../probe.js";
import { add } from "./tools.js";

const CODE = "return await tools.add({ a: 1, b: 2 })";

interface Environment {
  name: string;
  make: () => CodeMode;
  processLimit?: number;
}

const ENVIRONMENTS: Environment[] = [
  { name: "in-process", make: () => codeMode({ tools: [add], environment: isolateEnvironment() }) },
  {
    name: "default",
    make: () => codeMode({ tools: [add], environment: sandboxHostEnvironment() }),
    processLimit: SANDBOX_HOST_DEFAULTS.maxProcesses,
  },
];

async function atConcurrency(cm: CodeMode, concurrency: number, total: number) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < total) {
        const began = performance.now();
        expectRun(await cm.run(CODE), 3, `concurrency ${concurrency}`);
        latencies.push(performance.now() - began);
      }
    }),
  );
  return { rate: total / ((performance.now() - started) / 1000), latencies };
}

/** The concurrency curve for each environment. */
export async function concurrencyCurve(): Promise<Curve> {
  const levels = sizes("concurrency", [1, 4, 16, 64, 256], [1, 4, 16]);
  const series: Record<string, Sample[]> = {};
  const rows: string[][] = [];
  const bends: string[] = [];
  for (const env of ENVIRONMENTS) {
    const cm = env.make();
    const rate: Sample[] = [];
    const p50: Sample[] = [];
    const p99: Sample[] = [];
    try {
      await atConcurrency(cm, 4, 100); // warm: pools filled, code compiled
      for (const c of levels) {
        process.stderr.write(`bench-scale: concurrency ${c}, ${env.name}\n`);
        const probe = startProbe();
        const measured = await atConcurrency(cm, c, Math.max(300, 4 * c));
        const signals = probe.stop(env.processLimit !== undefined ? { processLimit: env.processLimit } : {});
        rate.push({ x: c, y: measured.rate, signals });
        p50.push({ x: c, y: percentile(measured.latencies, 50), signals });
        p99.push({ x: c, y: percentile(measured.latencies, 99), signals });
        rows.push([
          env.name,
          String(c),
          cell(measured.rate, 0),
          cell(p50.at(-1)!.y, 2),
          cell(p99.at(-1)!.y, 2),
          signals.cpuCores.toFixed(2),
          signals.waitingForCpu.toFixed(2),
          String(signals.processes ?? 0),
          signals.loadAverage.toFixed(1),
        ]);
      }
    } finally {
      await cm.close();
    }
    series[`${env.name}: runs/s`] = rate;
    series[`${env.name}: p50 ms`] = p50;
    series[`${env.name}: p99 ms`] = p99;
    const level = levelsOffAt(rate);
    const signalsAt = (x: number) => p50.find((s) => s.x === x)?.signals;
    if (level) {
      const at = signalsAt(level.x);
      bends.push(
        `${env.name}: runs/s levels off at ${level.x} at once (${Math.round(level.y)} runs/s, 90% of the peak ${Math.round(Math.max(...rate.map((r) => r.y)))}); measured there: ${at ? causeOf(at) : "-"}`,
      );
    }
    bends.push(
      `${env.name}: p50 latency ${describeBend(findBend(p50), { per: "runs at once", cost: (v) => `${v.toFixed(3)} ms` }, signalsAt, { from: levels[0]!, to: levels.at(-1)! })}`,
    );
  }
  const pick = (suffix: string) =>
    Object.entries(series)
      .filter(([name]) => name.endsWith(suffix))
      .map(([name, points]) => ({ name, points }));
  return {
    id: "concurrency",
    title: "runs/s and latency against runs at once (one tool call per run)",
    series,
    charts: [
      {
        file: "scale-concurrency-throughput.svg",
        spec: {
          title: "Runs per second against runs at once (one tool call each)",
          xLabel: "runs at once",
          yLabel: "runs/s",
          logX: true,
          series: pick("runs/s"),
        },
      },
      {
        file: "scale-concurrency-latency.svg",
        spec: {
          title: "A run's latency against runs at once (p50 and p99)",
          xLabel: "runs at once",
          yLabel: "ms per run",
          logX: true,
          logY: true,
          series: [
            ...pick("p50 ms").map((s, i) => ({ ...s, colour: i })),
            ...pick("p99 ms").map((s, i) => ({ ...s, colour: i, dashed: true })),
          ],
        },
      },
    ],
    table: {
      columns: [
        "environment",
        "at once",
        "runs/s",
        "p50 ms",
        "p99 ms",
        "CPU cores",
        "waited for a core",
        "processes",
        "load",
      ],
      rows,
    },
    bends,
  };
}
