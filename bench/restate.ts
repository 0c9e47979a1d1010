// The cost of a journaled call on Restate: code mode's runs inside a Restate handler, through
// restateRunCode (every record a step of the invocation, acknowledged by the server before the code goes
// on) beside the same runs with no journal (cm.run in the same handler), on the Restate server of
// scripts/restate-server.sh (127.0.0.1) and an endpoint in this process. Runs of N sequential calls of a
// cheap synchronous tool (N = 0 and 100), and of one Promise.all of 100 calls; each run is timed inside
// the handler (the ingress and the invocation's own start are not the journal's), median of 11 rounds.
// The per-call figure is (run with N calls - run with none) / N; the fan-out figure is the run's median
// and its ratio to the run with no journal. Beside them, what one bare step (`ctx.run` of nothing)
// takes on this server: a journaled call is two (its start, its outcome), a fan-out a few. Every run is
// checked (status ok, the right value) and a failed one stops the benchmark.
// Run: make bench-restate (it measures the built package), or alone after `npm run build` and `make restate`:
// RESTATE_LOGGING=WARN TSX_TSCONFIG_PATH=tsconfig.build.json node --no-node-snapshot --import tsx bench/restate.ts

import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import * as restate from "@restatedev/restate-sdk";
import { restateRunCode } from "cordon/restate";
import { benchCodeMode, FAN_OUT, perCall, sequential } from "./journaled-code.js";
import { fmt, median } from "./stats.js";

const ROUNDS = 11;
const N = 100;
/** Bare steps per run of the `steps` handler. */
const STEPS = 20;

const cm = benchCodeMode();

/** What a handler answers: the run's status and value, and how long it took in the handler. */
interface Timed {
  status: string;
  value: unknown;
  ms: number;
}

const timedRun = async (run: () => ReturnType<typeof cm.run>): Promise<Timed> => {
  const started = performance.now();
  const result = await run();
  return { status: result.status, value: result.value ?? null, ms: performance.now() - started };
};

const service = restate.service({
  name: `CordonBench_${randomUUID().slice(0, 8)}`,
  handlers: {
    plain: (_ctx: restate.Context, code: string) => timedRun(() => cm.run(code)),
    journaled: (ctx: restate.Context, code: string) => timedRun(() => restateRunCode(ctx, cm, code)),
    steps: async (ctx: restate.Context): Promise<Timed> => {
      const started = performance.now();
      for (let i = 0; i < STEPS; i++) await ctx.run("step", () => i);
      return { status: "ok", value: STEPS, ms: (performance.now() - started) / STEPS };
    },
  },
});

const { stdout } = await promisify(execFile)(
  join(import.meta.dirname, "..", "scripts", "restate-server.sh"),
  [],
  { timeout: 180_000 },
);
const [, ingress, admin] = /ingress (http:\/\/\S+), admin (http:\/\/[^\s)]+)/.exec(stdout) ?? [];
if (ingress === undefined || admin === undefined) throw new Error(`no server addresses:\n${stdout}`);
const server = http2.createServer(restate.createEndpointHandler({ services: [service] }));
// The server's connections to the endpoint, closed at the end (they would keep this process alive).
const sessions = new Set<http2.ServerHttp2Session>();
server.on("session", (session) => sessions.add(session));
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const registered = await fetch(`${admin}/deployments`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ uri: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, force: true }),
});
if (!registered.ok)
  throw new Error(`registering the endpoint: ${registered.status} ${await registered.text()}`);
const deployment = ((await registered.json()) as { id: string }).id;

async function invoke(
  handler: "plain" | "journaled" | "steps",
  code: string,
  expected: number,
): Promise<number> {
  const response = await fetch(`${ingress}/${service.name}/${handler}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(code),
  });
  const answer = (await response.json()) as Timed;
  if (!response.ok || answer.status !== "ok" || answer.value !== expected) {
    throw new Error(`benchmark run failed: ${response.status} ${JSON.stringify(answer)}`);
  }
  return answer.ms;
}

try {
  const rows: { name: string; perCall: number; fan: number }[] = [];
  for (const handler of ["plain", "journaled"] as const) {
    for (let i = 0; i < 3; i++) await invoke(handler, sequential(N), N);
    const none: number[] = [];
    const many: number[] = [];
    const fan: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      none.push(await invoke(handler, sequential(0), 0));
      many.push(await invoke(handler, sequential(N), N));
      fan.push(await invoke(handler, FAN_OUT, 100));
    }
    rows.push({
      name: handler === "plain" ? "no journal" : "restateRunCode",
      perCall: perCall(none, many, N),
      fan: median(fan),
    });
  }
  const steps: number[] = [];
  for (let i = 0; i < ROUNDS; i++) steps.push(await invoke("steps", "", STEPS));
  const base = rows[0]!;
  console.log(`a bare step (ctx.run of nothing) ${fmt(median(steps), "ms")}`);
  for (const row of rows) {
    console.log(
      `${row.name.padEnd(15)} sequential call ${fmt(row.perCall * 1000, "µs")} (+${fmt((row.perCall - base.perCall) * 1000, "µs")})  ` +
        `fan-out of 100 ${fmt(row.fan, "ms")} (${(row.fan / base.fan).toFixed(2)}x)`,
    );
  }
} finally {
  await fetch(`${admin}/deployments/${deployment}?force=true`, { method: "DELETE" });
  for (const session of sessions) session.destroy();
  server.close();
  await cm.close();
}
