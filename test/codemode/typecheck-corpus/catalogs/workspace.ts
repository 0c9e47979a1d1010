/**
 * An MCP-style catalog: 20 namespaced tools (`github__*`, `calendar__*`, `slack__*`, `files__*`,
 * `mail__*`, the way a gateway names the tools of several servers), over in-memory fixtures. Some declare
 * an output schema (the code gets typed results), some do not (the code uses the value freely); inputs are
 * zod schemas or plain JSON Schemas, with enums, optional fields, nested objects and arrays.
 */

import { Toolset } from "../../../../src/index.js";
import { type CorpusCatalog, countingCatalog } from "./catalog.js";
import { calendarTools } from "./workspace/calendar.js";
import { fileAndMailTools } from "./workspace/files.js";
import { workspaceFixtures } from "./workspace/fixtures.js";
import { githubTools } from "./workspace/github.js";
import { slackTools } from "./workspace/slack.js";

/** The workspace's tools over a fresh copy of its data. */
function workspaceTools(): Toolset {
  const data = workspaceFixtures();
  return new Toolset([
    ...githubTools(data),
    ...calendarTools(data),
    ...slackTools(data),
    ...fileAndMailTools(data),
  ]);
}

/** The workspace catalog, counted, with fresh data at every reset. */
export function workspaceCatalog(): Promise<CorpusCatalog> {
  return countingCatalog("workspace", workspaceTools);
}
