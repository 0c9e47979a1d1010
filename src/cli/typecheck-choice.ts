/** The choices of `--typecheck` (cordon run, cordon mcp): the default, "off", first. */

import type { TypeCheckMode } from "../codemode/typecheck/types.js";

/** What `--typecheck` accepts; the first is the default. */
export const TYPECHECK_CHOICES: readonly TypeCheckMode[] = ["off", "block", "report"];
