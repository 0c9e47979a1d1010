// The sequential tool call alone, as bench-peers measures it (100 calls in a row, less the same loop without
// calls, the two timed in alternation), for cordon's default environment, its in-process isolate and
// TanStack ai-code-mode (isolated-vm): a quicker look than the whole of peers.mjs, for work on that figure.
// Run where bench-peers installed its packages: `scripts/bench-peers.sh` once, then
//   cp bench/peers/*.mjs .bench-peers/ && .nodes/node-v22*/bin/node --no-node-snapshot .bench-peers/seqcall.mjs [rounds]
// With SEQCALL_BUSY=1 a worker thread spins for the whole run, keeping the machine's other core busy.

import { Worker } from "node:worker_threads";
import { sandboxHostEnvironment } from "cordon";
import { isolateEnvironment } from "cordon/in-process";
import { cordonLoop, tanstackLoop } from "./seqcall-executors.mjs";

const ROUNDS = Number(process.argv[2] ?? 5);
const CALLS = 100;
const LOOP_PAIRS = 25;
const WARM_UP_CALLS = 10_000;
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

async function perCallUs(executor) {
  const withCalls = [];
  const without = [];
  for (let i = 0; i < LOOP_PAIRS; i++) {
    let started = performance.now();
    await executor.run(CALLS);
    withCalls.push(performance.now() - started);
    started = performance.now();
    await executor.run(0);
    without.push(performance.now() - started);
  }
  return ((median(withCalls) - median(without)) / CALLS) * 1000;
}

const spinner = process.env.SEQCALL_BUSY === "1" ? new Worker("for (;;) {}", { eval: true }) : undefined;
const only = process.env.SEQCALL_ONLY?.split(",");
const executors = [
  cordonLoop("default", sandboxHostEnvironment()),
  cordonLoop("in-process", isolateEnvironment()),
  tanstackLoop(),
].filter((executor) => only === undefined || only.includes(executor.name));
const figures = new Map(executors.map((executor) => [executor.name, []]));
// V8 keeps optimising a pipeline on background threads for thousands of calls; with the other core busy
// that work competes for the one free core and inflates the first rounds: 10,000 calls first, untimed.
for (const executor of executors) {
  for (let i = 0; i < WARM_UP_CALLS / CALLS; i++) await executor.run(CALLS);
}
for (let round = 0; round <= ROUNDS; round++) {
  for (const executor of executors) {
    const us = await perCallUs(executor);
    if (round > 0) figures.get(executor.name).push(us);
  }
}
const reference = figures.has("TanStack") ? median(figures.get("TanStack")) : undefined;
console.log(
  `sequential call, ${process.version}, ${spinner ? "other core busy (a spinning worker)" : "idle"}, median of ${ROUNDS} rounds`,
);
for (const [name, values] of figures) {
  const ratio = reference ? ` (${(median(values) / reference).toFixed(2)}x TanStack)` : "";
  console.log(
    `  ${name}: ${median(values).toFixed(0)} µs${ratio} [${values.map((v) => v.toFixed(0)).join(" ")}]`,
  );
}
await Promise.all(executors.map((executor) => executor.close()));
await spinner?.terminate();
process.exit(0);
