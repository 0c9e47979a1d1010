/**
 * Finding the `typescript` package the checker loads: an optional peer dependency, resolved when a code
 * mode with a type check is created (a clear error then, not at the first run), and loaded only in the
 * checker's worker thread, never in the agent's.
 */

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { UserError } from "../../../common/errors.js";

/** Finds the main module of the `typescript` package: its file path. Throws when there is none. */
export type TypeScriptResolver = () => string;

/** The default resolver: `typescript` as Node resolves it from cordon's own location. */
export const resolveTypeScriptFromCordon: TypeScriptResolver = () =>
  createRequire(import.meta.url).resolve("typescript");

/** The major versions of `typescript` whose JavaScript compiler API the checker uses. */
const SUPPORTED_TYPESCRIPT_MAJORS: readonly number[] = [5, 6];

/**
 * The main module of a supported `typescript`, found with `resolve`. Throws a {@link UserError} saying
 * what to install when it cannot be found, or when it is another major version (typescript 7 is the
 * native compiler, without the JavaScript API the checker uses).
 */
export function typescriptPath(resolve: TypeScriptResolver, what: string): string {
  let path: string;
  try {
    path = resolve();
  } catch {
    throw new UserError(
      `${what} needs the typescript package (version 5), which could not be found: install it with \`npm install typescript@5\`, or set typecheck to "off".`,
    );
  }
  const version = versionNear(path);
  const major = version === undefined ? undefined : Number(version.split(".")[0]);
  if (major !== undefined && !SUPPORTED_TYPESCRIPT_MAJORS.includes(major)) {
    throw new UserError(
      `${what} needs typescript 5 (its JavaScript compiler API), but typescript ${version} was found at ${path}: install it with \`npm install typescript@5\`, or set typecheck to "off".`,
    );
  }
  return path;
}

/** The version in the package.json of the package whose main module is `path`, if it can be read. */
function versionNear(path: string): string | undefined {
  for (let dir = dirname(path), up = 0; up < 3; dir = dirname(dir), up++) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name?: unknown;
        version?: unknown;
      };
      if (manifest.name === "typescript" && typeof manifest.version === "string") return manifest.version;
    } catch {
      // No package.json here: one folder up.
    }
  }
  return undefined;
}
