/**
 * Who decides a gated call made from code that an MCP client asked cordon to run: with `--approve ask`
 * (the default) the client's person, through MCP elicitation, when the client supports it; otherwise
 * nobody can be asked and the call is denied. `--approve all` and `--approve none` decide without asking.
 * Every failure to get an answer denies: approval never fails open.
 */

import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ElicitResultSchema, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_APPROVAL_TIMEOUT_MS } from "../dispatch/dispatcher.js";
import { approvalDetails, approvalLines, visibleText } from "../dispatch/preview.js";
import type { ApprovePolicy } from "./approve-policy.js";
import type { ApprovalDecision, Approver } from "./code-host.js";

/** The approver for the calls of one MCP request (`relatedRequestId` keeps HTTP questions on its stream). */
export function mcpApprover(server: Server, policy: ApprovePolicy, relatedRequestId: RequestId): Approver {
  return async ({ toolName, args, approvalKeys, signal }): Promise<ApprovalDecision> => {
    if (policy === "all") return { approved: true };
    if (policy === "none") return { approved: false, reason: "cordon's approval policy denies gated calls" };
    const elicitation = server.getClientCapabilities()?.elicitation;
    if (!elicitation) {
      return {
        approved: false,
        reason:
          "nobody could be asked: the MCP client cannot ask its user (it does not support elicitation), and cordon's approval policy is to ask",
      };
    }
    // cordon asks with a form; a client that declares only URL-mode elicitation cannot show one (an
    // empty declaration means form mode).
    if (elicitation.form === undefined && elicitation.url !== undefined) {
      return {
        approved: false,
        reason:
          "nobody could be asked: the MCP client supports only URL-mode elicitation, and cordon asks its approval question as a form; cordon's approval policy is to ask",
      };
    }
    const result = await server.request(
      {
        method: "elicitation/create",
        params: {
          message: approvalMessage(toolName, args, approvalKeys),
          requestedSchema: {
            type: "object",
            properties: {
              allow: {
                type: "boolean",
                title: `Allow ${toolName}`,
                // The whole value, for a person who wants to see every character before deciding.
                description: `Check to let this one call run; leave unchecked or decline to refuse it. The call's arguments in full:\n${approvalDetails(args)}`,
                default: false,
              },
            },
            required: ["allow"],
          },
        },
      },
      ElicitResultSchema,
      { relatedRequestId, signal, timeout: DEFAULT_APPROVAL_TIMEOUT_MS },
    );
    if (result.action === "accept" && result.content?.allow === true) return { approved: true };
    return {
      approved: false,
      reason: result.action === "accept" ? "the user did not allow it" : `the user chose to ${result.action}`,
    };
  };
}

/** The question: the tool and every argument on a line of its own, escaped (see `approvalLines`). */
function approvalMessage(toolName: string, args: unknown, keys: readonly string[] | undefined): string {
  const lines = approvalLines(args, keys === undefined ? {} : { keys });
  const what =
    lines.length === 0 ? " (no arguments)" : ` with:\n${lines.map((line) => `  ${line}`).join("\n")}\n`;
  return `Code running in cordon's sandbox wants to call ${visibleText(toolName)}${what} Allow this call?`;
}
