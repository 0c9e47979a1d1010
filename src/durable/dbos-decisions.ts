/**
 * What a person's message on a pending call's topic means (`DBOS.send(workflowID, message, topic)`), by
 * the kind of call that waits: a decision on an approval, an answer to a question, or how to settle an
 * unknown outcome. A message that is none of these is told apart with what to send instead.
 */

import type { Decision } from "../codemode/pause/pause.js";
import type { OutcomeDecision } from "../codemode/recover-run.js";
import type { PendingCall } from "../codemode/result.js";

/** What a message settles: a decision (approval, unknown outcome), an answer, or why it settles nothing. */
export type ReadMessage = { decision: Decision | OutcomeDecision } | { answer: string } | { problem: string };

/** What to send for each kind of pending call. */
const WHAT_TO_SEND: Record<PendingCall["kind"], string> = {
  approval: "true, false, or { approved: boolean, reason?: string }",
  question: "the answer, a string",
  "unknown-outcome": '{ rerun: true }, { failed: "reason" }, or { result: <its result, JSON> }',
};

/** Reads `message`, sent on the topic of `call`. */
export function readMessage(call: PendingCall, message: unknown): ReadMessage {
  const given = message as Record<string, unknown> | null;
  const isObject = typeof given === "object" && given !== null && !Array.isArray(given);
  switch (call.kind) {
    case "approval":
      if (typeof message === "boolean") return { decision: message };
      if (
        isObject &&
        typeof given.approved === "boolean" &&
        ["string", "undefined"].includes(typeof given.reason)
      ) {
        const reason = given.reason as string | undefined;
        return { decision: { approved: given.approved, ...(reason === undefined ? {} : { reason }) } };
      }
      break;
    case "question":
      if (typeof message === "string") return { answer: message };
      break;
    case "unknown-outcome":
      if (isObject && given.rerun === true) return { decision: { rerun: true } };
      if (isObject && typeof given.failed === "string") return { decision: { failed: given.failed } };
      if (isObject && "result" in given && JSON.stringify(given.result) !== undefined) {
        return { decision: { result: given.result } };
      }
      break;
  }
  return {
    problem: `The message sent for call ${call.id} (${call.kind} of ${call.tool}) is not one it takes: send ${WHAT_TO_SEND[call.kind]}. It still waits.`,
  };
}
