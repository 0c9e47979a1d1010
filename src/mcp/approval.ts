/**
 * Who decides a gated call made from code that an MCP client asked cordon to run: with `--approve ask`
 * (the default) the client's person, through MCP elicitation when the client supports it — a form, or
 * for a client that supports only URL mode, cordon's approval page (over HTTP); otherwise nobody can be
 * asked and the call is denied. `--approve web` decides every gated call on the approval page, whose URL
 * goes to the client (URL-mode elicitation) when it supports that, and to cordon's log always.
 * `--approve all` and `--approve none` decide without asking. Every failure to get an answer denies:
 * approval never fails open.
 */

import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ElicitResultSchema, type RequestId, type RequestInfo } from "@modelcontextprotocol/sdk/types.js";
import { messageOf } from "../../common/errors.js";
import { DEFAULT_APPROVAL_TIMEOUT_MS } from "../dispatch/dispatcher.js";
import { formatDuration } from "../dispatch/failures.js";
import type { FlowApproval } from "../dispatch/flow-approval.js";
import { approvalDetails, approvalLines, flowLine, visibleText } from "../dispatch/preview.js";
import type { McpApprovePolicy } from "./approve-policy.js";
import type { ApprovalDecision, ApprovalRequest, Approver } from "./code-host.js";
import type { OpenedApproval, WebApprovals } from "./web-approval.js";

/** How an MCP server decides gated calls. */
export interface McpApprovalOptions {
  policy: McpApprovePolicy;
  /** The approval pages of cordon's HTTP server; absent on stdio, which has no port to serve them on. */
  webApprovals?: WebApprovals;
  /** cordon's log, where `--approve web` writes each page's URL. */
  log?: (line: string) => void;
  /** The principal whose call it is (an authenticated server): its pages refuse any other. */
  owner?: string;
}

/** The MCP request whose calls are decided: its id keeps HTTP questions on its stream. */
export interface ApprovalContext {
  requestId: RequestId;
  requestInfo?: RequestInfo;
}

/** The approver for the calls of one MCP request. */
export function mcpApprover(server: Server, options: McpApprovalOptions, context: ApprovalContext): Approver {
  const relatedRequestId = context.requestId;
  return async (request): Promise<ApprovalDecision> => {
    const { policy, webApprovals } = options;
    if (policy === "all") return { approved: true };
    if (policy === "none") return { approved: false, reason: "cordon's approval policy denies gated calls" };
    const elicitation = server.getClientCapabilities()?.elicitation;
    const urlMode = elicitation?.url !== undefined;
    // An empty declaration means form mode.
    const formMode = elicitation !== undefined && (elicitation.form !== undefined || !urlMode);
    if (policy === "web") {
      if (!webApprovals) {
        return {
          approved: false,
          reason:
            "nobody could be asked: cordon's approval policy is web, and approval pages are served only over HTTP",
        };
      }
      return askOnPage(server, webApprovals.open(request, hostOf(context), options.owner), request, {
        relatedRequestId,
        viaClient: urlMode,
        ...(options.log ? { log: options.log } : {}),
      });
    }
    if (formMode) return askWithForm(server, request, relatedRequestId);
    if (urlMode) {
      if (!webApprovals) {
        return {
          approved: false,
          reason:
            "nobody could be asked: the MCP client supports only URL-mode elicitation, and cordon serves its approval page only over HTTP (cordon mcp --http); cordon's approval policy is to ask",
        };
      }
      return askOnPage(server, webApprovals.open(request, hostOf(context), options.owner), request, {
        relatedRequestId,
        viaClient: true,
      });
    }
    return {
      approved: false,
      reason:
        "nobody could be asked: the MCP client cannot ask its user (it does not support elicitation), and cordon's approval policy is to ask",
    };
  };
}

/** Asks with a form elicitation: one checkbox, and the whole arguments in its description. */
async function askWithForm(
  server: Server,
  request: ApprovalRequest,
  relatedRequestId: RequestId,
): Promise<ApprovalDecision> {
  const { toolName, args, signal } = request;
  const result = await server.request(
    {
      method: "elicitation/create",
      params: {
        message: requestMessage(request, request.plan ? "Carry out this plan?" : "Allow this call?"),
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
}

/**
 * Waits for the decision on an approval page. Its URL reaches the person through the client (a URL-mode
 * elicitation, `viaClient`) and, with `log`, through cordon's log. A client that declines or cancels
 * denies the call; a client whose elicitation fails denies it too, unless the URL was logged (then the
 * page still waits). Once a person decided, the client is told the elicitation is complete.
 */
async function askOnPage(
  server: Server,
  page: OpenedApproval,
  request: ApprovalRequest,
  how: { relatedRequestId: RequestId; viaClient: boolean; log?: (line: string) => void },
): Promise<ApprovalDecision> {
  const within = formatDuration(page.timeoutMs);
  how.log?.(
    `a gated call to ${visibleText(request.toolName)} waits for a decision: open ${page.url} within ${within} to allow or deny it`,
  );
  if (!how.viaClient) return page.decision;
  const asking = new AbortController();
  server
    .request(
      {
        method: "elicitation/create",
        params: {
          mode: "url",
          elicitationId: page.elicitationId,
          url: page.url,
          message: requestMessage(
            request,
            `Open cordon's approval page to allow or deny this ${request.plan ? "plan" : "call"}, within ${within}.`,
          ),
        },
      },
      ElicitResultSchema,
      {
        relatedRequestId: how.relatedRequestId,
        signal: AbortSignal.any([request.signal, asking.signal]),
        // Only a backstop: the request is aborted as soon as the page ends, by its expiry at the latest.
        timeout: page.timeoutMs + 1_000,
      },
    )
    .then(
      (result) => {
        if (result.action !== "accept") page.retire(`the user chose to ${result.action}`);
      },
      (error: unknown) => {
        if (asking.signal.aborted || how.log) return;
        // The SDK repeats an error's "MCP error <code>: " when a client's error response is raised again.
        const message = messageOf(error).replace(/^(MCP error -?\d+: )\1+/, "$1");
        page.retire(`the approval could not be asked for (${message})`);
      },
    );
  const decision = await page.decision;
  asking.abort();
  if (page.decidedOnPage) {
    await server
      .createElicitationCompletionNotifier(page.elicitationId, { relatedRequestId: how.relatedRequestId })()
      .catch(() => {});
  }
  return decision;
}

/** The Host the client reached cordon by (already checked against the allowed names), if it sent one. */
function hostOf(context: ApprovalContext): string | undefined {
  const host = context.requestInfo?.headers.host;
  return typeof host === "string" && host !== "" ? host : undefined;
}

/** The question about a call, or about a whole plan: each of its calls, with every argument. */
function requestMessage(request: ApprovalRequest, ask: string): string {
  const { plan } = request;
  if (plan === undefined) {
    return approvalMessage(request.toolName, request.args, request.approvalKeys, ask, request.flow);
  }
  const calls = plan.map((call) => {
    const lines = approvalLines(call.args);
    const what =
      lines.length === 0 ? " (no arguments)" : `\n${lines.map((line) => `    ${line}`).join("\n")}`;
    return `  ${visibleText(call.tool)}${what}`;
  });
  return `Code running in cordon's sandbox made a plan: ${plan.length} call${plan.length === 1 ? "" : "s"} with effects, none made yet.\n${calls.join("\n")}\n${ask}`;
}

/** The question: the tool and every argument on a line of its own, escaped (see `approvalLines`). */
function approvalMessage(
  toolName: string,
  args: unknown,
  keys: readonly string[] | undefined,
  ask: string,
  flow?: FlowApproval,
): string {
  const lines = approvalLines(args, {
    ...(keys === undefined ? {} : { keys }),
    ...(flow ? { marks: flow.marks } : {}),
  });
  if (flow) lines.unshift(flowLine(flow));
  const what =
    lines.length === 0 ? " (no arguments)" : ` with:\n${lines.map((line) => `  ${line}`).join("\n")}\n`;
  return `Code running in cordon's sandbox wants to call ${visibleText(toolName)}${what} ${ask}`;
}
