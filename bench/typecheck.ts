// The type check of code mode (typecheck "block"): cold start (a code mode created, to its first check
// done) and the memory the warm worker holds, a warm check of a 30-line program against 20 tools (p50, p95; aim p50 ≤ 15 ms), and its share
// of a whole run (the same program run with and without the check, in-process). Every timed check is
// verified: the faulty program must be stopped with exactly 1 diagnostic on its line and no call; every
// timed run must end ok with the expected value. Run: make bench (it measures the built package).

import { type CodeMode, codeMode } from "cordon";
import { isolateEnvironment } from "cordon/in-process";
import { checked } from "./check.js";
import { fmt, median, sample } from "./stats.js";
import { CLEAN, EXPECTED, FAULTY, FAULTY_LINE, toolset } from "./typecheck-program.js";

/** Runs the faulty program in `mode`; throws unless the check stopped it: one diagnostic, on its line, no call. */
async function stopped(mode: CodeMode, what: string): Promise<void> {
  const result = await mode.run(`${FAULTY}\n// ${Math.random()}`);
  const ok =
    result.error?.name === "TypeCheckError" &&
    result.calls.length === 0 &&
    result.diagnostics?.length === 1 &&
    result.diagnostics[0]?.line === FAULTY_LINE;
  if (!ok) throw new Error(`benchmark "${what}": unexpected result ${JSON.stringify(result).slice(0, 400)}`);
}

// 1. Cold start: a code mode created, to its first check done (a new checker each time), and what the
// warm worker holds: the process's resident memory after the first check minus before creation.
const colds: number[] = [];
const workerMb: number[] = [];
for (let i = 0; i < 5; i++) {
  const rssBefore = process.memoryUsage().rss;
  const start = performance.now();
  const mode = codeMode({ tools: toolset, environment: isolateEnvironment(), typecheck: "block" });
  await stopped(mode, "cold check");
  colds.push(performance.now() - start);
  workerMb.push((process.memoryUsage().rss - rssBefore) / 2 ** 20);
  await mode.close();
  // The ended worker's memory goes back to the system before the next one is measured.
  await new Promise((resolve) => setTimeout(resolve, 200));
}

// 2. Warm checks: runs the check stops (the code is prepared and checked, and nothing runs), each
// program different by a comment, as real programs differ.
const block = codeMode({ tools: toolset, environment: isolateEnvironment(), typecheck: "block" });
const warm = () => stopped(block, "warm check");
await sample(50, warm);
const warmUs = (await sample(400, warm)).sort((a, b) => a - b);
const p = (q: number) => warmUs[Math.min(warmUs.length - 1, Math.floor(q * warmUs.length))]! / 1000;

// 3. Share of a whole run: the clean program run in-process with and without the check.
const off = codeMode({ tools: toolset, environment: isolateEnvironment() });
const runOff = checked(() => off.run(CLEAN), EXPECTED, "run without the check");
const runBlock = checked(() => block.run(CLEAN), EXPECTED, "run with the check");
await sample(20, runOff);
await sample(20, runBlock);
const offMs = median(await sample(150, runOff)) / 1000;
const blockMs = median(await sample(150, runBlock)) / 1000;
await off.close();
await block.close();

console.log('type check (typecheck "block"), 20 tools, a 30-line program');
console.log(
  `  cold start, creation to first check done: median ${fmt(median(colds), "ms")} (${colds.map((c) => c.toFixed(0)).join(", ")})`,
);
console.log(
  `  the warm worker, resident memory added by a code mode with the check: median ${median(workerMb).toFixed(0)} MB (${workerMb.map((m) => m.toFixed(0)).join(", ")})`,
);
console.log(
  `  warm check (a run the check stops: code prepared and checked): p50 ${fmt(p(0.5), "ms")}, p95 ${fmt(p(0.95), "ms")} (aim p50 <= 15 ms, ${warmUs.length} checks)`,
);
console.log(
  `  whole run in-process, median: without the check ${fmt(offMs, "ms")}, with it ${fmt(blockMs, "ms")} (the check's share ${(((blockMs - offMs) / blockMs) * 100).toFixed(0)}%)`,
);
process.exit(0);
