/** cordon's own version, read from its package.json wherever this code runs from (sources or dist/). */

import { packagePlace } from "./package-files.js";

/** The version in cordon's package.json, or `unknown`. */
export function cordonVersion(): string {
  return packagePlace().version;
}
