/**
 * Loads isolated-vm on first use, so that importing cordon never requires the native module, and checks
 * that Node runs with `--no-node-snapshot`, without which isolated-vm can crash the process on Node 20+.
 */

import { createRequire } from "node:module";

/** The isolated-vm module (its default export), as the environment uses it. */
export type IsolatedVm = typeof import("isolated-vm");

/** Where the process's flags come from; a parameter so the check can be tested. */
export interface NodeFlags {
  version: string;
  execArgv: readonly string[];
  nodeOptions: string | undefined;
}

/**
 * Explains why isolated-vm cannot be used safely in a process with these flags, or returns undefined
 * when it can: Node 20 and later need `--no-node-snapshot`, on the command line or in NODE_OPTIONS.
 */
export function nodeFlagProblem(flags: NodeFlags): string | undefined {
  const major = Number(flags.version.replace(/^v/, "").split(".")[0]);
  if (!(major >= 20)) return undefined;
  const given = [...flags.execArgv, ...(flags.nodeOptions ?? "").split(/\s+/)];
  if (given.includes("--no-node-snapshot")) return undefined;
  return (
    `isolated-vm needs Node to run with --no-node-snapshot on Node ${major} (without it the process can ` +
    "crash). Start node with `node --no-node-snapshot ...` or set NODE_OPTIONS=--no-node-snapshot."
  );
}

let cached: IsolatedVm | undefined;

/**
 * Returns the isolated-vm module: the one given, else the installed one (loaded once). Throws an Error
 * with a clear message when Node lacks `--no-node-snapshot` or isolated-vm is not installed.
 */
export function loadIsolatedVm(given?: object): IsolatedVm {
  const problem = nodeFlagProblem({
    version: process.version,
    execArgv: process.execArgv,
    nodeOptions: process.env.NODE_OPTIONS,
  });
  if (problem) throw new Error(problem);
  if (given) return given as unknown as IsolatedVm;
  if (cached) return cached;
  try {
    cached = createRequire(import.meta.url)("isolated-vm") as IsolatedVm;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(
      "The isolate environment needs the isolated-vm package, which could not be loaded. Install it with " +
        `\`npm install isolated-vm\` (it builds a native module), or pass it as isolateEnvironment({ ivm }). Cause: ${detail}`,
      { cause: error },
    );
  }
  return cached;
}
