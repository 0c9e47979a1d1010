/**
 * Whether the isolate engine can start here: isolated-vm installed where cordon finds it, with its
 * native addon built. npm can install the package without building it (npm 11 asks before it runs an
 * install script; --ignore-scripts skips it), so the addon is looked for, never loaded: the agent's own
 * process need not carry isolated-vm to host isolates in sandbox processes. isolated-vm 5 loads
 * `out/isolated_vm.node` itself; 6 and 7 ask node-gyp-build, which finds a build or a prebuilt binary.
 */

import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** How to get the isolate engine, as a clause ("…, install it with …"). */
export const HOW_TO_GET_ISOLATED_VM =
  "install it with `npm install isolated-vm`: a native addon, prebuilt for some platforms and Node " +
  "versions and else built from source with a C++ toolchain (g++, make and Python); the sandbox " +
  "processes get Node's --no-node-snapshot flag by themselves, isolates in your own process " +
  "(isolateEnvironment) need `node --no-node-snapshot`";

/**
 * The places whose isolated-vm was found built: it stays so for the process's life, so it is not looked
 * for again (codeMode() asks once for its default environment and once more as it makes it). A problem
 * is never kept: it may be fixed (`npm rebuild isolated-vm`) while the agent runs.
 */
const foundBuilt = new Set<string>();

/**
 * Why isolated-vm cannot start where `from` (a file URL or path) resolves packages, or undefined when
 * its addon is there to load. Default: where cordon itself resolves them.
 */
export function isolatedVmProblem(from: string = import.meta.url): string | undefined {
  if (foundBuilt.has(from)) return undefined;
  let dir: string;
  try {
    dir = dirname(createRequire(from).resolve("isolated-vm/package.json"));
  } catch {
    return "isolated-vm is not installed";
  }
  if (addonBuilt(dir)) {
    foundBuilt.add(from);
    return undefined;
  }
  return (
    `isolated-vm is installed (${dir}) but its native addon is not built: npm did not run its install ` +
    "script (`npm rebuild isolated-vm` runs it)"
  );
}

function addonBuilt(dir: string): boolean {
  try {
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
    };
    if (manifest.dependencies?.["node-gyp-build"] === undefined)
      return existsSync(join(dir, "out", "isolated_vm.node"));
    const loader = createRequire(join(dir, "package.json"))("node-gyp-build") as {
      path(dir: string): string;
    };
    // It throws when it finds no addon for this platform, Node and libc.
    return existsSync(loader.path(dir));
  } catch {
    return false;
  }
}
