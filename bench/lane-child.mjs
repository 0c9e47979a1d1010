// The child of bench/lane.ts: a prototype of the "worker lane" design for the sandbox-host process, not
// code cordon runs. A worker thread runs an isolate synchronously (runSync); the isolate's code calls a
// function of that worker (applySync, which isolated-vm runs on the same thread: no hop), and the
// function writes the call as a JSON line on fd 3 and blocks in readSync until the answer line comes
// back. So a call wakes two threads (the parent's, then this worker) where the default environment's
// wakes four (the sandbox-host's main thread twice, the parent's, the isolate's thread).
//
// Run by bench/lane.ts as: node --no-node-snapshot bench/lane-child.mjs <calls> <rounds>
// It reports on stdout, one JSON line per round: { "us": time per call }, then { "end": true }; a run
// whose sum is wrong reports { "error": ... } and stops.

import { readSync, writeSync } from "node:fs";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import ivm from "isolated-vm";

const CALL_FD = 3;

if (isMainThread) {
  const [calls, rounds] = process.argv.slice(2).map(Number);
  const worker = new Worker(new URL(import.meta.url), { workerData: { calls, rounds } });
  worker.on("message", (report) => process.stdout.write(`${JSON.stringify(report)}\n`));
  worker.on("error", (error) => {
    process.stdout.write(`${JSON.stringify({ error: String(error) })}\n`);
    process.exit(1);
  });
} else {
  lane(workerData.calls, workerData.rounds);
}

/** Runs `rounds` loops of `calls` sequential calls in an isolate, each call a blocking round trip on fd 3. */
function lane(calls, rounds) {
  const isolate = new ivm.Isolate({ memoryLimit: 64 });
  const context = isolate.createContextSync();
  const buffer = Buffer.alloc(64 * 1024);
  let pending = "";
  const readLine = () => {
    for (;;) {
      const end = pending.indexOf("\n");
      if (end >= 0) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 1);
        return line;
      }
      const read = readSync(CALL_FD, buffer, 0, buffer.length, null);
      if (read === 0) throw new Error("the parent closed the call channel");
      pending += buffer.toString("utf8", 0, read);
    }
  };
  const call = new ivm.Reference((argsJson) => {
    writeSync(CALL_FD, `${JSON.stringify({ tool: "add", args: argsJson })}\n`);
    return readLine();
  });
  context.global.setSync("__call", call);
  // Every await here meets a value that is already there, so the whole loop ends inside runSync.
  const script = isolate.compileScriptSync(`
    globalThis.__sum = undefined;
    (async () => {
      const add = (args) => JSON.parse(__call.applySync(undefined, [JSON.stringify(args)]));
      let s = 0;
      for (let i = 0; i < ${calls}; i++) s = (await add({ a: s, b: 1 })).value;
      globalThis.__sum = s;
    })();`);
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    script.runSync(context);
    const elapsed = performance.now() - started;
    const sum = context.global.getSync("__sum");
    if (sum !== calls) {
      parentPort.postMessage({ error: `round ${round}: the sum was ${sum}, not ${calls}` });
      return;
    }
    parentPort.postMessage({ us: (elapsed * 1000) / calls });
  }
  parentPort.postMessage({ end: true });
}
