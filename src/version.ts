/** cordon's own version, read from its package.json wherever this file runs from (sources or dist/). */

import { readFileSync } from "node:fs";

let cached: string | undefined;

/** The version in cordon's package.json, or `unknown`. */
export function cordonVersion(): string {
  if (cached !== undefined) return cached;
  cached = "unknown";
  for (let url = new URL("./", import.meta.url); url.pathname !== "/"; url = new URL("../", url)) {
    try {
      const manifest = JSON.parse(readFileSync(new URL("package.json", url), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === "cordon" && typeof manifest.version === "string") {
        cached = manifest.version;
        break;
      }
    } catch {
      // No package.json here: look one directory up.
    }
  }
  return cached;
}
