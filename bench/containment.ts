// What crash containment costs: the default environment (isolates in supervised sandbox-host processes)
// against the in-process isolate, measured in the same run, and what a bare round trip between two Node
// processes over pipes costs (the least one process boundary can add to a call). Every measured run is
// checked.
// Run: make bench (it measures the built package: "cordon" resolves to dist/).

import { spawn } from "node:child_process";
import { once } from "node:events";
import { codeMode, isolateEnvironment, sandboxHostEnvironment, Toolset, tool } from "cordon";
import { z } from "zod";
import { checked, keepOtherCoreAwake } from "./check.js";
import { fmt, median, sample } from "./stats.js";

const add = tool({
  name: "add",
  description: "Add.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});
const toolset = new Toolset([add]);
const CALLS = 200;
const limits = { maxToolCalls: CALLS };
const modes = {
  "in-process isolate": codeMode({ tools: toolset, limits, environment: isolateEnvironment() }),
  "sandbox host (default)": codeMode({ tools: toolset, limits, environment: sandboxHostEnvironment() }),
};

const loop = `let s = 0; for (let i = 0; i < ${CALLS}; i++) s = await tools.add({ a: s, b: 1 }); s`;
const empty = `let s = 0; for (let i = 0; i < ${CALLS}; i++) s = s + 1; s`;

async function measure(state: string) {
  const figures: Record<string, { trivial: number; perCall: number }> = {};
  for (const [name, cm] of Object.entries(modes)) {
    const trivial = checked(() => cm.run("1 + 1"), 2, `${name}: trivial run`);
    const withCalls = checked(() => cm.run(loop), CALLS, `${name}: ${CALLS} sequential calls`);
    const withoutCalls = checked(() => cm.run(empty), CALLS, `${name}: the same loop without calls`);
    await sample(30, trivial);
    await sample(3, withCalls);
    const trivialMedian = median(await sample(300, trivial));
    const perCall = (median(await sample(15, withCalls)) - median(await sample(15, withoutCalls))) / CALLS;
    figures[name] = { trivial: trivialMedian, perCall };
  }
  const pipeTrip = await pipeRoundTrip(2_000);
  const [inProcess, hosted] = Object.values(figures) as [
    { trivial: number; perCall: number },
    { trivial: number; perCall: number },
  ];
  console.log(`containment cost (${state})`);
  for (const [name, f] of Object.entries(figures)) {
    console.log(
      `  ${name.padEnd(24)} trivial run ${fmt(f.trivial / 1000, "ms")}, sequential proxied call ${fmt(f.perCall, "µs")}`,
    );
  }
  console.log(
    `  ratio default / in-process: trivial run ${(hosted.trivial / inProcess.trivial).toFixed(2)}x (aim: <= 2x), per call ${(hosted.perCall / inProcess.perCall).toFixed(2)}x, +${fmt(hosted.perCall - inProcess.perCall, "µs")} per call (one extra round trip between processes)`,
  );
  console.log(
    `  a bare round trip of one JSON line between two Node processes over pipes: ${fmt(pipeTrip, "µs")} (the per-call difference is ${((hosted.perCall - inProcess.perCall) / pipeTrip).toFixed(2)}x of it)`,
  );
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

await measure("idle machine: cores sleep between hops");
const awake = keepOtherCoreAwake();
try {
  await measure("another core kept awake by a spinning worker thread");
} finally {
  await awake.stop();
}
for (const cm of Object.values(modes)) await cm.close();
