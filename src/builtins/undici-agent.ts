/**
 * undici's `Agent`, loaded on first use: undici is a large package (its import costs more than the rest
 * of cordon's builtins together), and most processes that import cordon never fetch a page.
 */

import { createRequire } from "node:module";
import type { Agent } from "undici";

/** A new undici `Agent` with these options (undici is loaded the first time). */
export function createAgent(options: Agent.Options): Agent {
  const undici = createRequire(import.meta.url)("undici") as typeof import("undici");
  return new undici.Agent(options);
}
