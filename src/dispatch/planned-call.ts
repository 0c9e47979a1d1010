/**
 * A call of a tool that has effects, in a plan (`cm.plan`, `PersonPolicy.effects` "preview"): the tool
 * is not run; its `preview` gives what the code gets, checked against the tool's output schema, and the
 * call is marked previewed for code mode to list. A tool without a preview pauses for approval.
 */

import { messageOf } from "../../common/errors.js";
import { isPromiseLike } from "../../common/promise-like.js";
import { outputIssues } from "../tools/schema.js";
import { answered, fail } from "./execute.js";
import type { PreparedCall } from "./preflight.js";
import type { CallScope } from "./scope.js";
import type { CallFailure, ToolResult } from "./types.js";

/** The issues of a preview result a failure quotes at most. */
const MAX_QUOTED_ISSUES = 5;

/** The call's preview as its result, or its pause when its tool has no preview. Never throws. */
export function previewCall(
  prepared: PreparedCall,
  scope: CallScope,
  started: number,
): ToolResult | Promise<ToolResult> {
  const { tool } = prepared;
  const preview = tool.options.preview;
  if (preview === undefined) {
    scope.paused = { kind: "approval", args: prepared.args };
    const failure: CallFailure = {
      kind: "paused",
      message: `${tool.name} has effects and no preview: the plan pauses here for a person's approval.`,
    };
    return fail(prepared, scope, failure, 0, started);
  }
  const failed = (message: string) =>
    fail(prepared, scope, { kind: "error", message: `the preview of ${tool.name} ${message}` }, 0, started);
  const settle = (value: unknown): ToolResult => {
    if (tool.outputSchema !== undefined) {
      const issues = outputIssues(tool.outputSchema, value, tool.name);
      if (issues.length > 0) {
        const listed = issues
          .slice(0, MAX_QUOTED_ISSUES)
          .map((issue) => (issue.path === "" ? issue.message : `${issue.path}: ${issue.message}`))
          .join("; ");
        return failed(`returned a result that does not match the tool's output schema (${listed}).`);
      }
    }
    scope.previewed = { args: prepared.args };
    return answered(prepared, scope, value, started);
  };
  const ctx = scope.context(prepared.call.id, tool.name, 1, scope.signal);
  let value: unknown;
  try {
    value = preview(prepared.args, ctx);
  } catch (error) {
    return failed(`failed: ${messageOf(error)}`);
  }
  if (!isPromiseLike(value)) return settle(value);
  return Promise.resolve(value).then(settle, (error: unknown) => failed(`failed: ${messageOf(error)}`));
}
