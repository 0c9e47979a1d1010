// cordon beside the public code-mode executors, each doing the same four things with the same two
// tools (measure.mjs): a trivial run, one sequential tool call, 100 calls of 10 ms in one Promise.all,
// and trivial runs with 4 at once. In one Node 22 process: cordon (in-process isolate, the sandbox-host
// default, the QuickJS environment), TanStack ai-code-mode (its isolated-vm driver), UTCP code-mode
// (isolated-vm) and Vercel's AI SDK code mode (@ai-sdk/code-mode: QuickJS in worker threads). In one
// workerd process beside it (scripts/bench-peers.sh starts it and names its address in
// CORDON_PEERS_WORKERD): Cloudflare's codemode (@cloudflare/codemode, a Worker per run through a Worker
// Loader binding) and cordon's QuickJS environment in the same Worker, driven round by round over
// loopback HTTP (workerd/worker.mjs; the HTTP is outside the timed runs). Every measured run is checked
// for success and its value; a failed one stops the benchmark. Rounds alternate the executors, after
// one warm-up round that is not recorded; the median of the rounds is printed with the range over them,
// since a 2-core VM's figures wander between rounds. UTCP prints a line per tool call; console.log and
// console.info are silenced while measuring, for every executor alike. Each round also times a bare
// round trip of one JSON line to a child Node process: the least any sandbox in another process adds to
// a call, printed beside TanStack's call of the same run.
// Run: make bench-peers (scripts/bench-peers.sh sets up Node 22, workerd and the packages).

import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { experimental_runCodeMode as runCodeMode } from "@ai-sdk/code-mode";
import releaseSync from "@jitl/quickjs-wasmfile-release-sync";
import { CodeModeUtcpClient } from "@utcp/code-mode";
import { addFunctionToUtcpDirectCall } from "@utcp/direct-call";
import { tool as aiTool } from "ai";
import { sandboxHostEnvironment } from "cordon";
import { isolateEnvironment } from "cordon/in-process";
import { quickjsEnvironment } from "cordon/quickjs";
import { newQuickJSWASMModuleFromVariant, newVariant } from "quickjs-emscripten-core";
import { z } from "zod";
import { cordonExecutor } from "./cordon.mjs";
import { measure, median } from "./measure.mjs";
import { tanstackExecutor } from "./tanstack.mjs";

const ROUNDS = Number(process.argv[2] ?? 5);
/** Untimed sequential calls each executor in this process makes before its first round. */
const WARM_UP_CALLS = 10_000;
const sleep10 = () => new Promise((resolve) => setTimeout(() => resolve(10), 10));
function check(ok, what, got) {
  if (!ok) throw new Error(`${what}: ${JSON.stringify(got)?.slice(0, 400)}`);
}

/**
 * Vercel's AI SDK code mode, run directly (its README's `experimental_runCodeMode`) with AI SDK tools:
 * each run a fresh QuickJS context in a worker thread of the `run` package's pool. Its default allows 32
 * bridge requests in flight and refuses the fan-out's 100 ("exceeded the 32 in-flight bridge request
 * limit"): it gets 100, as cordon does.
 */
function vercelExecutor() {
  const tools = {
    echo: aiTool({
      description: "Echo.",
      inputSchema: z.object({ n: z.number() }),
      execute: async ({ n }) => n,
    }),
    sleep: aiTool({ description: "Sleep 10 ms.", inputSchema: z.object({}), execute: sleep10 }),
  };
  const options = { executionPolicy: { maxBridgeRequests: 1_000, maxInFlightBridgeRequests: 100 } };
  return {
    name: "Vercel AI SDK code-mode (QuickJS, worker threads)",
    run: async (js, expected) => {
      const result = await runCodeMode({ js, tools, options });
      check(result === expected, `Vercel: run of ${js.slice(0, 60)}`, result);
    },
    code: {
      trivial: "return 1 + 1",
      loop: (n) => `let s = 0; for (let i = 0; i < ${n}; i++) s = await tools.echo({ n: s + 1 }); return s`,
      fan: "return (await Promise.all(Array.from({ length: 100 }, () => tools.sleep({})))).length",
    },
    close: async () => {},
  };
}

/** Waits until the workerd Worker answers (it says so within seconds of starting); throws after 30 s. */
async function workerdReady(address) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${address}/ready`)).ok) return;
    } catch {}
    if (Date.now() > deadline)
      throw new Error(`bench-peers: workerd did not answer on ${address} within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** An executor in the workerd Worker: each round is one request, which the Worker answers with its figures. */
function workerdExecutor(address, key, name) {
  return {
    name,
    measure: async () => {
      const response = await fetch(`${address}/measure?executor=${key}`);
      const body = await response.text();
      if (!response.ok) throw new Error(`${name} in workerd: ${body}`);
      return JSON.parse(body);
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

/**
 * What a fresh QuickJS costs before any code mode runs in it, in ms (medians): a new WebAssembly instance
 * of QuickJS, as each cordon QuickJS sandbox is; a new context in a live one, as each run of Vercel's
 * code mode is (a context in a QuickJS its pooled worker thread keeps); and a sandbox of cordon's QuickJS
 * environment opened and disposed (its instance and its prelude), with no spare made ahead.
 */
async function quickjsParts() {
  const wasm = createRequire(import.meta.url).resolve("@jitl/quickjs-wasmfile-release-sync/wasm");
  const variant = newVariant(releaseSync, { wasmModule: new WebAssembly.Module(readFileSync(wasm)) });
  const time = async (n, fn) => {
    const times = [];
    for (let i = 0; i < n; i++) {
      const started = performance.now();
      await fn();
      times.push(performance.now() - started);
    }
    return median(times);
  };
  const instance = await time(20, () => newQuickJSWASMModuleFromVariant(variant));
  const live = await newQuickJSWASMModuleFromVariant(variant);
  const context = await time(50, () => live.newContext().dispose());
  const environment = quickjsEnvironment({ warm: 0 });
  const limits = {
    timeoutMs: 30_000,
    cpuTimeMs: 10_000,
    memoryMb: 128,
    maxLogChars: 10_000,
    maxResultChars: 1e6,
  };
  const sandbox = await time(20, async () => (await environment.open(limits)).dispose());
  await environment.close();
  return { instance, context, sandbox };
}

const step = (what) => process.stderr.write(`  ${what}\n`);
const workerd = process.env.CORDON_PEERS_WORKERD;
if (workerd) await workerdReady(workerd);
const executors = [
  cordonExecutor("cordon, in-process isolate", isolateEnvironment()),
  cordonExecutor("cordon, sandbox-host default", sandboxHostEnvironment()),
  cordonExecutor("cordon, QuickJS (wasm)", quickjsEnvironment()),
  tanstackExecutor(),
  await utcpExecutor(),
  vercelExecutor(),
  ...(workerd
    ? [
        workerdExecutor(workerd, "cordon", "cordon, QuickJS in workerd"),
        workerdExecutor(workerd, "cloudflare", "Cloudflare codemode (workerd, Worker Loader)"),
      ]
    : []),
];
const quiet = { log: console.log, info: console.info };
const results = new Map(executors.map((executor) => [executor.name, []]));
/** Per round: a bare round trip of one JSON line to a child process, the least a process boundary costs. */
const pipeTrips = [];
const started = performance.now();
try {
  console.log = () => {};
  console.info = () => {};
  // 10,000 untimed sequential calls per executor in this process, then a first round for every executor
  // that is not recorded: the figures are for a process that has been running (JIT-compiled, pools
  // filled), as an agent's is. V8 goes on optimising a call's path on background threads for thousands
  // of calls (a round's 2,500 were not enough: cordon's default, whose path spans two processes, took
  // 2-3x its settled time in the first recorded rounds). A Worker in workerd is made anew per request.
  for (const executor of executors) {
    if (executor.code === undefined) continue;
    process.stderr.write(`warm-up: ${WARM_UP_CALLS} sequential calls: ${executor.name}\n`);
    for (let i = 0; i < WARM_UP_CALLS / 100; i++) await executor.run(executor.code.loop(100), 100);
  }
  for (let round = 0; round <= ROUNDS; round++) {
    for (const executor of executors) {
      process.stderr.write(`round ${round === 0 ? "0 (warm-up)" : round}: ${executor.name}\n`);
      const measured = executor.measure ? await executor.measure() : await measure(executor, { step });
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
const quickjs = await quickjsParts();

const of = (name, key) => median(results.get(name).map((r) => r[key]));
const range = (name, key, digits) => {
  const values = results.get(name).map((r) => r[key]);
  return `${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)}`;
};
const reference = "TanStack ai-code-mode (isolated-vm)";
const FIGURES = [
  { key: "trivial", label: "trivial run:                ", unit: "ms", digits: 2 },
  { key: "perCallUs", label: "one sequential tool call:   ", unit: "µs", digits: 0 },
  { key: "fan", label: "100 calls of 10 ms, at once:", unit: "ms", digits: 0 },
  { key: "rate", label: "trivial runs, 4 at once:    ", unit: "runs/s", digits: 0, higherIsBetter: true },
];
/** The version installed beside the harness (some packages export no ./package.json to resolve). */
const versionOf = (name) =>
  JSON.parse(readFileSync(new URL(`./node_modules/${name}/package.json`, import.meta.url), "utf8")).version;
const PACKAGES = [
  "cordon",
  "@tanstack/ai-code-mode",
  "@tanstack/ai-isolate-node",
  "@tanstack/ai",
  "@utcp/code-mode",
  "@ai-sdk/code-mode",
  "run",
  "ai",
  "@cloudflare/codemode",
  "isolated-vm",
  "@jitl/quickjs-wasmfile-release-sync",
  "quickjs-emscripten-core",
  "zod",
];
console.log(
  `code-mode executors in one ${process.version} process${workerd ? ` and one workerd ${process.env.CORDON_PEERS_WORKERD_VERSION} process (@cloudflare/workerd-linux-*)` : ""}, median of ${ROUNDS} rounds [range over the rounds] (ratios: against TanStack, same run)`,
);
console.log(`  versions: ${PACKAGES.map((name) => `${name} ${versionOf(name)}`).join(", ")}`);
if (!workerd) {
  console.log(
    "  not measured: Cloudflare codemode and cordon in workerd (CORDON_PEERS_WORKERD names no workerd serving workerd/worker.mjs; make bench-peers starts one)",
  );
}
for (const { name } of executors) {
  console.log(`  ${name}`);
  for (const { key, label, unit, digits } of FIGURES) {
    const ratio = `${(of(name, key) / of(reference, key)).toFixed(2)}x`;
    console.log(
      `    ${label} ${of(name, key).toFixed(digits)} ${unit} (${ratio}) [${range(name, key, digits)}]`,
    );
  }
}
console.log(
  `  for reference: one JSON line to a child Node process over pipes and back (no sandbox, no tool): ${median(pipeTrips).toFixed(0)} µs (${(median(pipeTrips) / of(reference, "perCallUs")).toFixed(2)}x TanStack's sequential call) [${Math.min(...pipeTrips).toFixed(0)}-${Math.max(...pipeTrips).toFixed(0)}]`,
);
console.log(
  `  for reference: QuickJS alone in this process (no code mode): a new WebAssembly instance ${quickjs.instance.toFixed(2)} ms, a new context in a live instance ${quickjs.context.toFixed(2)} ms; a sandbox of cordon's QuickJS environment opened and disposed ${quickjs.sandbox.toFixed(2)} ms`,
);
// Per figure: cordon's best executor against the best peer (a ratio below 1 is cordon ahead, except for
// runs/s, where it is above 1), and in workerd, cordon against Cloudflare on the same runtime.
const isCordon = (name) => name.startsWith("cordon");
const best = (names, { key, higherIsBetter }) =>
  [...names].sort((a, b) => (higherIsBetter ? of(b, key) - of(a, key) : of(a, key) - of(b, key)))[0];
const names = executors.map((executor) => executor.name);
for (const figure of FIGURES) {
  const ours = best(names.filter(isCordon), figure);
  const theirs = best(
    names.filter((name) => !isCordon(name)),
    figure,
  );
  const ratio = of(ours, figure.key) / of(theirs, figure.key);
  const ahead = figure.higherIsBetter ? ratio > 1 : ratio < 1;
  console.log(
    `  ${figure.label.replace(/:\s*$/, "")}: cordon's best (${ours}) ${ratio.toFixed(2)}x the best peer's (${theirs}): ${ahead ? "ahead" : "BEHIND"}`,
  );
}
if (workerd) {
  const ours = "cordon, QuickJS in workerd";
  const theirs = "Cloudflare codemode (workerd, Worker Loader)";
  const line = FIGURES.map(
    ({ key, label }) => `${label.replace(/:\s*$/, "")} ${(of(ours, key) / of(theirs, key)).toFixed(2)}x`,
  );
  console.log(
    `  in workerd, cordon's QuickJS environment against Cloudflare codemode (times below 1x and runs/s above 1x are cordon ahead): ${line.join(", ")}`,
  );
}
console.log(`bench-peers: ${((performance.now() - started) / 1000).toFixed(0)} s of rounds`);
console.log("bench-peers: report complete");
process.exit(0);
