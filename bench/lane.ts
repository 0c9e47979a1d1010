// The round trip of the "worker lane" design, measured by a prototype (bench/lane-child.mjs): a call
// from an isolate that a worker thread of a child process runs synchronously, answered by this process
// over the child's own pipe. The default environment's lane (sandbox/program/lane.ts) does the same
// on the sandbox-host process's main thread, with the whole pipeline on both sides; this bare figure is
// what it is set beside (see docs/measurements.md). The answers are checked: a round whose sum is wrong
// stops the benchmark.

import { spawn } from "node:child_process";
import type { Duplex } from "node:stream";
import { fileURLToPath } from "node:url";
import { median } from "./stats.js";

/** The median time per call (µs) over `rounds` loops of `calls` sequential calls through the prototype. */
export async function laneRoundTrip(calls: number, rounds: number): Promise<number> {
  const child = spawn(
    process.execPath,
    [
      "--no-node-snapshot",
      fileURLToPath(new URL("./lane-child.mjs", import.meta.url)),
      String(calls),
      String(rounds),
    ],
    { stdio: ["ignore", "pipe", "inherit", "pipe"] },
  );
  // The fourth stdio entry, a pipe, is a duplex socket.
  const channel = child.stdio[3] as Duplex;
  let incoming = "";
  channel.on("data", (chunk: Buffer) => {
    incoming += chunk.toString();
    let answers = "";
    for (let end = incoming.indexOf("\n"); end >= 0; end = incoming.indexOf("\n")) {
      const { args } = JSON.parse(incoming.slice(0, end)) as { args: string };
      incoming = incoming.slice(end + 1);
      const { a, b } = JSON.parse(args) as { a: number; b: number };
      answers += `${JSON.stringify({ value: a + b })}\n`;
    }
    if (answers !== "") channel.write(answers);
  });
  const times: number[] = [];
  let reports = "";
  try {
    await new Promise<void>((resolve, reject) => {
      child.on("exit", (code) => reject(new Error(`lane prototype: the child exited (${code}) early`)));
      child.on("error", reject);
      // A broken channel (the child died mid-write) fails the figure instead of crashing the bench.
      channel.on("error", (error) =>
        reject(new Error(`lane prototype: the channel failed: ${error.message}`)),
      );
      child.stdout!.on("data", (chunk: Buffer) => {
        reports += chunk.toString();
        for (let end = reports.indexOf("\n"); end >= 0; end = reports.indexOf("\n")) {
          const report = JSON.parse(reports.slice(0, end)) as { us?: number; end?: true; error?: string };
          reports = reports.slice(end + 1);
          if (report.error !== undefined) reject(new Error(`lane prototype: ${report.error}`));
          else if (report.end) resolve();
          else if (report.us !== undefined) times.push(report.us);
        }
      });
    });
  } finally {
    child.kill();
  }
  if (times.length !== rounds)
    throw new Error(`lane prototype: ${times.length} of ${rounds} rounds reported`);
  // The first rounds warm up the JIT on both sides.
  return median(times.slice(Math.min(2, rounds - 1)));
}
