// What crash containment costs: the default environment (isolates in supervised sandbox-host processes)
// against the in-process isolate, measured in the same run; what a sequential proxied call in the
// default environment costs against its floor, the bare parts it is made of, each measured in the same
// run (an isolated-vm round trip, a round trip of one JSON line between two Node processes over pipes,
// and a direct dispatcher call); the round trip of the "worker lane" prototype (bench/lane.ts), which
// the default's lane (sandbox/program/lane.ts) was built from; and the CPU time each call takes, in
// this process and in the sandbox-host processes together. Every measured run is checked.
// Run: make bench (it measures the built package: "cordon" resolves to dist/).

import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { codeMode, Dispatcher, sandboxHostEnvironment, Toolset, tool } from "cordon";
import { isolateEnvironment } from "cordon/in-process";
import { z } from "zod";
import { sandboxChildren } from "../test/sandbox-host/children.js";
import { checked, directAddMicros } from "./check.js";
import { recordFigure } from "./figures.js";
import { laneRoundTrip } from "./lane.js";
import { bareRoundTrip } from "./round-trip.js";
import { fmt, median, sample } from "./stats.js";

const add = tool({
  name: "add",
  description: "Add.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});
const toolset = new Toolset([add]);
const dispatcher = new Dispatcher(toolset);
const CALLS = 200;
const limits = { maxToolCalls: CALLS };
const modes = {
  "in-process isolate": codeMode({ dispatcher, limits, environment: isolateEnvironment() }),
  "sandbox host (default)": codeMode({
    dispatcher,
    limits,
    environment: sandboxHostEnvironment(),
  }),
};

const loop = `let s = 0; for (let i = 0; i < ${CALLS}; i++) s = await tools.add({ a: s, b: 1 }); s`;
const empty = `let s = 0; for (let i = 0; i < ${CALLS}; i++) s = s + 1; s`;
const ROUNDS = 25;

interface Figures {
  trivial: number;
  perCall: number;
  /**
   * CPU time per call, in µs: this process's, and the sandbox-host processes' together, each with the
   * share of its main thread (the rest is isolated-vm's threads and Node's own).
   */
  cpuHere: number;
  cpuHereMain: number;
  cpuChildren: number;
  cpuChildrenMain: number;
}

async function measure(state: string, key: "idle" | "awake") {
  const figures: Record<string, Figures> = {};
  // The floor is timed before and after the calls and the two are averaged, for the same reason.
  const floorBefore = await floorParts();
  for (const [name, cm] of Object.entries(modes)) {
    const trivial = checked(() => cm.run("1 + 1"), 2, `${name}: trivial run`);
    const withCalls = checked(() => cm.run(loop), CALLS, `${name}: ${CALLS} sequential calls`);
    const withoutCalls = checked(() => cm.run(empty), CALLS, `${name}: the same loop without calls`);
    await sample(30, trivial);
    await sample(3, withCalls);
    const trivialMedian = median(await sample(300, trivial));
    // The runs with calls and without alternate, so that the machine's drift reaches both alike.
    const times = { with: [] as number[], without: [] as number[] };
    const cpu = { here: 0, hereMain: 0, children: 0, childrenMain: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [kind, run, sign] of [
        ["with", withCalls, 1],
        ["without", withoutCalls, -1],
      ] as const) {
        const before = cpuNow();
        times[kind].push(...(await sample(1, run)));
        const after = cpuNow();
        for (const key of ["here", "hereMain", "children", "childrenMain"] as const) {
          cpu[key] += sign * (after[key] - before[key]);
        }
      }
    }
    figures[name] = {
      trivial: trivialMedian,
      perCall: (median(times.with) - median(times.without)) / CALLS,
      cpuHere: cpu.here / 1_000 / (ROUNDS * CALLS),
      cpuHereMain: cpu.hereMain / 1_000 / (ROUNDS * CALLS),
      cpuChildren: cpu.children / 1_000 / (ROUNDS * CALLS),
      cpuChildrenMain: cpu.childrenMain / 1_000 / (ROUNDS * CALLS),
    };
  }
  const floorAfter = await floorParts();
  const floor = {
    ivmAsync: (floorBefore.ivmAsync + floorAfter.ivmAsync) / 2,
    ivmSync: (floorBefore.ivmSync + floorAfter.ivmSync) / 2,
    pipe: (floorBefore.pipe + floorAfter.pipe) / 2,
    direct: (floorBefore.direct + floorAfter.direct) / 2,
    lane: (floorBefore.lane + floorAfter.lane) / 2,
  };
  const [inProcess, hosted] = Object.values(figures) as [Figures, Figures];
  recordFigure(`containment.defaultCall.${key}`, hosted.perCall, "µs");
  recordFigure(`containment.defaultTrivialRatio.${key}`, hosted.trivial / inProcess.trivial, "x");
  console.log(`containment cost (${state})`);
  for (const [name, f] of Object.entries(figures)) {
    console.log(
      `  ${name.padEnd(24)} trivial run ${fmt(f.trivial / 1000, "ms")}, sequential proxied call ${fmt(f.perCall, "µs")} (CPU per call: ${fmt(f.cpuHere, "µs")} here, ${fmt(f.cpuHereMain, "µs")} of it on the main thread, + ${fmt(f.cpuChildren, "µs")} in sandbox-host processes, ${fmt(f.cpuChildrenMain, "µs")} of it on their main threads)`,
    );
  }
  console.log(
    `  ratio default / in-process: trivial run ${(hosted.trivial / inProcess.trivial).toFixed(2)}x (aim: <= 2x), per call ${(hosted.perCall / inProcess.perCall).toFixed(2)}x, +${fmt(hosted.perCall - inProcess.perCall, "µs")} per call (one extra round trip between processes)`,
  );
  console.log(
    `  a bare round trip of one JSON line between two Node processes over pipes: ${fmt(floor.pipe, "µs")} (the per-call difference is ${((hosted.perCall - inProcess.perCall) / floor.pipe).toFixed(2)}x of it)`,
  );
  const sum = floor.ivmAsync + floor.pipe + floor.direct;
  const syncSum = floor.ivmSync + floor.pipe + floor.direct;
  console.log(
    `  the default's floor: bare isolated-vm async round trip ${fmt(floor.ivmAsync, "µs")} + that pipe round trip + direct dispatcher call ${fmt(floor.direct, "µs")} = ${fmt(sum, "µs")}; its sequential call is ${(hosted.perCall / sum).toFixed(2)}x of it (aim: <= 1.2x)`,
  );
  console.log(
    `  with a bare applySyncPromise round trip (${fmt(floor.ivmSync, "µs")}, the crossing the call makes) in its place: ${fmt(syncSum, "µs")}, ${(hosted.perCall / syncSum).toFixed(2)}x`,
  );
  console.log(
    `  the worker-lane prototype's call (isolate run by a worker thread of the child, blocking on its own pipe; no dispatch): ${fmt(floor.lane, "µs")}, ${(floor.lane / floor.pipe).toFixed(2)}x the bare pipe round trip; with the direct dispatcher call: ${fmt(floor.lane + floor.direct, "µs")}, ${((floor.lane + floor.direct) / hosted.perCall).toFixed(2)}x the default's call of this run`,
  );
}

/** The bare parts of a proxied call in the default environment, each timed alone (medians, µs). */
async function floorParts(): Promise<{
  ivmAsync: number;
  ivmSync: number;
  pipe: number;
  direct: number;
  lane: number;
}> {
  const asyncTrip = await bareRoundTrip(async (s) => s + 1);
  const syncTrip = await bareRoundTrip(async (s) => s + 1, "applySyncPromise");
  try {
    const ivmAsync = median(await sample(ROUNDS, () => asyncTrip.run(CALLS))) / CALLS;
    const ivmSync = median(await sample(ROUNDS, () => syncTrip.run(CALLS))) / CALLS;
    const direct = await directAddMicros(dispatcher);
    const pipe = await pipeRoundTrip(2_000);
    return { ivmAsync, ivmSync, pipe, direct, lane: await laneRoundTrip(CALLS, ROUNDS) };
  } finally {
    asyncTrip.dispose();
    syncTrip.dispose();
  }
}

/**
 * CPU time used so far, in ns, by this process's threads and by its sandbox-host processes', each with
 * its main thread's share (the scheduler's own count, per thread: /proc/<pid>/task/<tid>/schedstat,
 * Linux; a process's main thread has the process's id).
 */
function cpuNow(): { here: number; hereMain: number; children: number; childrenMain: number } {
  const used = (pid: number) => {
    const ns = { all: 0, main: 0 };
    try {
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        try {
          const spent = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
          ns.all += spent;
          if (tid === String(pid)) ns.main += spent;
        } catch {
          // The thread ended while read.
        }
      }
    } catch {
      // The process ended while read.
    }
    return ns;
  };
  const here = used(process.pid);
  let children = 0;
  let childrenMain = 0;
  for (const pid of sandboxChildren()) {
    const child = used(pid);
    children += child.all;
    childrenMain += child.main;
  }
  return { here: here.all, hereMain: here.main, children, childrenMain };
}

/**
 * The median time of one line written to a child Node process that echoes it back over its stdio pipes:
 * what any sandbox in another process adds to a call, at the least.
 */
async function pipeRoundTrip(trips: number): Promise<number> {
  const echo = "process.stdin.on('data', (chunk) => process.stdout.write(chunk));";
  const child = spawn(process.execPath, ["-e", echo], { stdio: ["pipe", "pipe", "inherit"] });
  const line = `${JSON.stringify({ type: "call", run: 1, call: 1, tool: "add", args: '{"a":1,"b":2}' })}\n`;
  const times: number[] = [];
  try {
    for (let i = 0; i < trips; i++) {
      const started = performance.now();
      child.stdin.write(line);
      const [chunk] = (await once(child.stdout, "data")) as [Buffer];
      if (chunk.toString() !== line) throw new Error("pipe round trip: the child echoed something else");
      times.push((performance.now() - started) * 1000);
    }
  } finally {
    child.kill();
  }
  return median(times);
}

/**
 * Keeps another core busy with a spinning process (not a thread of this one, whose CPU time is
 * measured) until `stop()`.
 */
function keepOtherCoreAwake(): { stop(): Promise<void> } {
  const spinner = spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
  return {
    stop: async () => {
      spinner.kill("SIGKILL");
      await once(spinner, "exit");
    },
  };
}

await measure("idle machine: cores sleep between hops", "idle");
const awake = keepOtherCoreAwake();
try {
  await measure("another core kept awake by a spinning process", "awake");
} finally {
  await awake.stop();
}
await spikes();
for (const cm of Object.values(modes)) await cm.close();

/**
 * One allocation past the heap limit that is garbage at once (docs/environments.md, "Memory past the heap limit"): how far it
 * raises the sandbox process's memory, from the MemoryLimit report of the default environment, which must
 * stop it; a run that ends any other way stops the benchmark.
 */
async function spikes(): Promise<void> {
  const memoryMb = 128;
  const cm = codeMode({
    tools: toolset,
    limits: { memoryMb, cpuTimeMs: 60_000, timeoutMs: 120_000 },
    environment: sandboxHostEnvironment(),
  });
  const attacks = {
    '"x".repeat(2 ** 26).split("").length': 'return "x".repeat(2 ** 26).split("").length;',
    "new Array(2 ** 25).fill(0).length": "return new Array(2 ** 25).fill(0).length;",
  };
  console.log(`one allocation past a ${memoryMb} MB heap limit, garbage at once (default environment)`);
  try {
    for (const [what, code] of Object.entries(attacks)) {
      const result = await cm.run(code);
      const rose =
        /raised the sandbox process's memory by (\d+) MB where a run within that limit stays under (\d+) MB/.exec(
          result.error?.message ?? "",
        );
      if (result.status === "ok" || result.error?.name !== "MemoryLimit" || !rose) {
        throw new Error(
          `${what}: expected a MemoryLimit from the peak watch, got ${JSON.stringify(result.error ?? result.status)}`,
        );
      }
      console.log(
        `  ${what}: stopped, MemoryLimit; the process's peak rose ${rose[1]} MB (allowed ${rose[2]} MB)`,
      );
    }
  } finally {
    await cm.close();
  }
}
