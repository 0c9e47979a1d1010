// 10,000 runs in each environment: does anything grow? RSS, threads and handles of this process (and of
// the sandbox-host processes, for the default environment), after a warm-up, every 2,000 runs, and at the
// end. RSS rises while heaps and allocators settle (the sandbox-host processes' for about 8,000 runs;
// nothing forces their garbage collection) and then moves in a band as isolates are reused and retired,
// so the warm-up is 10,000 runs and the readings between show the band. Every run is checked; figures,
// not pass/fail.
// Run: make bench (it measures the built package: "cordon" resolves to dist/).

import { readFileSync } from "node:fs";
import { codeMode, sandboxHostEnvironment, tool } from "cordon";
import { isolateEnvironment } from "cordon/in-process";
import { z } from "zod";
import { sandboxChildren } from "../test/sandbox-host/children.js";
import { expectRun } from "./check.js";
import { fmt } from "./stats.js";

const RUNS = Number(process.env.CORDON_LEAK_RUNS ?? 10_000);
const WARM_UP = 10_000;
const EVERY = 2_000;
const add = tool({
  name: "add",
  description: "Add.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});
const code = "const r = await tools.add({ a: 20, b: 1 }); console.log(r); r * 2";

interface Reading {
  rssMb: number;
  threads: number;
  handles: number;
  childRssMb: number;
  childThreads: number;
}

for (const [name, environment] of [
  ["in-process isolate", isolateEnvironment()],
  ["sandbox host (default)", sandboxHostEnvironment()],
] as const) {
  const cm = codeMode({ tools: [add], environment });
  const runs = async (count: number) => {
    for (let i = 0; i < count; i++) expectRun(await cm.run(code), 42, `${name}: leak check run`);
  };
  await runs(WARM_UP);
  const start = reading();
  const band: Reading[] = [start];
  const started = performance.now();
  for (let done = 0; done < RUNS; done += EVERY) {
    await runs(Math.min(EVERY, RUNS - done));
    band.push(reading());
  }
  const seconds = (performance.now() - started) / 1000;
  const end = band[band.length - 1]!;
  await cm.close();
  const growth = (a: number, b: number) =>
    `${fmt(a, "")}→ ${fmt(b, "")}(${a === 0 ? "n/a" : `${(((b - a) / a) * 100).toFixed(1)}%`})`;
  console.log(
    `leak check: ${name}, ${RUNS.toLocaleString("en-US")} runs after ${WARM_UP.toLocaleString("en-US")} to warm up (${fmt(seconds, "s")}, every run checked)`,
  );
  console.log(
    `  this process: RSS MB ${growth(start.rssMb, end.rssMb)}, threads ${start.threads} → ${end.threads}, handles ${start.handles} → ${end.handles}`,
  );
  const series = (pick: (r: Reading) => number) => band.map((r) => pick(r).toFixed(0)).join(", ");
  console.log(
    `  this process's RSS MB every ${EVERY.toLocaleString("en-US")} runs: ${series((r) => r.rssMb)}`,
  );
  if (name.startsWith("sandbox")) {
    console.log(
      `  sandbox-host processes' RSS MB every ${EVERY.toLocaleString("en-US")} runs: ${series((r) => r.childRssMb)}`,
    );
    console.log(
      `  sandbox-host processes: RSS MB ${growth(start.childRssMb, end.childRssMb)}, threads ${start.childThreads} → ${end.childThreads}`,
    );
  }
}

function reading(): Reading {
  global.gc?.();
  let childRss = 0;
  let childThreads = 0;
  for (const pid of sandboxChildren()) {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    childRss += Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0) / 1024;
    childThreads += Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 0);
  }
  const status = readFileSync("/proc/self/status", "utf8");
  return {
    rssMb: process.memoryUsage.rss() / 2 ** 20,
    threads: Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 0),
    handles: (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().length,
    childRssMb: childRss,
    childThreads,
  };
}
