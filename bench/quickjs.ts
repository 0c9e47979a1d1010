// The QuickJS environment against the default (the sandbox-host process, on Node) and the in-process
// isolate, in the same run: a trivial run, a sequential proxied call, a fan-out of 100 calls with
// Promise.all, a compute loop and the memory a live sandbox holds, every run checked. A sequential call is
// what one more call adds to a run: the median of 200-call runs less the median of empty runs, in
// alternating pairs, over 200 (each run also opens a sandbox, which the trivial run shows apart); the
// whole run divided by its calls, and the span from the run's first call to its last divided by the calls
// between (no sandbox opened in it), are printed beside it. Figures twice: with the machine idle, and with
// another core kept awake by a spinning worker thread. Warm-up runs come first (V8 tiers up QuickJS's
// WebAssembly as it runs). With the machine idle, the CPU time of one more call is printed too (every
// thread of this process and of the sandbox-host processes): it holds when other work on the machine
// stretches the wall-clock figures. Run: make bench (it measures the built package).

import { readdirSync, readFileSync } from "node:fs";
import {
  type CodeMode,
  codeMode,
  Dispatcher,
  type Environment,
  sandboxHostEnvironment,
  Toolset,
  tool,
} from "cordon";
import { isolateEnvironment } from "cordon/in-process";
import { quickjsEnvironment } from "cordon/quickjs";
import { z } from "zod";
import { sandboxChildren } from "../test/sandbox-host/children.js";
import { checked, expectRun, keepOtherCoreAwake } from "./check.js";
import { fmt, median, sample } from "./stats.js";

const add = tool({
  name: "add",
  description: "Add.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => {
    // The sequential run's first and last calls (a is the running sum): the span between them.
    if (a === 0) inRun.first = { wall: performance.now() * 1_000, cpu: cpuMicros() };
    else if (a === CALLS - 1) inRun.last = { wall: performance.now() * 1_000, cpu: cpuMicros() };
    return a + b;
  },
});
/** When the sequential run's first and last calls reached the tool, in µs (wall clock, CPU time). */
const inRun = { first: { wall: 0, cpu: 0 }, last: { wall: 0, cpu: 0 } };
const dispatcher = new Dispatcher(new Toolset([add]));
const CALLS = 200;
const FAN_OUT = 100;
const limits = { maxToolCalls: CALLS, cpuTimeMs: 60_000, timeoutMs: 60_000 };
const environments = {
  isolate: isolateEnvironment,
  default: sandboxHostEnvironment,
  quickjs: quickjsEnvironment,
};
type Engine = keyof typeof environments;
const engines = Object.fromEntries(
  Object.entries(environments).map(([name, environment]) => [
    name,
    codeMode({ dispatcher, environment: environment(), limits }),
  ]),
) as Record<Engine, CodeMode>;

const SEQUENTIAL = `let s = 0; for (let i = 0; i < ${CALLS}; i++) s = await tools.add({ a: s, b: 1 }); s`;
const FAN = `(await Promise.all(Array.from({ length: ${FAN_OUT} }, (_, i) => tools.add({ a: i, b: 1 })))).reduce((x, y) => x + y, 0)`;
const COMPUTE = "let h = 0; for (let i = 0; i < 1_000_000; i++) h = (h * 31 + i) % 1_000_003; h";
const computeValue = (() => {
  let h = 0;
  for (let i = 0; i < 1_000_000; i++) h = (h * 31 + i) % 1_000_003;
  return h;
})();
const cases = [
  { name: "trivial run (1 + 1)", code: "1 + 1", value: 2, warmups: 30, samples: 60 },
  {
    name: `fan-out of ${FAN_OUT} (Promise.all)`,
    code: FAN,
    value: (FAN_OUT * (FAN_OUT + 1)) / 2,
    warmups: 10,
    samples: 20,
  },
  {
    name: "compute loop (1,000,000 iterations)",
    code: COMPUTE,
    value: computeValue,
    warmups: 3,
    samples: 5,
  },
];

/** One line: each engine's figure (in µs) and QuickJS's ratio to each of the others. */
function line(name: string, figures: Record<Engine, number>): string {
  const unit = figures.isolate < 1_000 ? "µs" : "ms";
  const shown = (micros: number) => fmt(unit === "µs" ? micros : micros / 1_000, unit);
  const ratio = (other: number) => `${(figures.quickjs / other).toFixed(2)}x`;
  return (
    `  ${name}: isolate ${shown(figures.isolate)}, default ${shown(figures.default)}, quickjs ` +
    `${shown(figures.quickjs)}; quickjs/isolate ${ratio(figures.isolate)}, quickjs/default ${ratio(figures.default)}`
  );
}

async function measure(state: string): Promise<void> {
  console.log(`QuickJS against the in-process isolate and the default (sandbox host), ${state}, medians:`);
  for (const { name, code, value, warmups, samples } of cases) {
    const figures = {} as Record<Engine, number>;
    for (const [engine, cm] of Object.entries(engines) as [Engine, CodeMode][]) {
      const run = checked(() => cm.run(code), value, `${name} on ${engine}`);
      // V8 compiles QuickJS's WebAssembly in tiers: its optimized code comes after some thousands of calls.
      await sample(warmups, run);
      figures[engine] = median(await sample(samples, run));
    }
    console.log(line(name, figures));
  }
  const perCall = {} as Record<Engine, number>;
  const wholeRun = {} as Record<Engine, number>;
  const cpuPerCall = {} as Record<Engine, number>;
  const spanPerCall = {} as Record<Engine, number>;
  const spanCpuPerCall = {} as Record<Engine, number>;
  for (const [engine, cm] of Object.entries(engines) as [Engine, CodeMode][]) {
    const calls = checked(() => cm.run(SEQUENTIAL), CALLS, `sequential calls on ${engine}`);
    const empty = checked(() => cm.run("0"), 0, `empty run on ${engine}`);
    await sample(15, calls);
    const withCalls: number[] = [];
    const without: number[] = [];
    const cpuWith: number[] = [];
    const cpuWithout: number[] = [];
    const spanWall: number[] = [];
    const spanCpu: number[] = [];
    for (let i = 0; i < 15; i++) {
      let cpu = cpuMicros();
      withCalls.push(...(await sample(1, calls)));
      cpuWith.push(cpuMicros() - cpu);
      spanWall.push((inRun.last.wall - inRun.first.wall) / (CALLS - 1));
      spanCpu.push((inRun.last.cpu - inRun.first.cpu) / (CALLS - 1));
      cpu = cpuMicros();
      without.push(...(await sample(1, empty)));
      cpuWithout.push(cpuMicros() - cpu);
    }
    perCall[engine] = (median(withCalls) - median(without)) / CALLS;
    wholeRun[engine] = median(withCalls) / CALLS;
    cpuPerCall[engine] = (median(cpuWith) - median(cpuWithout)) / CALLS;
    spanPerCall[engine] = median(spanWall);
    spanCpuPerCall[engine] = median(spanCpu);
  }
  console.log(line(`sequential call (one more call in a run, ${CALLS}-call runs less empty ones)`, perCall));
  console.log(line(`  the ${CALLS}-call run divided by its calls (a sandbox opened included)`, wholeRun));
  console.log(
    line("  from the run's first call to its last, per call (no sandbox opened in the span)", spanPerCall),
  );
  if (cpuCounted) {
    console.log(
      line("  CPU time of one more call (threads of this process and the sandbox host's)", cpuPerCall),
    );
    console.log(line("  CPU time per call from the run's first call to its last", spanCpuPerCall));
  }
}

/** False while a spinning worker thread of this process keeps a core awake: its CPU time is not the runs'. */
let cpuCounted = true;

/**
 * CPU time used so far, in µs, by every thread of this process and of the sandbox-host processes (the
 * scheduler's own count, /proc/<pid>/task/<tid>/schedstat, Linux).
 */
function cpuMicros(): number {
  let ns = 0;
  for (const pid of [process.pid, ...sandboxChildren()]) {
    try {
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        try {
          ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
        } catch {
          // The thread ended while read.
        }
      }
    } catch {
      // The process ended while read.
    }
  }
  return ns / 1_000;
}

/** The resident memory of this process and of the sandbox-host processes, in MB, after a collection. */
function residentMb(): number {
  global.gc?.();
  let children = 0;
  for (const pid of sandboxChildren()) {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    children += Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0) / 1024;
  }
  return process.memoryUsage.rss() / 2 ** 20 + children;
}

/**
 * What a live sandbox holds: sessions that each ran once and keep their sandbox, on a fresh
 * environment. The default places each on a process of its own (at most 8, one kept for other tenants).
 */
async function memoryPerSandbox(): Promise<void> {
  const figures = {} as Record<Engine, number>;
  for (const [engine, environment] of Object.entries(environments) as [Engine, () => Environment][]) {
    const count = engine === "default" ? 6 : 100;
    const sessions = codeMode({
      dispatcher,
      environment: environment(),
      state: "session",
      sessions: { max: 1_000 },
    });
    expectRun(await sessions.run("1", { session: "warm-up" }), 1, "warm-up session");
    const before = residentMb();
    for (let i = 0; i < count; i++) {
      const code = "var data = Array.from({ length: 100 }, (_, i) => i); data.length";
      expectRun(await sessions.run(code, { session: `s${i}` }), 100, `session run on ${engine}`);
    }
    figures[engine] = ((residentMb() - before) / count) * 1_000;
    await sessions.close();
  }
  const shown = (kb: number) => fmt(kb / 1_000, "MB");
  console.log(
    `memory per live sandbox (RSS after a forced garbage collection, the sandbox-host processes' included): ` +
      `isolate ${shown(figures.isolate)}, default ${shown(figures.default)}, quickjs ${shown(figures.quickjs)}`,
  );
}

// First, while this process holds little garbage that a collection could hand back meanwhile.
await memoryPerSandbox();
await measure("machine idle");
const awake = keepOtherCoreAwake();
cpuCounted = false;
try {
  await measure("another core kept awake by a spinning worker thread");
} finally {
  await awake.stop();
}
await Promise.all(Object.values(engines).map((cm) => cm.close()));
