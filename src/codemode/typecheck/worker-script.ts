/**
 * Starting the checker's worker thread: the built `worker.js` of the installed package, or, when cordon
 * runs from its TypeScript sources (its own tests), `worker.ts` through tsx, as
 * environments/sandbox-host/program.ts does for the sandbox-host program.
 */

import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Worker, WorkerOptions } from "node:worker_threads";
import { workerThreads } from "../../../common/node-builtins.js";
import { ownFile } from "../../../common/package-files.js";

/** A new checker worker with `options`. Throws when neither the compiled nor the source script exists. */
export function startCheckerWorker(options: WorkerOptions): Worker {
  const script = ownFile("src/codemode/typecheck/worker.js", "src/codemode/typecheck/worker.ts");
  if (!existsSync(script.path)) {
    throw new Error(`The type checker's worker is missing: ${script.path} does not exist. Reinstall cordon.`);
  }
  if (script.built) return new (workerThreads().Worker)(script.path, options);
  let loader: string;
  try {
    loader = createRequire(import.meta.url).resolve("tsx");
  } catch {
    throw new Error(
      "cordon is running from its TypeScript sources, and starting the type checker from them needs tsx: install it (npm install -D tsx) or build cordon first.",
    );
  }
  // A worker does not inherit loader flags: tsx's own API imports the TypeScript entry instead.
  const api = pathToFileURL(join(dirname(loader), "esm/api/index.mjs")).href;
  const entry = JSON.stringify(pathToFileURL(script.path).href);
  const bootstrap = `import(${JSON.stringify(api)}).then((tsx) => tsx.tsImport(${entry}, ${entry}));`;
  return new (workerThreads().Worker)(bootstrap, { ...options, eval: true });
}
