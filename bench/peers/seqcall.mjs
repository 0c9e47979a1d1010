// The sequential tool call alone, as bench-peers measures it (100 calls in a row, less the same loop without
// calls, the two timed in alternation), for cordon's default environment, its in-process isolate and
// TanStack ai-code-mode (isolated-vm): a quicker look than the whole of peers.mjs, for work on that figure.
// Run where bench-peers installed its packages: `scripts/bench-peers.sh` once, then
//   cp bench/peers/seqcall.mjs .bench-peers/ && .nodes/node-v22*/bin/node --no-node-snapshot .bench-peers/seqcall.mjs [rounds]
// With SEQCALL_BUSY=1 a worker thread spins for the whole run, keeping the machine's other core busy.

import { Worker } from "node:worker_threads";
import { toolDefinition } from "@tanstack/ai";
import { createCodeModeTool } from "@tanstack/ai-code-mode";
import { createNodeIsolateDriver } from "@tanstack/ai-isolate-node";
import { codeMode, sandboxHostEnvironment, Toolset, tool } from "cordon";
import { isolateEnvironment } from "cordon/in-process";
import { z } from "zod";

const ROUNDS = Number(process.argv[2] ?? 5);
const CALLS = 100;
const LOOP_PAIRS = 25;
const WARM_UP_CALLS = 10_000;
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

function cordon(name, environment) {
  const tools = new Toolset([
    tool({ name: "echo", description: "Echo.", input: z.object({ n: z.number() }), run: ({ n }) => n }),
  ]);
  const cm = codeMode({ tools, environment, limits: { maxToolCalls: 1_000 } });
  return {
    name,
    run: async (code, expected) => {
      const result = await cm.run(code);
      if (result.status !== "ok" || result.value !== expected)
        throw new Error(`${name}: ${JSON.stringify(result)}`);
    },
    loop: (n) => `let s = 0; for (let i = 0; i < ${n}; i++) s = await tools.echo({ n: s + 1 }); s`,
    close: () => cm.close(),
  };
}

function tanstack() {
  const echo = toolDefinition({
    name: "echo",
    description: "Echo.",
    inputSchema: z.object({ n: z.number() }),
    outputSchema: z.number(),
  }).server(async ({ n }) => n);
  const execute = createCodeModeTool({ driver: createNodeIsolateDriver(), tools: [echo] });
  return {
    name: "TanStack",
    run: async (code, expected) => {
      const result = await execute.execute({ typescriptCode: code });
      if (!result.success || result.result !== expected)
        throw new Error(`TanStack: ${JSON.stringify(result)}`);
    },
    loop: (n) => `let s = 0; for (let i = 0; i < ${n}; i++) s = await external_echo({ n: s + 1 }); return s`,
    close: async () => {},
  };
}

async function perCallUs(executor) {
  const withCalls = [];
  const without = [];
  for (let i = 0; i < LOOP_PAIRS; i++) {
    let started = performance.now();
    await executor.run(executor.loop(CALLS), CALLS);
    withCalls.push(performance.now() - started);
    started = performance.now();
    await executor.run(executor.loop(0), 0);
    without.push(performance.now() - started);
  }
  return ((median(withCalls) - median(without)) / CALLS) * 1000;
}

const spinner = process.env.SEQCALL_BUSY === "1" ? new Worker("for (;;) {}", { eval: true }) : undefined;
const only = process.env.SEQCALL_ONLY?.split(",");
const executors = [
  cordon("default", sandboxHostEnvironment()),
  cordon("in-process", isolateEnvironment()),
  tanstack(),
].filter((executor) => only === undefined || only.includes(executor.name));
const figures = new Map(executors.map((executor) => [executor.name, []]));
// V8 keeps optimising a pipeline on background threads for thousands of calls; with the other core busy
// that work competes for the one free core and inflates the first rounds: 10,000 calls first, untimed.
for (const executor of executors) {
  for (let i = 0; i < WARM_UP_CALLS / CALLS; i++) await executor.run(executor.loop(CALLS), CALLS);
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
