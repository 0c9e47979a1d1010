/**
 * The runtime matrix's program for Bun and Deno (scripts/runtime-matrix.sh bundles it with `cordon`
 * left as an import, so each runtime loads the built package as a user's program would): the checks of
 * checks.ts on `quickjsEnvironment()`, one line each, exit code 1 when any failed.
 */

import process from "node:process";
import { quickjsEnvironment } from "cordon/quickjs";
import { report, runChecks } from "./checks.js";

const warnings: string[] = [];
const warn = console.warn.bind(console);
console.warn = (...args: unknown[]) => {
  warnings.push(args.map(String).join(" "));
  warn(...args);
};

// "Bun/1.4.5", "Deno/2.9.6" (navigator is not in this project's Node types).
const runtime =
  (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent ?? "an unknown runtime";
const started = Date.now();
const results = await runChecks({
  environment: () => quickjsEnvironment(),
  jsonSchemaTools: true,
  typescript: true,
  defaultEnvironment: "runs",
  warnings: () => warnings,
});
for (const line of report(runtime, results, Date.now() - started)) console.log(line);
if (results.some((result) => !result.ok)) process.exitCode = 1;
