// Code mode on isolated-vm: what a run costs, what a proxied call adds, how fan-out scales, how many runs
// per second two cores give, and what a live session weighs. Figures and ratios, not pass/fail.
// Run: make bench (it measures the built package: "cordon" resolves to dist/).

import { codeMode, Dispatcher, isolateEnvironment, Toolset, tool } from "cordon";
import ivm from "isolated-vm";
import { z } from "zod";
import { fmt, median, sample } from "./stats.js";

const add = tool({
  name: "add",
  description: "Add.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});
const sleep = tool({
  name: "sleep",
  description: "Sleep 10 ms.",
  input: z.object({}),
  run: () => new Promise((resolve) => setTimeout(resolve, 10)),
});
const toolset = new Toolset([add, sleep]);
const dispatcher = new Dispatcher(toolset);
const cm = codeMode({ tools: toolset, dispatcher, environment: isolateEnvironment() });

// 1. A trivial run against a bare isolate create + eval + dispose. Plain JavaScript skips esbuild, so a
// trivial TypeScript run (through esbuild) is shown too; and a run without warm spares (`warm: 0`: the
// isolate, context and prelude are made while the run waits).
const bare = async () => {
  const isolate = new ivm.Isolate({ memoryLimit: 128 });
  const context = await isolate.createContext();
  await context.eval("1 + 1");
  context.release();
  isolate.dispose();
};
const cold = codeMode({ tools: toolset, dispatcher, environment: isolateEnvironment({ warm: 0 }) });
const TS = "const x: number = 1; x + 1";
const trivial = {
  js: () => cm.run("1 + 1"),
  ts: () => cm.run(TS),
  cold: () => cold.run("1 + 1"),
};
await sample(20, bare);
for (const run of Object.values(trivial)) await sample(20, run);
const bareMedian = median(await sample(200, bare));
const runMedian = median(await sample(200, trivial.js));
const tsMedian = median(await sample(200, trivial.ts));
const coldMedian = median(await sample(200, trivial.cold));
await cold.close();
const ratio = (value: number) => `ratio ${(value / bareMedian).toFixed(2)}x`;
console.log("trivial run_code (no tool calls) vs a bare isolated-vm isolate create + eval + dispose");
console.log(`  bare isolate:  ${fmt(bareMedian / 1000, "ms")} median`);
console.log(
  `  run_code:      ${fmt(runMedian / 1000, "ms")} median, ${ratio(runMedian)} (aim: <= 2x)  [1 + 1]`,
);
console.log(
  `  TypeScript:    ${fmt(tsMedian / 1000, "ms")} median, ${ratio(tsMedian)}  [${TS}, through esbuild]`,
);
console.log(
  `  no warm spare: ${fmt(coldMedian / 1000, "ms")} median, ${ratio(coldMedian)}  [1 + 1, warm: 0]`,
);

// 2. A proxied call against a direct dispatcher call.
const CALLS = 500;
const loop = `let s = 0; for (let i = 0; i < ${CALLS}; i++) s = await tools.add({ a: s, b: 1 }); s`;
const empty = `let s = 0; for (let i = 0; i < ${CALLS}; i++) s = s + 1; s`;
const direct = median(
  await sample(2_000, () =>
    dispatcher.dispatch([{ id: "c", name: "add", arguments: { a: 1, b: 2 } }]).results(),
  ),
);
const withCalls = median(await sample(15, () => cm.run(loop)));
const withoutCalls = median(await sample(15, () => cm.run(empty)));
const perProxied = (withCalls - withoutCalls) / CALLS;
console.log("proxied call (tools.add from code, sequential) vs a direct dispatcher call");
console.log(`  direct dispatch:   ${fmt(direct, "µs")} per call`);
console.log(
  `  proxied call:      ${fmt(perProxied, "µs")} per call, ${fmt(perProxied - direct, "µs")} added (aim: < 60 µs)`,
);

// 3. Fan-out: 100 calls in one Promise.all, each sleeping 10 ms.
const fan = median(
  await sample(5, () => cm.run("await Promise.all(Array.from({ length: 100 }, () => tools.sleep({}))); 1")),
);
console.log(
  `fan-out: 100 calls x 10 ms in one Promise.all: ${fmt(fan / 1000, "ms")} wall vs 1,000 ms serial (${(1000 / (fan / 1000)).toFixed(1)}x faster; ${cm.limits.maxConcurrentCalls} at once)`,
);

// 4. Throughput: concurrent trivial runs in one process (isolated-vm runs isolates on its own threads).
for (const concurrency of [1, 2, 4]) {
  const total = 200;
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < total) await cm.run("let x = 0; for (let i = 0; i < 1e4; i++) x += i; x");
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  console.log(`throughput: ${concurrency} concurrent: ${Math.round(total / seconds)} runs/s`);
}
await cm.close();

// 5. Memory per live session.
const sessions = codeMode({
  tools: toolset,
  environment: isolateEnvironment(),
  state: "session",
  maxSessions: 1_000,
});
global.gc?.();
const before = process.memoryUsage().rss;
const SESSIONS = 50;
for (let i = 0; i < SESSIONS; i++)
  await sessions.run("var data = Array.from({ length: 100 }, (_, i) => i);", { session: `s${i}` });
global.gc?.();
const after = process.memoryUsage().rss;
console.log(
  `memory: ${SESSIONS} live sessions add ${fmt((after - before) / 1024 / 1024, "MB")} RSS, ${fmt((after - before) / SESSIONS / 1024 / 1024, "MB")} per session`,
);
await sessions.close();
