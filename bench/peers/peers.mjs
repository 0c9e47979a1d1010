// cordon beside the public code-mode executors that run in Node, in one Node 22 process: TanStack
// ai-code-mode (its isolated-vm driver) and UTCP code-mode (isolated-vm). Each does the same four things
// with the same two tools: a trivial run, one sequential tool call (100 in a row, less the same loop
// without calls, the two timed in alternation so that drift reaches both), 100 calls of 10 ms in one
// Promise.all, and trivial runs with 4 at once. Every measured run is checked for success and its
// value; a failed one stops the benchmark. Rounds alternate the executors, after one warm-up round that
// is not recorded; the median of the rounds is printed with the range over them, since a 2-core VM's
// figures wander between rounds. UTCP prints a line per tool call; console.log and console.info are
// silenced while measuring, for every executor alike. Each round also times a bare round trip of one
// JSON line to a child Node process: the least any sandbox in another process adds to a call, printed
// beside TanStack's call of the same run.
// Run: make bench-peers (scripts/bench-peers.sh sets up Node 22 and the packages).

import { spawn } from "node:child_process";
import { once } from "node:events";
import { toolDefinition } from "@tanstack/ai";
import { createCodeModeTool } from "@tanstack/ai-code-mode";
import { createNodeIsolateDriver } from "@tanstack/ai-isolate-node";
import { CodeModeUtcpClient } from "@utcp/code-mode";
import { addFunctionToUtcpDirectCall } from "@utcp/direct-call";
import { codeMode, sandboxHostEnvironment, Toolset, tool } from "cordon";
import { isolateEnvironment } from "cordon/in-process";
import { z } from "zod";

const ROUNDS = Number(process.argv[2] ?? 5);
const CALLS = 100;
/** Pairs of runs (100 calls, no calls) a round times for the sequential call. */
const LOOP_PAIRS = 25;

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
async function sample(n, fn) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await fn();
    times.push(performance.now() - started);
  }
  return times;
}
function check(ok, what, got) {
  if (!ok) throw new Error(`${what}: ${JSON.stringify(got)?.slice(0, 400)}`);
}
const sleep10 = () => new Promise((resolve) => setTimeout(() => resolve(10), 10));

/** cordon on one environment: the model's code is the body of a function whose last expression is returned. */
function cordonExecutor(name, environment) {
  const tools = new Toolset([
    tool({ name: "echo", description: "Echo.", input: z.object({ n: z.number() }), run: ({ n }) => n }),
    tool({ name: "sleep", description: "Sleep 10 ms.", input: z.object({}), run: sleep10 }),
  ]);
  const cm = codeMode({ tools, environment, limits: { maxToolCalls: 1_000 } });
  return {
    name,
    run: async (code, expected) => {
      const result = await cm.run(code);
      check(
        result.status === "ok" && result.value === expected,
        `${name}: run of ${code.slice(0, 60)}`,
        result,
      );
    },
    code: {
      trivial: "1 + 1",
      loop: (n) => `let s = 0; for (let i = 0; i < ${n}; i++) s = await tools.echo({ n: s + 1 }); s`,
      fan: "(await Promise.all(Array.from({ length: 100 }, () => tools.sleep({})))).length",
    },
    close: () => cm.close(),
  };
}

function tanstackExecutor() {
  const echo = toolDefinition({
    name: "echo",
    description: "Echo.",
    inputSchema: z.object({ n: z.number() }),
    outputSchema: z.number(),
  }).server(async ({ n }) => n);
  const sleep = toolDefinition({
    name: "sleep",
    description: "Sleep 10 ms.",
    inputSchema: z.object({}),
    outputSchema: z.number(),
  }).server(sleep10);
  const executeTool = createCodeModeTool({ driver: createNodeIsolateDriver(), tools: [echo, sleep] });
  return {
    name: "TanStack ai-code-mode (isolated-vm)",
    run: async (code, expected) => {
      const result = await executeTool.execute({ typescriptCode: code });
      check(result.success && result.result === expected, `TanStack: run of ${code.slice(0, 60)}`, result);
    },
    code: {
      trivial: "return 1 + 1",
      loop: (n) =>
        `let s = 0; for (let i = 0; i < ${n}; i++) s = await external_echo({ n: s + 1 }); return s`,
      fan: "return (await Promise.all(Array.from({ length: 100 }, () => external_sleep({})))).length",
    },
    close: async () => {},
  };
}

async function utcpExecutor() {
  addFunctionToUtcpDirectCall("benchManual", async () => ({
    utcp_version: "0.2.0",
    tools: [
      {
        name: "echo",
        description: "Echo.",
        inputs: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
        tool_call_template: { call_template_type: "direct-call", callable_name: "benchEcho" },
      },
      {
        name: "sleep",
        description: "Sleep 10 ms.",
        inputs: { type: "object", properties: {} },
        tool_call_template: { call_template_type: "direct-call", callable_name: "benchSleep" },
      },
    ],
  }));
  addFunctionToUtcpDirectCall("benchEcho", async (n) => n);
  addFunctionToUtcpDirectCall("benchSleep", sleep10);
  const client = await CodeModeUtcpClient.create();
  await client.registerManual({ name: "t", call_template_type: "direct-call", callable_name: "benchManual" });
  return {
    name: "UTCP code-mode (isolated-vm)",
    run: async (code, expected) => {
      const result = await client.callToolChain(code);
      check(result.result === expected, `UTCP: run of ${code.slice(0, 60)}`, result);
    },
    code: {
      trivial: "return 1 + 1",
      loop: (n) => `let s = 0; for (let i = 0; i < ${n}; i++) s = await t.echo({ n: s + 1 }); return s`,
      fan: "return (await Promise.all(Array.from({ length: 100 }, () => t.sleep({})))).length",
    },
    close: async () => {},
  };
}

/** The median time (µs) of one line written to a child Node process that echoes it back over its stdio pipes. */
async function pipeRoundTrip(trips) {
  const child = spawn(
    process.execPath,
    ["-e", "process.stdin.on('data', (chunk) => process.stdout.write(chunk));"],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const line = `${JSON.stringify({ type: "call", run: 1, call: 1, tool: "echo", args: '{"n":1}' })}\n`;
  const times = [];
  try {
    for (let i = 0; i < trips; i++) {
      const started = performance.now();
      child.stdin.write(line);
      const [chunk] = await once(child.stdout, "data");
      check(chunk.toString() === line, "pipe round trip: the echo", chunk.toString());
      times.push((performance.now() - started) * 1000);
    }
  } finally {
    child.kill();
  }
  return median(times);
}

/** One round of the four measures for one executor. */
async function measure(executor) {
  const { run, code } = executor;
  const step = (what) => process.stderr.write(`  ${what}\n`);
  step("trivial runs");
  await sample(20, () => run(code.trivial, 2));
  const trivial = median(await sample(100, () => run(code.trivial, 2)));
  step("sequential calls");
  const withCalls = [];
  const withoutCalls = [];
  for (let i = 0; i < LOOP_PAIRS; i++) {
    withCalls.push(...(await sample(1, () => run(code.loop(CALLS), CALLS))));
    withoutCalls.push(...(await sample(1, () => run(code.loop(0), 0))));
  }
  const perCallUs = ((median(withCalls) - median(withoutCalls)) / CALLS) * 1000;
  step("fan-out");
  const fan = median(await sample(3, () => run(code.fan, 100)));
  step("throughput");
  const total = 300;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next++ < total) await run(code.trivial, 2);
    }),
  );
  const rate = total / ((performance.now() - started) / 1000);
  return { trivial, perCallUs, fan, rate };
}

const executors = [
  cordonExecutor("cordon, in-process isolate", isolateEnvironment()),
  cordonExecutor("cordon, sandbox-host default", sandboxHostEnvironment()),
  tanstackExecutor(),
  await utcpExecutor(),
];
const quiet = { log: console.log, info: console.info };
const results = new Map(executors.map((executor) => [executor.name, []]));
/** Per round: a bare round trip of one JSON line to a child process, the least a process boundary costs. */
const pipeTrips = [];
try {
  console.log = () => {};
  console.info = () => {};
  // A first round for every executor that is not recorded: the figures are for a process that has
  // been running (JIT-compiled, pools filled), as an agent's is.
  for (let round = 0; round <= ROUNDS; round++) {
    for (const executor of executors) {
      process.stderr.write(`round ${round === 0 ? "0 (warm-up)" : round}: ${executor.name}\n`);
      const measured = await measure(executor);
      if (round > 0) results.get(executor.name).push(measured);
    }
    const trip = await pipeRoundTrip(2_000);
    if (round > 0) pipeTrips.push(trip);
  }
} finally {
  console.log = quiet.log;
  console.info = quiet.info;
}
await Promise.all(executors.map((executor) => executor.close()));

const of = (name, key) => median(results.get(name).map((r) => r[key]));
const range = (name, key, digits) => {
  const values = results.get(name).map((r) => r[key]);
  return `${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)}`;
};
const reference = "TanStack ai-code-mode (isolated-vm)";
console.log(
  `code-mode executors in one ${process.version} process, median of ${ROUNDS} rounds [range over the rounds] (ratios: against TanStack, same run)`,
);
for (const { name } of executors) {
  const ratio = (key) => `${(of(name, key) / of(reference, key)).toFixed(2)}x`;
  console.log(`  ${name}`);
  console.log(
    `    trivial run:                 ${of(name, "trivial").toFixed(2)} ms (${ratio("trivial")}) [${range(name, "trivial", 2)}]`,
  );
  console.log(
    `    one sequential tool call:    ${of(name, "perCallUs").toFixed(0)} µs (${ratio("perCallUs")}) [${range(name, "perCallUs", 0)}]`,
  );
  console.log(
    `    100 calls of 10 ms, at once: ${of(name, "fan").toFixed(0)} ms (${ratio("fan")}) [${range(name, "fan", 0)}]`,
  );
  console.log(
    `    trivial runs, 4 at once:     ${of(name, "rate").toFixed(0)} runs/s (${ratio("rate")}) [${range(name, "rate", 0)}]`,
  );
}
console.log(
  `  for reference: one JSON line to a child Node process over pipes and back (no sandbox, no tool): ${median(pipeTrips).toFixed(0)} µs (${(median(pipeTrips) / of(reference, "perCallUs")).toFixed(2)}x TanStack's sequential call) [${Math.min(...pipeTrips).toFixed(0)}-${Math.max(...pipeTrips).toFixed(0)}]`,
);
console.log("bench-peers: report complete");
process.exit(0);
