/**
 * The names the model's code reaches tools by besides the declared ones: `tools.getOrder` for the
 * declared `get_order`, which the dispatcher's name repair resolves at run time. The check accepts them
 * (they work) and says the real name.
 */

import { resolveToolName } from "../../dispatch/names.js";
import type { RepairedToolName } from "./types.js";

/** `tools.name`, `tools?.name`, and `tools["name"]` / `tools['name']`. */
const TOOL_ACCESS =
  /\btools\s*(?:\?\.|\.)\s*([A-Za-z_$][\w$]*)|\btools\s*\[\s*(["'])([^"'\\\n]{1,256})\2\s*\]/g;

/** The repaired names in `code`, with the declared identifier each one stands for. */
export function repairedToolNames(
  code: string,
  /** Identifier in code → real tool name. */
  toolNames: Readonly<Record<string, string>>,
): { aliases: [string, string][]; repaired: RepairedToolName[] } {
  const realNames = Object.values(toolNames);
  const identifierOf = new Map(Object.entries(toolNames).map(([identifier, real]) => [real, identifier]));
  const aliases: [string, string][] = [];
  const repaired: RepairedToolName[] = [];
  const seen = new Set<string>();
  for (const match of code.matchAll(TOOL_ACCESS)) {
    const name = match[1] ?? match[3]!;
    if (seen.has(name) || Object.hasOwn(toolNames, name)) continue;
    seen.add(name);
    const real = resolveToolName(name, realNames);
    const identifier = real === undefined ? undefined : identifierOf.get(real);
    if (real === undefined || identifier === undefined) continue;
    aliases.push([name, identifier]);
    repaired.push({ requested: name, tool: real });
  }
  return { aliases, repaired };
}
