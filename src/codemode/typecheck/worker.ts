/**
 * The checker's worker thread: loads TypeScript, parses the lib and the tool set's declarations, warms
 * the compiler up, says it is ready, then answers one check at a time, each within its time budget
 * (interrupt.ts). The agent's thread terminates it when it does not answer soon after the budget (a check
 * stuck where it cannot be interrupted); its memory is capped by the Worker's resourceLimits.
 */

import { createRequire } from "node:module";
import { parentPort, workerData } from "node:worker_threads";
import type ts from "typescript";
import { ModelCodeChecker } from "./checker-core.js";
import { stillSound, within } from "./interrupt.js";
import type { CheckerWorkerData, CheckRequest, WorkerReply } from "./types.js";

/** Code like a model's: the first checks of a fresh compiler are slow, and these are paid for at start. */
const WARM_UP_CODE = `const names = Object.keys(tools);
const rows = [1, 2, 3].map((n) => ({ n, label: \`row \${n}\` })).filter((row) => row.n > 1);
const total = rows.reduce((sum, row) => sum + row.n, 0);
const byLabel = new Map(rows.map((row) => [row.label, row] as const));
try {
  JSON.parse("{}");
} catch (error) {
  console.log(error.message);
}
return { names, total, size: byLabel.size, at: new Date().toISOString().slice(0, 10) };`;
const WARM_UP_ROUNDS = 5;

const port = parentPort!;
const post = (reply: WorkerReply) => port.postMessage(reply);
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

const data = workerData as CheckerWorkerData;
let checker: ModelCodeChecker | undefined;
try {
  const typescript = createRequire(import.meta.url)(data.typescriptPath) as typeof ts;
  checker = new ModelCodeChecker(typescript, data.typescriptPath, data.declarations, data.toolIdentifiers);
  for (let round = 0; round < WARM_UP_ROUNDS; round++) {
    checker.check({ code: WARM_UP_CODE, aliases: [], session: { values: [], types: [] } });
  }
  post({ type: "ready" });
} catch (error) {
  post({ type: "startFailed", message: messageOf(error) });
}

port.on("message", (request: CheckRequest) => {
  const ready = checker;
  if (ready === undefined) return;
  try {
    const outcome = within(data.timeMs, () => ready.check(request));
    if (!outcome.done) {
      post({ type: "interrupted", id: request.id, sound: stillSound(ready, data.timeMs) });
      return;
    }
    const { diagnostics, errorCount, declared } = outcome.value;
    post({ type: "checked", id: request.id, diagnostics, errorCount, declared });
  } catch (error) {
    post({ type: "failed", id: request.id, message: messageOf(error) });
  }
});
