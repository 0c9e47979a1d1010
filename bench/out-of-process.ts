// The out-of-process environments: Docker's warm pool against a cold `docker run` of the same image,
// a remote server over loopback against the default environment, and throughput with two Docker
// engines against one. Medians and ratios measured in the same run; every measured run is checked.
// Needs the engines and image of `make image`. Run: make bench.

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { codeMode, sandboxHostEnvironment, Toolset, tool } from "cordon";
import { dockerEnvironment, SANDBOX_IMAGE } from "cordon/docker";
import { remoteEnvironment, serveSandboxes } from "cordon/remote";
import { z } from "zod";
import { checked } from "./check.js";
import { fmt, median, sample } from "./stats.js";

const SECOND = "/run/cordon-docker-2/docker.sock";
const add = tool({
  name: "add",
  description: "Add.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});
const toolset = new Toolset([add]);
const CALLS = 100;
const loop = `let s = 0; for (let i = 0; i < ${CALLS}; i++) s = await tools.add({ a: s, b: 1 }); s`;
const empty = `let s = 0; for (let i = 0; i < ${CALLS}; i++) s = s + 1; s`;

// 1. Docker: a trivial run from the warm pool against a cold `docker run` doing the same run. Each
// measured run starts with the pool full and no container starting or being removed (a container serves
// one run, so back-to-back runs would also measure the start of the next run's container).
const dockerEnv = dockerEnvironment({ warm: 2 });
const docker = codeMode({ tools: toolset, environment: dockerEnv });
const run = checked(() => docker.run("1 + 1"), 2, "docker warm pool: trivial run");
// A run timed while the pool is not full would be a cold run counted as a warm one: stop instead.
const poolFull = async () => {
  for (let i = 0; ; i++) {
    const [status] = dockerEnv.status();
    if (status && status.ready === 2 && status.starting === 0) break;
    if (i === 600) {
      throw new Error(
        `docker warm pool: not full after 30 s (${JSON.stringify(status)}); a run timed now would not come from the pool.`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
};
const warmRun = async () => run();
// The pool starts filling at the first run: that one is not timed.
await run();
const warmTimes: number[] = [];
for (let i = 0; i < 25; i++) {
  await poolFull();
  warmTimes.push(...(await sample(1, warmRun)));
}
const warm = median(warmTimes);
const cold = median(await sample(8, coldDockerRun));
await docker.close();
console.log("docker: trivial run from the warm pool vs a cold `docker run` of the same image (same run)");
console.log(`  warm pool:  ${fmt(warm / 1000, "ms")} median`);
console.log(`  cold run:   ${fmt(cold / 1000, "ms")} median`);
console.log(`  the warm pool is ${(cold / warm).toFixed(1)}x faster (aim: >= 10x)`);

// 2. Remote over loopback against the default environment: trivial run and per-call cost.
const token = "bench-token-0123456789abcdef";
const server = await serveSandboxes({ environment: sandboxHostEnvironment(), token });
const modes = {
  "sandbox host (default)": codeMode({
    tools: toolset,
    limits: { maxToolCalls: CALLS },
    environment: sandboxHostEnvironment(),
  }),
  "remote over loopback": codeMode({
    tools: toolset,
    limits: { maxToolCalls: CALLS },
    environment: remoteEnvironment({ url: server.url, token }),
  }),
};
const figures: Record<string, { trivial: number; perCall: number }> = {};
for (const [name, cm] of Object.entries(modes)) {
  const trivial = checked(() => cm.run("1 + 1"), 2, `${name}: trivial run`);
  const withCalls = checked(() => cm.run(loop), CALLS, `${name}: ${CALLS} sequential calls`);
  const withoutCalls = checked(() => cm.run(empty), CALLS, `${name}: the loop without calls`);
  await sample(20, trivial);
  await sample(3, withCalls);
  figures[name] = {
    trivial: median(await sample(200, trivial)),
    perCall: (median(await sample(15, withCalls)) - median(await sample(15, withoutCalls))) / CALLS,
  };
  await cm.close();
}
await server.close();
const [local, remote] = Object.values(figures) as [
  { trivial: number; perCall: number },
  { trivial: number; perCall: number },
];
console.log("remote: a sandbox server on 127.0.0.1 vs the default environment (same run, idle machine)");
for (const [name, f] of Object.entries(figures)) {
  console.log(
    `  ${name.padEnd(24)} trivial run ${fmt(f.trivial / 1000, "ms")}, sequential proxied call ${fmt(f.perCall, "µs")}`,
  );
}
console.log(
  `  ratio remote / default: trivial run ${(remote.trivial / local.trivial).toFixed(2)}x, per call ${(remote.perCall / local.perCall).toFixed(2)}x`,
);

// 3. Throughput: concurrent runs on one Docker engine against two.
if (existsSync(SECOND)) {
  const work = "let x = 0; for (let i = 0; i < 2e6; i++) x += i; x";
  const expected = (2e6 * (2e6 - 1)) / 2;
  const throughput = async (engines: { socketPath: string }[]) => {
    const cm = codeMode({
      tools: toolset,
      environment: dockerEnvironment({ engines, warm: 4, maxContainers: 4 }),
    });
    const once = checked(() => cm.run(work), expected, "docker throughput run");
    await Promise.all(Array.from({ length: 4 }, once));
    const total = 48;
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next++ < total) await once();
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    await cm.close();
    return total / seconds;
  };
  const one = await throughput([{ socketPath: "/var/run/docker.sock" }]);
  const two = await throughput([{ socketPath: "/var/run/docker.sock" }, { socketPath: SECOND }]);
  console.log(
    "docker: throughput of 8 concurrent runs (4 containers per engine; both engines share this machine's 2 cores)",
  );
  console.log(
    `  one engine: ${one.toFixed(1)} runs/s, two engines: ${two.toFixed(1)} runs/s (${(two / one).toFixed(2)}x)`,
  );
}

/** One trivial run in a new container started with `docker run`, as a cold start costs. */
async function coldDockerRun(): Promise<void> {
  const limits = { timeoutMs: 5000, cpuTimeMs: 2000, memoryMb: 64, maxLogChars: 1000, maxResultChars: 1000 };
  const input = [
    { type: "open", sandbox: 1, limits },
    { type: "exec", sandbox: 1, run: 2, request: { code: "return 1 + 1", toolNames: {}, limits } },
  ];
  const child = spawn(
    "docker",
    [
      "run",
      "-i",
      "--rm",
      "--init",
      "--network",
      "none",
      "--read-only",
      "--cap-drop",
      "ALL",
      "--security-opt",
      "no-new-privileges",
      "--tmpfs",
      "/tmp",
      SANDBOX_IMAGE,
    ],
    { stdio: ["pipe", "pipe", "ignore"] },
  );
  let output = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('"type":"done"')) child.stdin.end();
    });
    child.on("exit", () =>
      output.includes('"valueJson":"2"')
        ? resolve()
        : reject(new Error(`cold docker run failed: ${output.slice(0, 300)}`)),
    );
    for (const command of input) child.stdin.write(`${JSON.stringify(command)}\n`);
  });
}
