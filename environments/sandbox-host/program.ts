/**
 * Where the sandbox-host program is, and how to start it: the compiled `sandbox/sandbox-host/main.js` of the
 * installed package, or, when cordon runs from its TypeScript sources (its own tests), the `.ts` file
 * through tsx.
 */

import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

/** A command line: the executable and its arguments. */
export interface ProgramCommand {
  command: string;
  args: string[];
}

/** The Node flags the sandbox-host program runs with (isolated-vm needs `--no-node-snapshot`). */
export const SANDBOX_HOST_NODE_FLAGS: readonly string[] = ["--no-node-snapshot"];

/** The command that starts the sandbox-host program with this process's Node. */
export function sandboxHostCommand(): ProgramCommand {
  const compiled = fileURLToPath(new URL("../../sandbox/sandbox-host/main.js", import.meta.url));
  if (existsSync(compiled)) {
    return { command: process.execPath, args: [...SANDBOX_HOST_NODE_FLAGS, compiled] };
  }
  const source = fileURLToPath(new URL("../../sandbox/sandbox-host/main.ts", import.meta.url));
  if (!existsSync(source)) {
    throw new Error(
      `The sandbox-host program is missing: neither ${compiled} nor ${source} exists. Reinstall cordon.`,
    );
  }
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
    args: [...SANDBOX_HOST_NODE_FLAGS, "--import", pathToFileURL(tsx).href, source],
  };
}
