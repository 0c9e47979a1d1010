// Code mode on the in-process isolate (where the aims are set, as the peers run in-process): a trivial
// run against a bare isolated-vm isolate, a sequential proxied call against a bare isolated-vm round trip
// plus a direct dispatcher call, fan-out, throughput at 1/2/4 concurrent runs (against bare isolated-vm),
// and what a live session weighs. Ratios are measured in the same run; every measured run is checked
// and a failed one stops the benchmark. Run: make bench (it measures the built package: "cordon" resolves to dist/).

import { codeMode, Dispatcher, Toolset, tool } from "cordon";
import { isolateEnvironment } from "cordon/in-process";
import ivm from "isolated-vm";
import { z } from "zod";
import { checked, directAddMicros, expectRun, keepOtherCoreAwake } from "./check.js";
import { recordFigure } from "./figures.js";
import { bareRoundTrip, inThreadRoundTrip } from "./round-trip.js";
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
  run: () => new Promise((resolve) => setTimeout(() => resolve(10), 10)),
});
const toolset = new Toolset([add, sleep]);
const dispatcher = new Dispatcher(toolset);
const CALLS = 500;
const cm = codeMode({
  dispatcher,
  environment: isolateEnvironment(),
  limits: { maxToolCalls: CALLS },
});

// 1. A trivial run against a bare isolate create + eval + dispose.
const bare = async () => {
  const isolate = new ivm.Isolate({ memoryLimit: 128 });
  const context = await isolate.createContext();
  if ((await context.eval("1 + 1")) !== 2) throw new Error("bare isolate: wrong result");
  context.release();
  isolate.dispose();
};
const cold = codeMode({ dispatcher, environment: isolateEnvironment({ warm: 0 }) });
const TS = "const x: number = 1; x + 1";
const trivial = {
  js: checked(() => cm.run("1 + 1"), 2, "trivial run"),
  ts: checked(() => cm.run(TS), 2, "trivial TypeScript run"),
  cold: checked(() => cold.run("1 + 1"), 2, "trivial run without a warm spare"),
};
await sample(30, bare);
for (const run of Object.values(trivial)) await sample(30, run);
const bareMedian = median(await sample(300, bare));
const runMedian = median(await sample(300, trivial.js));
const tsMedian = median(await sample(200, trivial.ts));
const coldMedian = median(await sample(200, trivial.cold));
await cold.close();
recordFigure("codemode.trivial", runMedian / 1000, "ms");
const ratio = (value: number) => `${(value / bareMedian).toFixed(2)}x`;
console.log(
  "trivial run_code (in-process, no tool calls) vs a bare isolated-vm isolate create + eval + dispose (same run)",
);
console.log(`  bare isolate:   ${fmt(bareMedian / 1000, "ms")} median`);
console.log(
  `  run_code:       ${fmt(runMedian / 1000, "ms")} median, ratio ${ratio(runMedian)} (aim: <= 1.2x)  [1 + 1]`,
);
console.log(
  `  TypeScript:     ${fmt(tsMedian / 1000, "ms")} median, ratio ${ratio(tsMedian)}  [${TS}, through esbuild]`,
);
console.log(
  `  no warm spare:  ${fmt(coldMedian / 1000, "ms")} median, ratio ${ratio(coldMedian)}  [1 + 1, warm: 0]`,
);

// 2. A sequential proxied call against a bare isolated-vm round trip plus a direct dispatcher call, two
// ways: the two figures measured apart and added up, and one bare round trip whose host function makes
// the direct dispatcher call. The sum understates a real round trip: a host function that returns at once
// answers before the isolate's thread has gone to sleep, and one that does a dispatcher call's work
// answers after, so the isolate has to be woken (see the machine's note on idle cores).
const roundTrip = await bareRoundTrip(async (s) => s + 1);
const syncTrip = await bareRoundTrip(async (s) => s + 1, "applySyncPromise");
const plainSyncTrip = await bareRoundTrip((s) => s + 1, "applySync");
const inThreadTrip = await inThreadRoundTrip();
const openRun = dispatcher.openRun({ callId: "bench-run", toolName: "run_code" });
const dispatchTrip = await bareRoundTrip(async (s) => {
  const [result] = await dispatcher.dispatch([{ id: "c", name: "add", arguments: { a: s, b: 1 } }]).results();
  return result?.value as number;
});
const loop = `let s = 0; for (let i = 0; i < ${CALLS}; i++) s = await tools.add({ a: s, b: 1 }); s`;
const empty = `let s = 0; for (let i = 0; i < ${CALLS}; i++) s = s + 1; s`;
async function perCall(state: string, key: "idle" | "awake") {
  const direct = await directAddMicros(dispatcher);
  const oneCall = async () => {
    const { result } = await dispatcher.runCall(
      { id: "c", name: "add", arguments: { a: 1, b: 2 } },
      { parent: openRun.context },
    );
    if (result.value !== 3) throw new Error("runCall: wrong result");
  };
  const inRun = median(await sample(3_000, oneCall));
  // The same call made after the event loop went idle, as the host meets each call from code.
  const afterIdle: number[] = [];
  for (let i = 0; i < 300; i++) {
    await new Promise((resolve) => setTimeout(resolve, 1));
    afterIdle.push(...(await sample(1, oneCall)));
  }
  const inRunAfterIdle = median(afterIdle);
  const trip = median(await sample(15, () => roundTrip.run(CALLS))) / CALLS;
  const waitedTrip = median(await sample(15, () => syncTrip.run(CALLS))) / CALLS;
  const tripWithDispatch = median(await sample(15, () => dispatchTrip.run(CALLS))) / CALLS;
  const plainSync = median(await sample(15, () => plainSyncTrip.run(CALLS))) / CALLS;
  const inThread = median(await sample(15, async () => inThreadTrip.run(CALLS))) / CALLS;
  const withCalls = median(
    await sample(
      15,
      checked(() => cm.run(loop), CALLS, `${CALLS} sequential proxied calls`),
    ),
  );
  const withoutCalls = median(
    await sample(
      15,
      checked(() => cm.run(empty), CALLS, "the same loop without calls"),
    ),
  );
  const proxied = (withCalls - withoutCalls) / CALLS;
  recordFigure(`codemode.sequentialCall.${key}`, proxied, "µs");
  console.log(
    `sequential proxied call (tools.add from code, full pipeline) vs bare round trip + direct dispatch (${state})`,
  );
  console.log(`  bare isolated-vm round trip (ref.apply, promise result):   ${fmt(trip, "µs")}`);
  console.log(`  direct dispatcher call:                                    ${fmt(direct, "µs")}`);
  console.log(`  bare round trip whose host function makes that call:       ${fmt(tripWithDispatch, "µs")}`);
  console.log(
    `  proxied call:                                              ${fmt(proxied, "µs")}, ratio ${(proxied / (trip + direct)).toFixed(2)}x of the sum, ${(proxied / tripWithDispatch).toFixed(2)}x of the round trip with the call (aim: <= 1.2x)`,
  );
  console.log(`  bare applySyncPromise round trip (the peers' serial call): ${fmt(waitedTrip, "µs")}`);
  console.log(`  bare applySync of a synchronous host function (cordon's):  ${fmt(plainSync, "µs")}`);
  console.log(
    `  one call of a run (dispatcher.runCall, what code uses):    ${fmt(inRun, "µs")} back to back, ${fmt(inRunAfterIdle, "µs")} after the event loop went idle`,
  );
  console.log(
    `  proxied call vs those two added up:                        ${(proxied / (waitedTrip + inRun)).toFixed(2)}x`,
  );
  console.log(
    `  the bare loop with no thread crossing (the isolate run on this thread, not done: see round-trip.ts): ${fmt(inThread, "µs")}`,
  );
}
await perCall("idle machine: cores sleep between hops", "idle");
const awake = keepOtherCoreAwake();
try {
  await perCall("another core kept awake by a spinning worker thread", "awake");
} finally {
  await awake.stop();
}
roundTrip.dispose();
syncTrip.dispose();
plainSyncTrip.dispose();
inThreadTrip.dispose();
dispatchTrip.dispose();
openRun.close();

// 3. Fan-out: 100 calls in one Promise.all, each sleeping 10 ms.
const fan = median(
  await sample(
    5,
    checked(
      () => cm.run("(await Promise.all(Array.from({ length: 100 }, () => tools.sleep({})))).length"),
      100,
      "fan-out of 100 calls",
    ),
  ),
);
recordFigure("codemode.fanOut100", fan / 1000, "ms");
console.log(
  `fan-out: 100 calls x 10 ms in one Promise.all: ${fmt(fan / 1000, "ms")} wall vs 1,000 ms serial (${(1000 / (fan / 1000)).toFixed(1)}x faster; ${cm.limits.maxConcurrentCalls} at once)`,
);

// 4. Throughput: concurrent runs in one process (isolated-vm runs isolates on its own threads), against
// bare isolated-vm doing the same work the same way (a new context per run, in one of four reused
// isolates), measured in the same run. Two kinds of run: a trivial one, and one whose loop V8 compiles
// in the background (on-stack replacement), which costs a bare context as much again.
const trivialWork = { code: "1 + 1", value: 2, label: "trivial run (1 + 1)" };
const loopWork = {
  code: "let x = 0; for (let i = 0; i < 1e4; i++) x += i; x",
  value: 49_995_000,
  label: "a run with a 10,000-step loop",
};
const bareIsolates = Array.from({ length: 4 }, () => new ivm.Isolate({ memoryLimit: 128 }));
async function runsPerSecond(concurrency: number, once: (worker: number) => Promise<void>): Promise<number> {
  const total = 400;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (next++ < total) await once(worker);
    }),
  );
  return total / ((performance.now() - started) / 1000);
}
for (const work of [trivialWork, loopWork]) {
  console.log(`throughput, ${work.label}: cordon vs bare isolated-vm (a new context per run), same run`);
  for (const concurrency of [1, 2, 4]) {
    const bareRate = await runsPerSecond(concurrency, async (worker) => {
      const context = await bareIsolates[worker]!.createContext();
      const value = await context.eval(work.code);
      context.release();
      if (value !== work.value)
        throw new Error(`bare throughput run: expected ${work.value}, got ${String(value)}`);
    });
    const rate = await runsPerSecond(concurrency, async () => {
      expectRun(await cm.run(work.code), work.value, "throughput run");
    });
    if (work === trivialWork) recordFigure(`codemode.runsPerSecond.${concurrency}`, rate, "runs/s", "higher");
    console.log(
      `  ${concurrency} concurrent: ${Math.round(rate)} runs/s vs bare ${Math.round(bareRate)} runs/s (${(rate / bareRate).toFixed(2)}x)${concurrency === 4 ? " (aim: >= 500 runs/s)" : ""}`,
    );
  }
}
for (const isolate of bareIsolates) isolate.dispose();
await cm.close();

// 5. Memory per live session.
const sessions = codeMode({
  tools: toolset,
  environment: isolateEnvironment(),
  state: "session",
  sessions: { max: 1_000 },
});
global.gc?.();
const before = process.memoryUsage().rss;
const SESSIONS = 50;
for (let i = 0; i < SESSIONS; i++) {
  expectRun(
    await sessions.run("var data = Array.from({ length: 100 }, (_, i) => i); data.length", {
      session: `s${i}`,
    }),
    100,
    "session run",
  );
}
global.gc?.();
const after = process.memoryUsage().rss;
recordFigure("codemode.sessionMemory", (after - before) / SESSIONS / 1024 / 1024, "MB");
console.log(
  `memory: ${SESSIONS} live sessions add ${fmt((after - before) / 1024 / 1024, "MB")} RSS, ${fmt((after - before) / SESSIONS / 1024 / 1024, "MB")} per session`,
);
await sessions.close();
