/**
 * The task requests of one MCP connection (tasks/get, tasks/result, tasks/list, tasks/cancel) over the
 * server's tasks (run-tasks.ts), and how the person is asked when tasks/result finds a task waiting for
 * input: approvals as an untasked run_code call asks them (approval.ts: a form, the approval page, or the
 * policy), questions (ask_human) with a form of one text field.
 */

import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CancelTaskRequestSchema,
  ElicitResultSchema,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  RELATED_TASK_META_KEY,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import type { ResumeDecisions } from "../codemode/pause/pause.js";
import { DEFAULT_APPROVAL_TIMEOUT_MS } from "../dispatch/dispatcher.js";
import type { PendingCall } from "../dispatch/paused-work.js";
import { approvalDetails } from "../dispatch/preview.js";
import { type ApprovalContext, type McpApprovalOptions, mcpApprover } from "./approval.js";
import type { AskPerson, McpTasks, TaskAsker } from "./run-tasks.js";

/** The answer a question gets when the person declined it, or could not be asked. */
const DECLINED_ANSWER = "(The person did not answer this question.)";

/** The capabilities a server with tasks declares: run_code may be called as a task. */
export const TASK_CAPABILITIES = { list: {}, cancel: {}, requests: { tools: { call: {} } } } as const;

/**
 * Answers the task requests of `server`'s connection, and sends it the status notifications of the
 * tasks it follows. Returns what stops those, for when the connection closes.
 */
export function handleTaskRequests(
  server: Server,
  tasks: McpTasks,
  asker: () => TaskAsker,
  approval: McpApprovalOptions,
): () => void {
  server.setRequestHandler(GetTaskRequestSchema, async (request) =>
    tasks.get(request.params.taskId, asker()),
  );
  server.setRequestHandler(ListTasksRequestSchema, async (request) =>
    tasks.list(asker(), request.params?.cursor),
  );
  server.setRequestHandler(CancelTaskRequestSchema, async (request) =>
    tasks.cancel(request.params.taskId, asker()),
  );
  server.setRequestHandler(GetTaskPayloadRequestSchema, async (request, extra) => {
    const { taskId } = request.params;
    const ask = askPerson(
      server,
      approval,
      { requestId: extra.requestId, ...(extra.requestInfo ? { requestInfo: extra.requestInfo } : {}) },
      taskId,
    );
    const result = await tasks.result(taskId, asker(), ask, extra.signal);
    return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId } } };
  });
  // Without related-task metadata, as the spec says: the task's id is in the notification itself.
  return tasks.notifyOn(asker().connection, (task) => {
    server.notification({ method: "notifications/tasks/status", params: task }).catch(() => {});
  });
}

/** Asks about each pending call in turn, on the stream of the tasks/result request. */
function askPerson(
  server: Server,
  approval: McpApprovalOptions,
  context: ApprovalContext,
  taskId: string,
): AskPerson {
  const approver = mcpApprover(server, approval, context);
  return async (pending, signal) => {
    const decisions: Record<string, NonNullable<ResumeDecisions["decisions"]>[string]> = {};
    const answers: Record<string, string> = {};
    for (const call of pending) {
      signal.throwIfAborted();
      if (call.kind === "question") {
        answers[call.id] = await askQuestion(server, call, context.requestId, taskId, signal);
        continue;
      }
      let decision: Awaited<ReturnType<typeof approver>>;
      try {
        decision = await approver({ toolName: call.tool, args: call.args, signal });
      } catch (error) {
        // The asking stopped (another tasks/result, a cancel, the client left): nothing is decided.
        if (signal.aborted) throw error;
        decision = { approved: false, reason: `the approval could not be asked for (${String(error)})` };
      }
      signal.throwIfAborted();
      decisions[call.id] = decision.approved ? true : { approved: false, reason: decision.reason };
    }
    return { decisions, answers };
  };
}

/** A question (ask_human) as a form of one text field; declined or unanswerable, a note says so. */
async function askQuestion(
  server: Server,
  call: PendingCall,
  relatedRequestId: RequestId,
  taskId: string,
  signal: AbortSignal,
): Promise<string> {
  const elicitation = server.getClientCapabilities()?.elicitation;
  const formMode =
    elicitation !== undefined && !(elicitation.form === undefined && elicitation.url !== undefined);
  if (!formMode) return DECLINED_ANSWER;
  const args = (call.args ?? {}) as { question?: unknown };
  const question = typeof args.question === "string" ? args.question : `${call.tool} asks a question`;
  const result = await server.request(
    {
      method: "elicitation/create",
      params: {
        message: `Code running in cordon's sandbox asks: ${question}`,
        requestedSchema: {
          type: "object",
          properties: {
            answer: {
              type: "string",
              title: "Answer",
              description: `The question in full:\n${approvalDetails(call.args)}`,
            },
          },
          required: ["answer"],
        },
        _meta: { [RELATED_TASK_META_KEY]: { taskId } },
      },
    },
    ElicitResultSchema,
    { relatedRequestId, signal, timeout: DEFAULT_APPROVAL_TIMEOUT_MS },
  );
  const answer = result.content?.answer;
  return result.action === "accept" && typeof answer === "string" ? answer : DECLINED_ANSWER;
}
