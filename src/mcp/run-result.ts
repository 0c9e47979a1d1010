/**
 * The MCP result of a run_code call: the run's text report, and beside it, as MCP content blocks, the
 * images, audio and resources the code returned (so a run can hand the client a chart it fetched).
 */

import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type CodeRunResult, renderCodeRunResult } from "../codemode/result.js";
import type { ToolResult } from "../dispatch/types.js";
import { extractContent } from "./content.js";
import type { ContentPolicy } from "./content-policy.js";

/**
 * Turns a run_code call's result into the MCP result. A failed run is its report alone (`isError`). A run
 * whose returned value holds content items (see {@link extractContent}) gets them as blocks after the
 * report, which is rendered again (within `maxOutputChars`) with each item replaced by a short note, so
 * the model does not read the data twice; an item `policy` refuses is a text block saying why.
 */
export function runCodeCallResult(
  result: ToolResult,
  maxOutputChars: number,
  policy: ContentPolicy = {},
): CallToolResult {
  const report: CallToolResult = { content: [{ type: "text", text: result.output }], isError: !result.ok };
  const run = result.ok ? finishedRun(result.value) : undefined;
  if (run === undefined) return report;
  const { value, blocks } = extractContent(run.value, policy);
  if (blocks.length === 0) return report;
  const text = renderCodeRunResult({ ...run, value }, maxOutputChars);
  return { content: [{ type: "text", text }, ...blocks], isError: false };
}

/** The run behind a successful run_code call (the value its tool returned), if it is one. */
function finishedRun(value: unknown): CodeRunResult | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const run = value as Partial<CodeRunResult>;
  return run.status === "ok" && Array.isArray(run.calls) && Array.isArray(run.logs)
    ? (value as CodeRunResult)
    : undefined;
}
