// What crash containment costs: the default environment (isolates in supervised sandbox-host processes)
// against the in-process isolate, measured in the same run. Every measured run is checked.
// Run: make bench (it measures the built package: "cordon" resolves to dist/).

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
}

await measure("idle machine: cores sleep between hops");
const awake = keepOtherCoreAwake();
try {
  await measure("another core kept awake by a spinning worker thread");
} finally {
  await awake.stop();
}
for (const cm of Object.values(modes)) await cm.close();
