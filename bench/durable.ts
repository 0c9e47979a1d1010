// The cost of a journaled call from code, on the in-process isolate: runs of N sequential calls of a
// cheap synchronous tool (N = 0 and 200), and runs of one Promise.all of 100 calls, without a journal,
// with memoryJournal(), and with fileJournal(dir) (fdatasync per append, under the system's temporary
// folder). The per-call figure is (run with N calls - run with none) / N, median of 15 rounds each; the
// fan-out figure is the run's median time and its ratio to the same run without a journal. Every
// measured run is checked (status ok, the right value) and a failed one stops the benchmark.
// Run: npx tsx --no-node-snapshot bench/durable.ts  (node --no-node-snapshot --import tsx bench/durable.ts)

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { isolateEnvironment } from "../environments/in-process/index.js";
import { fileJournal } from "../src/codemode/durable/file-journal.js";
import { memoryJournal } from "../src/codemode/durable/memory-journal.js";
import type { RunJournal } from "../src/codemode/durable/run-journal.js";
import { type CodeMode, codeMode, tool } from "../src/index.js";
import { fmt, median } from "./stats.js";

const add = tool({
  name: "add",
  description: "Add.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});

const sequential = (n: number) =>
  `let s = 0; for (let i = 0; i < ${n}; i++) s = await tools.add({ a: s, b: 1 }); return s`;
const FAN_OUT =
  "return (await Promise.all(Array.from({ length: 100 }, (_, i) => tools.add({ a: i, b: 0 })))).length";
const ROUNDS = 15;
const N = 200;

async function timed(cm: CodeMode, code: string, expected: number): Promise<number> {
  const started = performance.now();
  const result = await cm.run(code);
  const took = performance.now() - started;
  if (result.status !== "ok" || result.value !== expected) {
    throw new Error(`benchmark run failed: ${JSON.stringify(result.error ?? result.value)}`);
  }
  return took;
}

async function measure(name: string, journal: RunJournal | undefined) {
  const cm = codeMode({
    tools: [add],
    environment: isolateEnvironment(),
    limits: { maxToolCalls: 1_000, maxConcurrentCalls: 100 },
    pause: { key: "a benchmark secret, 32 bytes long" },
    ...(journal ? { journal } : {}),
  });
  for (let i = 0; i < 3; i++) await timed(cm, sequential(N), N);
  const none: number[] = [];
  const many: number[] = [];
  const fan: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    none.push(await timed(cm, sequential(0), 0));
    many.push(await timed(cm, sequential(N), N));
    fan.push(await timed(cm, FAN_OUT, 100));
  }
  await cm.close();
  return { name, perCall: (median(many) - median(none)) / N, fan: median(fan) };
}

const folder = await mkdtemp(join(tmpdir(), "cordon-bench-durable-"));
try {
  const rows = [
    await measure("no journal", undefined),
    await measure("memoryJournal", memoryJournal()),
    await measure("fileJournal", fileJournal(folder)),
  ];
  const base = rows[0]!;
  for (const row of rows) {
    console.log(
      `${row.name.padEnd(14)} sequential call ${fmt(row.perCall * 1000, "µs")} (+${fmt((row.perCall - base.perCall) * 1000, "µs")})  ` +
        `fan-out of 100 ${fmt(row.fan, "ms")} (${(row.fan / base.fan).toFixed(2)}x)`,
    );
  }
} finally {
  await rm(folder, { recursive: true, force: true });
}
