/**
 * Where this copy of cordon's own files are. A program, a worker or a module hook is started by its path,
 * not imported; the code that starts it cannot look beside itself, since the build moves shared code into
 * chunks (dist/chunks/), so every such path is found from the package's folder instead.
 */

import { readFileSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** This copy's folder (the one whose package.json names cordon) and what is known about it. */
export interface PackagePlace {
  /** The package's folder. */
  root: string;
  /** cordon's version from its package.json, or `unknown`. */
  version: string;
  /** True when the running code is the build (under dist/), false when it is the TypeScript sources. */
  built: boolean;
}

let place: PackagePlace | undefined;

/** Finds this copy's folder by walking up from this module: it runs from the sources or from dist/. */
export function packagePlace(): PackagePlace {
  if (place) return place;
  const here = fileURLToPath(import.meta.url);
  for (let dir = dirname(here); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (manifest.name !== "cordon") continue;
      const version = typeof manifest.version === "string" ? manifest.version : "unknown";
      place = { root: dir, version, built: here.startsWith(join(dir, "dist") + sep) };
      return place;
    } catch {
      // No package.json here: look one folder up.
    }
  }
  // Copied out of its package (bundled into an application): the files below cannot be found from here.
  place = { root: dirname(dirname(here)), version: "unknown", built: false };
  return place;
}

/**
 * The path of one of cordon's files that is started rather than imported: `built` (relative to dist/)
 * when the running code is the build, else `source` (relative to the package's folder: cordon's own tests
 * run the TypeScript sources). Says which one it is; the file itself may be missing from a broken install.
 */
export function ownFile(built: string, source: string): { path: string; built: boolean } {
  const { root, built: isBuilt } = packagePlace();
  return { path: isBuilt ? join(root, "dist", built) : join(root, source), built: isBuilt };
}
