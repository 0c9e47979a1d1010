// Memory against idle sessions: resident memory of this process and its sandbox-host processes after
// N sessions each ran once and keep their sandbox (a session's state lives on), after a forced garbage
// collection. Three series: the in-process isolate, the default environment as it comes (a session is a
// tenant, and tenants do not share a sandbox-host process: it holds at most maxProcesses sessions, so
// its sizes stop there, and one session more is tried, waiting the default 30 s for a process, to show the refusal), and the default with
// `shareProcesses: true`, then with `lanes: false` too. A session the environment refuses ends its series with the refusal (a limit
// measured), and, with lanes off, every sandbox shares a process as memory budgets allow. Needs --expose-gc.

import { type CodeMode, codeMode, SANDBOX_HOST_DEFAULTS, sandboxHostEnvironment } from "cordon";
import { isolateEnvironment } from "cordon/in-process";
import { expectRun } from "../../check.js";
import { findBend } from "../bend.js";
import { describeBend } from "../cause.js";
import { type Curve, cell, type Sample, sizes } from "../curve.js";
import { startProbe, treeRssMb } from "../probe.js";
import { add } from "./tools.js";

const CODE = "var data = Array.from({ length: 100 }, (_, i) => i); data.length";

const settle = async () => {
  for (let i = 0; i < 3; i++) {
    global.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/**
 * Opens sessions up to each size and reads the memory there. A session that cannot be opened (the
 * environment refused it) ends the series at the size before, with the refusal as its last word: a
 * limit measured, never a figure.
 */
async function sessionSeries(
  name: string,
  cm: CodeMode,
  levels: number[],
): Promise<{ samples: Sample[]; refused?: string }> {
  const samples: Sample[] = [];
  let open = 0;
  for (const size of levels) {
    process.stderr.write(`bench-scale: ${size} idle sessions, ${name}\n`);
    const probe = startProbe();
    for (; open < size; open++) {
      const result = await cm.run(CODE, { session: `s${open}` });
      if (result.error?.name === "SandboxError" && /could not be started/.test(result.error.message)) {
        return {
          samples,
          refused: `session ${open + 1} was refused: ${result.error.message.split(". ")[0]}`,
        };
      }
      expectRun(result, 100, `${name}: session ${open + 1}`);
    }
    await settle();
    const signals = probe.stop({ processLimit: SANDBOX_HOST_DEFAULTS.maxProcesses });
    samples.push({ x: size, y: treeRssMb(), signals });
  }
  return { samples };
}

/** The sessions curve: memory against idle sessions, per environment. */
export async function sessionsCurve(): Promise<Curve> {
  if (!global.gc) throw new Error("bench-scale: the sessions curve needs node --expose-gc");
  const levels = sizes("sessions", [1, 10, 100, 1_000], [1, 10, 50]);
  const limit = SANDBOX_HOST_DEFAULTS.maxProcesses;
  const defaultLevels = [...new Set([1, 2, 4, limit].filter((n) => n <= limit))];
  const max = Math.max(...levels);
  const subjects: { name: string; levels: number[]; make: () => CodeMode }[] = [
    {
      name: "in-process",
      levels,
      make: () =>
        codeMode({ tools: [add], environment: isolateEnvironment(), state: "session", sessions: { max } }),
    },
    {
      name: "default",
      levels: [...defaultLevels, limit + 1],
      make: () =>
        codeMode({
          tools: [add],
          environment: sandboxHostEnvironment(),
          state: "session",
          sessions: { max },
        }),
    },
    {
      name: "default, shareProcesses",
      levels,
      make: () =>
        codeMode({
          tools: [add],
          environment: sandboxHostEnvironment({ shareProcesses: true }),
          state: "session",
          sessions: { max },
        }),
    },
    {
      name: "default, shareProcesses, no lanes",
      levels,
      make: () =>
        codeMode({
          tools: [add],
          environment: sandboxHostEnvironment({ shareProcesses: true, lanes: false }),
          state: "session",
          sessions: { max },
        }),
    },
  ];
  const series: Record<string, Sample[]> = {};
  const rows: string[][] = [];
  const bends: string[] = [];
  for (const subject of subjects) {
    const cm = subject.make();
    try {
      const { samples, refused } = await sessionSeries(subject.name, cm, subject.levels);
      series[`${subject.name}: RSS MB`] = samples;
      samples.forEach((s, i) => {
        const before = samples[i - 1];
        rows.push([
          subject.name,
          s.x.toLocaleString("en-US"),
          cell(s.y, 0),
          before ? cell((s.y - before.y) / (s.x - before.x), 2) : "",
          String(s.signals?.processes ?? 0),
        ]);
      });
      const signalsAt = (x: number) => samples.find((s) => s.x === x)?.signals;
      if (samples.length > 1)
        bends.push(
          `${subject.name}: memory ${describeBend(findBend(samples), { per: "sessions", cost: (v) => `${v.toFixed(2)} MB` }, signalsAt, { from: samples[0]!.x, to: samples.at(-1)!.x }, "memory")}`,
        );
      if (refused) bends.push(`${subject.name}: ${refused}`);
    } finally {
      await cm.close();
    }
  }
  const chartSeries = Object.entries(series).map(([name, points]) => ({ name, points }));
  return {
    id: "sessions",
    title: "memory (RSS of the agent and its sandbox-host processes) against idle sessions",
    series,
    charts: [
      {
        file: "scale-sessions-memory.svg",
        spec: {
          title: "Memory against idle sessions (agent + sandbox-host processes)",
          xLabel: "idle sessions",
          yLabel: "RSS, MB",
          logX: true,
          series: chartSeries,
        },
      },
    ],
    table: {
      columns: [
        "environment",
        "sessions",
        "RSS MB",
        "MB per session more (from the size before)",
        "processes",
      ],
      rows,
    },
    bends,
  };
}
