/**
 * Where the sandbox-host program is, and how to start it: the compiled `sandbox/program/main.js` of the
 * installed package, or, when cordon runs from its TypeScript sources (its own tests), the `.ts` file
 * through tsx.
 */

import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { ownFile } from "../../common/package-files.js";

/** A command line: the executable and its arguments. */
export interface ProgramCommand {
  command: string;
  args: string[];
}

/** The Node flags the sandbox-host program runs with (isolated-vm needs `--no-node-snapshot`). */
const SANDBOX_HOST_NODE_FLAGS: readonly string[] = ["--no-node-snapshot"];

/** The command that starts the sandbox-host program with this process's Node. */
export function sandboxHostCommand(): ProgramCommand {
  const program = ownFile("sandbox/program/main.js", "sandbox/program/main.ts");
  if (!existsSync(program.path)) {
    throw new Error(`The sandbox-host program is missing: ${program.path} does not exist. Reinstall cordon.`);
  }
  if (program.built) return { command: process.execPath, args: [...SANDBOX_HOST_NODE_FLAGS, program.path] };
  let tsx: string;
  try {
    tsx = createRequire(import.meta.url).resolve("tsx");
  } catch {
    throw new Error(
      "cordon is running from its TypeScript sources, and starting the sandbox host from them needs tsx: install it (npm install -D tsx) or build cordon first.",
    );
  }
  return {
    command: process.execPath,
    args: [...SANDBOX_HOST_NODE_FLAGS, "--import", pathToFileURL(tsx).href, program.path],
  };
}
