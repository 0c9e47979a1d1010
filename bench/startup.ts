// `cordon run` end to end: the command of `make demo` (the shop's task against its TypeScript tools
// module, in the default environment), timed from spawning the process to its exit, beside a bare
// `node -e 0` timed in the same run. Every run is checked: exit code 0, the expected result, and the
// closing `ok in N ms` line. The first run compiles the tools module into an empty cache (its own
// figure); the timed runs find it there, as every run after a user's first does. Run: make bench.
// Another Node can be timed: CORDON_BENCH_NODE names its binary and CORDON_BENCH_TREE a package tree
// built for it (dist/, examples/, node_modules/ with its isolated-vm), as scripts/bench-startup-nodes.sh
// sets up (make bench-startup-nodes).

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { fmt, median } from "./stats.js";

const node = process.env.CORDON_BENCH_NODE ?? process.execPath;
const root = resolve(process.env.CORDON_BENCH_TREE ?? join(import.meta.dirname, ".."));
const bin = join(root, "dist/src/cli/bin.js");
if (!existsSync(bin)) throw new Error(`${bin} is missing: run npm run build first.`);
const DEMO = ["run", "examples/shop/task.ts", "--tools", "examples/shop/tools.ts"];
const EXPECTED = { customer: "Dana Smith", refunded: ["A103"], total: 38 };
const ROUNDS = 15;

const cache = mkdtempSync(join(tmpdir(), "cordon-bench-startup-"));
// The user's environment, with a cache of its own and no terminal: --approve ask denies the refund
// that needs a person, as in `make demo` run from a script.
const env = { ...process.env, XDG_CACHE_HOME: cache, NO_COLOR: "1" };

/** Runs a command to its exit; resolves with its wall time in ms, exit code and output. */
function timed(
  args: string[],
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<{ ms: number; code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const start = performance.now();
    const child = spawn(node, args, {
      cwd: root,
      env: { ...env, ...extraEnv },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk;
    });
    child.on("error", fail);
    child.on("close", (code) => done({ ms: performance.now() - start, code, stdout, stderr }));
  });
}

/** Writes the CPU time of the command's own process (not the sandbox process's) to its stderr. */
const CPU_AT_EXIT = { NODE_OPTIONS: `--require ${join(import.meta.dirname, "cpu-at-exit.cjs")}` };

/** One `cordon run` of the demo, checked; resolves with its wall time and its process's CPU time, in ms. */
async function demo(what: string): Promise<{ ms: number; cpuMs: number }> {
  const { ms, code, stdout, stderr } = await timed([bin, ...DEMO], CPU_AT_EXIT);
  const cpu = /\ncordon-bench-cpu-ms ([\d.]+)\n$/.exec(stderr);
  const result = /\nresult\n([\s\S]*?)\n\nok in \d+ ms\n$/.exec(stdout);
  const value = result ? JSON.parse(result[1]!) : undefined;
  if (code !== 0 || !isDeepStrictEqual(value, EXPECTED)) {
    throw new Error(
      `benchmark "${what}": the run did not succeed (exit ${code}; expected the result ${JSON.stringify(EXPECTED)} and "ok in N ms"):\n${stdout}\n${stderr}`,
    );
  }
  if (!cpu) throw new Error(`benchmark "${what}": the command did not report its CPU time:\n${stderr}`);
  return { ms, cpuMs: Number(cpu[1]) };
}

/** One `node -e 0`, checked. */
async function bareNode(): Promise<number> {
  const { ms, code } = await timed(["-e", "0"]);
  if (code !== 0) throw new Error(`benchmark "node -e 0": exit ${code}`);
  return ms;
}

const range = (values: number[]) =>
  `${fmt(median(values), "ms")} (${fmt(Math.min(...values), "ms")} to ${fmt(Math.max(...values), "ms")})`;

try {
  const asked = await timed(["--version"]);
  if (asked.code !== 0)
    throw new Error(`benchmark: ${node} --version failed (exit ${asked.code}): ${asked.stderr}`);
  const version = asked.stdout.trim();
  const cold = (await demo("cordon run, empty cache")).ms;
  await demo("cordon run, warm-up");
  await bareNode();
  const runs: number[] = [];
  const cpu: number[] = [];
  const bare: number[] = [];
  // Interleaved, so that both see the same machine.
  for (let i = 0; i < ROUNDS; i++) {
    const run = await demo("cordon run");
    runs.push(run.ms);
    cpu.push(run.cpuMs);
    bare.push(await bareNode());
  }
  console.log(
    `cordon run of the shop example (make demo), process start to exit, ${ROUNDS} runs, Node ${version}:`,
  );
  console.log(`  cordon run ${DEMO.slice(1).join(" ")}: median ${range(runs)}`);
  console.log(
    `  CPU time of the command's own process: median ${range(cpu)} (the sandbox process runs beside it)`,
  );
  console.log(`  node -e 0 (same run): median ${range(bare)}`);
  console.log(
    `  cordon run beyond a bare Node start: ${fmt(median(runs) - median(bare), "ms")} (${(median(runs) / median(bare)).toFixed(1)}x); aim: the run ≤ 400 ms`,
  );
  console.log(`  the first run, compiling the tools module into an empty cache: ${fmt(cold, "ms")}`);
} finally {
  rmSync(cache, { recursive: true, force: true });
}
