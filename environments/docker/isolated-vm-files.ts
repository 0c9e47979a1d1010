/**
 * Which files of an installed isolated-vm the sandbox image needs, for each layout its majors use:
 * isolated-vm 5 loads `out/isolated_vm.node` itself; 6 and 7 load their addon through node-gyp-build,
 * which takes `build/Release/isolated_vm.node` when isolated-vm was built from source and else the
 * prebuilt binary for this platform and Node (under `prebuilds/`). The image's Node is this machine's,
 * so the addon this machine would load is the one the image needs.
 */

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, sep } from "node:path";
import { UserError } from "../../common/errors.js";

/** Files of one package to copy, as paths relative to its folder. */
interface PackageFiles {
  /** The package's folder on this machine. */
  dir: string;
  files: string[];
}

/** What the image needs of an installed isolated-vm. */
export interface IsolatedVmFiles {
  /** isolated-vm's own files (its entry, package.json and the native addon). */
  isolatedVm: PackageFiles;
  /** The native addon, absolute: its shared libraries go into the image too. */
  addon: string;
  /** The package that loads the addon (node-gyp-build), for isolated-vm 6 and later. */
  loader?: PackageFiles;
}

/** isolated-vm 5's addon, which its entry requires directly. */
const OWN_ADDON = join("out", "isolated_vm.node");

/** The files of isolated-vm installed in `dir` that the image needs. Throws a UserError naming what is missing. */
export function isolatedVmFiles(dir: string): IsolatedVmFiles {
  const manifest = readManifest(dir);
  const entry = typeof manifest.main === "string" ? manifest.main : "isolated-vm.js";
  const common = ["package.json", entry];
  const usesLoader = manifest.dependencies?.["node-gyp-build"] !== undefined;
  if (!usesLoader) {
    const addon = join(dir, OWN_ADDON);
    if (!existsSync(addon)) throw missingAddon(`${addon} is missing`);
    return { isolatedVm: { dir, files: [...common, OWN_ADDON] }, addon };
  }
  const loaderDir = packageDir(dir, "node-gyp-build");
  const addon = loaderAddon(loaderDir, dir);
  const relativeAddon = relative(dir, addon);
  if (relativeAddon.startsWith("..") || relativeAddon.startsWith(sep)) {
    throw missingAddon(`node-gyp-build chose ${addon}, outside isolated-vm's folder`);
  }
  return {
    isolatedVm: { dir, files: [...common, relativeAddon] },
    addon,
    loader: { dir: loaderDir, files: loaderFiles(loaderDir) },
  };
}

interface Manifest {
  main?: unknown;
  dependencies?: Record<string, string>;
}

function readManifest(dir: string): Manifest {
  try {
    return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
  } catch (error) {
    throw new UserError(
      `isolated-vm's package.json cannot be read in ${dir} (${error instanceof Error ? error.message : String(error)}): reinstall isolated-vm, then build the image again.`,
    );
  }
}

/** The folder of `name` as `from`'s package resolves it. */
function packageDir(from: string, name: string): string {
  try {
    return dirname(createRequire(join(from, "package.json")).resolve(`${name}/package.json`));
  } catch {
    throw missingAddon(`${name}, which loads its native addon, is not installed beside it`);
  }
}

/** The addon node-gyp-build would load for `dir` in this process (this platform, Node and libc). */
function loaderAddon(loaderDir: string, dir: string): string {
  const loader = createRequire(join(loaderDir, "package.json"))(loaderDir) as {
    path?: (dir: string) => string;
  };
  if (typeof loader.path !== "function") {
    throw missingAddon("this node-gyp-build cannot say which addon it loads (it has no path function)");
  }
  try {
    return loader.path(dir);
  } catch (error) {
    throw missingAddon(
      `node-gyp-build finds none for this platform and Node (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`,
    );
  }
}

/** node-gyp-build's package.json and its scripts (it has no folders). */
function loaderFiles(loaderDir: string): string[] {
  return readdirSync(loaderDir).filter((name) => name === "package.json" || name.endsWith(".js"));
}

function missingAddon(detail: string): UserError {
  return new UserError(
    `isolated-vm's native addon cannot be found: ${detail}. Reinstall isolated-vm (npm rebuild isolated-vm builds it from source), then build the image again.`,
  );
}
