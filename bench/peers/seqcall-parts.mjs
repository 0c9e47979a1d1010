// A sequential call taken apart, per call, idle or with the other core busy (SEQCALL_BUSY=1): the bare
// isolated-vm crossings (cordon's applySync of a synchronous host function, TanStack's applySyncPromise
// of an async one), cordon's in-process sandbox with a bridge that answers at once (the crossing, the
// prelude and the engine's glue: everything but the tool pipeline), the whole in-process call (spin
// never, as with no idle core), and TanStack's whole call. Each with this process's CPU per call by
// thread. Run it as seqcall.mjs says (from .bench-peers/, Node 22).

import { readdirSync, readFileSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { sandboxHostEnvironment } from "cordon";
import { isolateEnvironment } from "cordon/in-process";
import ivm from "isolated-vm";
import { cordonLoop, tanstackLoop } from "./seqcall-executors.mjs";

const CALLS = Number(process.env.SEQCALL_CALLS ?? 1000);
const WARM = Number(process.env.SEQCALL_WARM ?? 3);
const RUNS = Number(process.env.SEQCALL_RUNS ?? 10);

// Threads there before any isolate: V8's platform workers (background compiles, concurrent marking);
// threads started later: isolated-vm's (where the isolates' code runs), libuv's pool.
const startupThreads = new Set(readdirSync("/proc/self/task"));
function cpuByThread() {
  const out = new Map();
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const name = readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim();
      const comm =
        tid === String(process.pid) ? "main" : startupThreads.has(tid) ? `${name}(v8 platform)` : name;
      const [ns, , slices] = readFileSync(`/proc/self/task/${tid}/schedstat`, "utf8")
        .trim()
        .split(" ")
        .map(Number);
      out.set(tid, { comm, ns, slices });
    } catch {}
  }
  return out;
}
/** CPU time (ns) and times scheduled in of this process's child processes (sandbox-host processes). */
function children() {
  const out = new Map();
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1] !== String(process.pid)) continue;
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        const [ns, , slices] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8")
          .trim()
          .split(" ")
          .map(Number);
        const comm =
          tid === pid
            ? "child main"
            : `child ${readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim()}`;
        out.set(`${pid}/${tid}`, { comm, ns, slices });
      }
    } catch {}
  }
  return out;
}
function spent(before, after, skip) {
  const rows = new Map();
  for (const [tid, a] of after) {
    if (tid === skip) continue;
    const b = before.get(tid) ?? { ns: 0, slices: 0 };
    const row = rows.get(a.comm) ?? { ns: 0, slices: 0 };
    row.ns += a.ns - b.ns;
    row.slices += a.slices - b.slices;
    rows.set(a.comm, row);
  }
  return rows;
}

async function bare(kind) {
  const isolate = new ivm.Isolate({ memoryLimit: 64 });
  const host = kind === "applySync" ? new ivm.Reference((s) => s + 1) : new ivm.Reference(async (s) => s + 1);
  const method = kind === "applySync" ? "applySync" : "applySyncPromise";
  return {
    name: `bare ${method}`,
    run: async (n) => {
      const context = await isolate.createContext();
      await context.global.set("host", host);
      const script = await isolate.compileScript(
        `(async () => { let s = 0; for (let i = 0; i < ${n}; i++) s = await host.${method}(undefined, [s]); return s; })()`,
      );
      const result = await script.run(context, { promise: true });
      context.release();
      if (result !== n) throw new Error(`bare: ${result}`);
    },
    close: async () => isolate.dispose(),
  };
}

async function stubbedSandbox() {
  const environment = isolateEnvironment({ spin: "never" });
  const bridge = {
    callTool: (_name, argsJson) => ({ ok: true, valueJson: String(JSON.parse(argsJson).n) }),
    log: () => {},
    record: () => {},
    replayed: () => {},
  };
  const limits = {
    timeoutMs: 30_000,
    cpuTimeMs: 30_000,
    memoryMb: 64,
    maxLogChars: 10_000,
    maxResultChars: 10_000,
    maxToolCalls: CALLS + 10,
  };
  return {
    name: "cordon in-process, stub bridge (no pipeline)",
    run: async (n) => {
      const sandbox = await environment.open(limits);
      const outcome = await sandbox.execute(
        {
          code: `let s = 0; for (let i = 0; i < ${n}; i++) s = await tools.echo({ n: s + 1 }); return s`,
          toolNames: { echo: "echo" },
          limits,
          final: true,
        },
        bridge,
        new AbortController().signal,
      );
      await sandbox.dispose();
      if (outcome.valueJson !== String(n)) throw new Error(`stub: ${JSON.stringify(outcome)}`);
    },
    close: () => environment.close?.(),
  };
}

function cordonFull(
  options = { spin: "never" },
  label = "whole call (spin never)",
  environment = isolateEnvironment(options),
) {
  const name = label.startsWith("default") ? `cordon ${label}` : `cordon in-process, ${label}`;
  return cordonLoop(name, environment, CALLS + 10);
}

const spinner = process.env.SEQCALL_BUSY === "1" ? new Worker("for (;;) {}", { eval: true }) : undefined;
const spinnerTid = spinner ? String(Math.max(...readdirSync("/proc/self/task").map(Number))) : undefined;
console.log(
  `per call, ${process.version}, isolated-vm ${JSON.parse(readFileSync(new URL(import.meta.resolve("isolated-vm/package.json")), "utf8")).version}, ${spinner ? "other core busy" : "idle"}, ${RUNS} runs of ${CALLS} calls less ${RUNS} of 0`,
);
const parts = {
  applySync: () => bare("applySync"),
  applySyncPromise: () => bare("applySyncPromise"),
  stub: stubbedSandbox,
  full: () => cordonFull(),
  auto: () => cordonFull({}, "whole call (spin auto)"),
  agent: () => cordonFull({ thread: "agent" }, "whole call, agent's thread"),
  default: () => cordonFull({}, "default environment (sandbox host)", sandboxHostEnvironment()),
  TanStack: () => tanstackLoop("TanStack, whole call"),
};
for (const name of process.env.SEQCALL_ONLY?.split(",") ?? Object.keys(parts)) {
  const make = parts[name];
  const executor = await make();
  for (let i = 0; i < WARM; i++) {
    await executor.run(CALLS);
    await executor.run(0);
  }
  const measure = async (n) => {
    const before = new Map([...cpuByThread(), ...children()]);
    const started = performance.now();
    for (let i = 0; i < RUNS; i++) await executor.run(n);
    return {
      ms: performance.now() - started,
      rows: spent(before, new Map([...cpuByThread(), ...children()]), spinnerTid),
    };
  };
  const a = await measure(CALLS);
  const b = await measure(0);
  const per = (x, y) => (x - y) / (RUNS * CALLS);
  const threads = [...a.rows]
    .map(([k, r]) => [k, per(r.ns, b.rows.get(k)?.ns ?? 0) / 1000, per(r.slices, b.rows.get(k)?.slices ?? 0)])
    .filter(([, cpu, s]) => Math.abs(cpu) >= 0.1 || Math.abs(s) >= 0.01)
    .map(([k, cpu, s]) => `${k} ${cpu.toFixed(1)} µs/${s.toFixed(2)} in`)
    .join(", ");
  console.log(
    `  ${executor.name.padEnd(46)} ${(per(a.ms, b.ms) * 1000).toFixed(1).padStart(6)} µs  (cpu: ${threads})`,
  );
  await executor.close();
}
await spinner?.terminate();
process.exit(0);
