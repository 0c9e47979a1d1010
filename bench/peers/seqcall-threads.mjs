// Where a sequential tool call's time goes, per thread of this process: CPU time (schedstat, ns), times
// scheduled in, and voluntary / involuntary context switches, per call, for TanStack's call and cordon's
// in-process call (and the default's agent side), idle or with the other core busy (SEQCALL_BUSY=1).
// A 1,000-call run less a 0-call run, each repeated; run it as seqcall.mjs says:
//   cp bench/peers/*.mjs .bench-peers/ && .nodes/node-v22*/bin/node --no-node-snapshot .bench-peers/seqcall-threads.mjs
// SEQCALL_ONLY=TanStack,in-process,... picks executors; in-process variants: in-process (auto),
// in-process:never, in-process:always, in-process:nosync.

import { readdirSync, readFileSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { sandboxHostEnvironment } from "cordon";
import { isolateEnvironment } from "cordon/in-process";
import { cordonLoop, tanstackLoop } from "./seqcall-executors.mjs";

const CALLS = Number(process.env.SEQCALL_CALLS ?? 1000);
const RUNS = Number(process.env.SEQCALL_RUNS ?? 10);

function threads() {
  const out = new Map();
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const comm = readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim();
      const [ns, , slices] = readFileSync(`/proc/self/task/${tid}/schedstat`, "utf8")
        .trim()
        .split(" ")
        .map(Number);
      const status = readFileSync(`/proc/self/task/${tid}/status`, "utf8");
      const vol = Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(status)[1]);
      const invol = Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(status)[1]);
      out.set(tid, { comm, ns, slices, vol, invol });
    } catch {}
  }
  return out;
}

function diff(before, after) {
  const rows = new Map();
  for (const [tid, a] of after) {
    const b = before.get(tid) ?? { ns: 0, slices: 0, vol: 0, invol: 0 };
    const key = tid === String(process.pid) ? "main" : a.comm;
    const row = rows.get(key) ?? { ns: 0, slices: 0, vol: 0, invol: 0 };
    row.ns += a.ns - b.ns;
    row.slices += a.slices - b.slices;
    row.vol += a.vol - b.vol;
    row.invol += a.invol - b.invol;
    rows.set(key, row);
  }
  return rows;
}

const all = {
  TanStack: () => tanstackLoop(),
  default: () => cordonLoop("default", sandboxHostEnvironment(), CALLS + 10),
  "in-process": () => cordonLoop("in-process", isolateEnvironment(), CALLS + 10),
  "in-process:never": () => cordonLoop("in-process:never", isolateEnvironment({ spin: "never" }), CALLS + 10),
  "in-process:always": () =>
    cordonLoop("in-process:always", isolateEnvironment({ spin: "always" }), CALLS + 10),
  "in-process:nosync": () =>
    cordonLoop("in-process:nosync", isolateEnvironment({ syncCalls: false }), CALLS + 10),
};
const only = process.env.SEQCALL_ONLY?.split(",") ?? ["TanStack", "in-process"];
const spinner = process.env.SEQCALL_BUSY === "1" ? new Worker("for (;;) {}", { eval: true }) : undefined;
console.log(
  `per call, ${process.version}, ${spinner ? "other core busy" : "idle"}, ${RUNS} runs of ${CALLS} calls less ${RUNS} of 0`,
);
for (const name of only) {
  const executor = all[name]();
  for (let i = 0; i < 3; i++) {
    await executor.run(CALLS);
    await executor.run(0);
  }
  const measure = async (n) => {
    const before = threads();
    const started = performance.now();
    for (let i = 0; i < RUNS; i++) await executor.run(n);
    return { ms: performance.now() - started, rows: diff(before, threads()) };
  };
  const withCalls = await measure(CALLS);
  const without = await measure(0);
  const per = (a, b) => (a - b) / (RUNS * CALLS);
  console.log(`${name}: ${(per(withCalls.ms, without.ms) * 1000).toFixed(1)} µs wall per call`);
  for (const [key, row] of withCalls.rows) {
    if (key === "node" && spinner) continue;
    const zero = without.rows.get(key) ?? { ns: 0, slices: 0, vol: 0, invol: 0 };
    const cpu = per(row.ns, zero.ns) / 1000;
    const slices = per(row.slices, zero.slices);
    if (Math.abs(cpu) < 0.05 && Math.abs(slices) < 0.005) continue;
    console.log(
      `  ${key.padEnd(16)} cpu ${cpu.toFixed(1).padStart(6)} µs  scheduled-in ${slices.toFixed(2)}  vol ${per(row.vol, zero.vol).toFixed(2)}  invol ${per(row.invol, zero.invol).toFixed(2)}`,
    );
  }
  await executor.close();
}
await spinner?.terminate();
process.exit(0);
