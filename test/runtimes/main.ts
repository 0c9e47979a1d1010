/**
 * The runtime matrix's program for Bun and Deno (scripts/runtime-matrix.sh bundles it with `cordon`
 * left as an import, so each runtime loads the built package as a user's program would): the
 * environment conformance cases (conformance.ts) and the checks of checks.ts on `quickjsEnvironment()`,
 * one line each, exit code 1 when any failed. Every case applies here.
 */

import process from "node:process";
import { quickjsEnvironment } from "cordon/quickjs";
import { report, runChecks } from "./checks.js";
import { runConformance } from "./conformance.js";

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
const conformance = await runConformance(quickjsEnvironment(), {});
const checks = await runChecks({
  environment: () => quickjsEnvironment(),
  jsonSchemaTools: true,
  typescript: true,
  defaultEnvironment: "runs",
  warnings: () => warnings,
});
const results = [...conformance.results, ...checks];
for (const line of report(runtime, results, Date.now() - started, conformance.notApplicable))
  console.log(line);
// Now: a case's tool that ignores its run's end (a 20 s wait) would otherwise hold the process open.
process.exit(results.some((result) => !result.ok) ? 1 : 0);
