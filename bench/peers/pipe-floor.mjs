// The floor of a round trip between two Node processes, per call: a line over pipes and back, (a) through
// Node streams on both sides (what the default environment's agent side does, and bench-peers' reference
// figure), (b) with blocking reads and writes on FIFOs on both sides (no event loop: the least Node can
// do per round trip). Idle or with the other core busy (SEQCALL_BUSY=1, a spinning worker thread).
import { execFileSync, spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";

const N = 20_000;
const spinner = process.env.SEQCALL_BUSY === "1" ? new Worker("for (;;) {}", { eval: true }) : undefined;

async function streams() {
  const child = spawn(
    process.execPath,
    [
      "-e",
      `process.stdin.setEncoding("utf8"); let b = ""; process.stdin.on("data", (d) => { b += d; let i; while ((i = b.indexOf("\\n")) >= 0) { const l = b.slice(0, i); b = b.slice(i + 1); process.stdout.write(JSON.stringify({ n: JSON.parse(l).n + 1 }) + "\\n"); } });`,
    ],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  child.stdout.setEncoding("utf8");
  let buffer = "";
  let waiter;
  child.stdout.on("data", (d) => {
    buffer += d;
    const i = buffer.indexOf("\n");
    if (i >= 0) {
      const l = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      waiter(JSON.parse(l).n);
    }
  });
  const trip = (n) =>
    new Promise((resolve) => {
      waiter = resolve;
      child.stdin.write(`${JSON.stringify({ n })}\n`);
    });
  for (let i = 0; i < 2000; i++) await trip(i);
  const started = performance.now();
  for (let i = 0; i < N; i++) await trip(i);
  const us = ((performance.now() - started) / N) * 1000;
  child.kill();
  return us;
}

async function fifos() {
  const dir = mkdtempSync(join(tmpdir(), "pipe-floor-"));
  const [up, down] = [join(dir, "up"), join(dir, "down")];
  execFileSync("mkfifo", [up, down]);
  const child = spawn(
    process.execPath,
    [
      "-e",
      `const fs = require("node:fs"); const i = fs.openSync(${JSON.stringify(up)}, "r"); const o = fs.openSync(${JSON.stringify(down)}, "w"); const b = Buffer.alloc(64); for (;;) { const n = fs.readSync(i, b); if (n <= 0) break; fs.writeSync(o, b, 0, n); }`,
    ],
    { stdio: "inherit" },
  );
  const out = openSync(up, "w");
  const input = openSync(down, "r");
  const b = Buffer.alloc(64);
  const line = Buffer.from('{"n":1}\n');
  const trip = () => {
    writeSync(out, line);
    readSync(input, b);
  };
  for (let i = 0; i < 2000; i++) trip();
  const started = performance.now();
  for (let i = 0; i < N; i++) trip();
  const us = ((performance.now() - started) / N) * 1000;
  closeSync(out);
  closeSync(input);
  child.kill();
  return us;
}

console.log(`round trip to a child process, ${process.version}, ${spinner ? "other core busy" : "idle"}`);
console.log(`  a JSON line through Node streams both ways: ${(await streams()).toFixed(1)} µs`);
console.log(`  a line through FIFOs, blocking reads both sides: ${(await fifos()).toFixed(1)} µs`);
await spinner?.terminate();
process.exit(0);
