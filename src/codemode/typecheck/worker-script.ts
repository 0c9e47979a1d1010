/**
 * Starting the checker's worker thread: the compiled `worker.js` beside this module in the installed
 * package, or, when cordon runs from its TypeScript sources (its own tests), `worker.ts` through tsx, as
 * environments/sandbox-host/program.ts does for the sandbox-host program.
 */

import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";

/** A new checker worker with `options`. Throws when neither the compiled nor the source script exists. */
export function startCheckerWorker(options: WorkerOptions): Worker {
  const compiled = new URL("./worker.js", import.meta.url);
  if (existsSync(fileURLToPath(compiled))) return new Worker(compiled, options);
  const source = new URL("./worker.ts", import.meta.url);
  if (!existsSync(fileURLToPath(source))) {
    throw new Error(
      `The type checker's worker is missing: neither ${fileURLToPath(compiled)} nor ${fileURLToPath(source)} exists. Reinstall cordon.`,
    );
  }
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
  const entry = JSON.stringify(source.href);
  const bootstrap = `import(${JSON.stringify(api)}).then((tsx) => tsx.tsImport(${entry}, ${entry}));`;
  return new Worker(bootstrap, { ...options, eval: true });
}
