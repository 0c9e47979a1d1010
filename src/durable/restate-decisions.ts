/**
 * What a person sends through a Restate awakeable for a call that waits (`cordon/restate`): the value
 * the app resolves the awakeable with, read as the decision on an approval, the answer to a question, or
 * how to settle an unknown outcome, and kept by the call it decides until a recovery has used it. A value
 * that is none of these is not guessed at: the call is asked again, with what was wrong.
 */

import type { OutcomeDecision } from "../codemode/recover-run.js";
import type { PendingCall } from "../codemode/result.js";

/** How a person met one waiting call, as `cm.recover` takes it. */
type Met =
  | { decision: boolean | { approved: boolean; reason?: string } | OutcomeDecision }
  | { answer: string };

/** A value that is not a decision for its call: why, in a sentence for whoever resolved the awakeable. */
interface Problem {
  problem: string;
}

/** What each kind of waiting call takes, for the problem's sentence. */
const WANTED: Record<PendingCall["kind"], string> = {
  approval: "true, false, or { approved: boolean, reason?: string }",
  question: "the answer, a string",
  "unknown-outcome": '{ rerun: true }, { failed: "reason" } or { result: <JSON value> }',
};

/** `value`, resolved for `call`'s awakeable, as a decision on it; or why it is not one. */
export function decisionOf(call: PendingCall, value: unknown): Met | Problem {
  const refused: Problem = {
    problem: `Call ${call.id} (${call.kind} of ${call.tool}) takes ${WANTED[call.kind]}; its awakeable was resolved with ${describe(value)}.`,
  };
  if (value instanceof NotJson) {
    return { problem: `${refused.problem.slice(0, -1)}, which is not JSON.` };
  }
  switch (call.kind) {
    case "approval": {
      if (typeof value === "boolean") return { decision: value };
      const given = value as { approved?: unknown; reason?: unknown } | null;
      if (typeof given !== "object" || given === null || typeof given.approved !== "boolean") return refused;
      if (given.reason !== undefined && typeof given.reason !== "string") return refused;
      return {
        decision: {
          approved: given.approved,
          ...(given.reason === undefined ? {} : { reason: given.reason }),
        },
      };
    }
    case "question":
      return typeof value === "string" ? { answer: value } : refused;
    case "unknown-outcome": {
      const given = value as { rerun?: unknown; failed?: unknown; result?: unknown } | null;
      if (typeof given !== "object" || given === null) return refused;
      if (given.rerun === true) return { decision: { rerun: true } };
      if (typeof given.failed === "string") return { decision: { failed: given.failed } };
      if ("result" in given && JSON.stringify(given.result) !== undefined) {
        return { decision: { result: given.result } };
      }
      return refused;
    }
  }
}

/**
 * An awakeable that was rejected (`POST /restate/awakeables/{id}/reject`): an approval is denied, with
 * the rejection's message as the reason (approval fails closed); a question or an unknown outcome has no
 * "no", so it is asked again.
 */
export function rejectionOf(call: PendingCall, message: string): Met | Problem {
  if (call.kind === "approval") return { decision: { approved: false, reason: message } };
  return {
    problem: `Call ${call.id} (${call.kind} of ${call.tool})'s awakeable was rejected (${message}); it takes ${WANTED[call.kind]}: resolve its new awakeable with one.`,
  };
}

/** The decisions given so far, each by the call (and kind of waiting) it decides. */
export class Decisions {
  readonly #met = new Map<string, Met>();

  /** `call` was decided (or answered) so. */
  set(call: PendingCall, met: Met): void {
    this.#met.set(keyOf(call), met);
  }

  /** Whether `call` has a decision. */
  has(call: PendingCall): boolean {
    return this.#met.has(keyOf(call));
  }

  /**
   * Forgets every `{ rerun: true }`: once the journal has records after the pause they were given at,
   * a call decided so may have run again since, and whether it took effect is unknown anew.
   */
  forgetReruns(): void {
    for (const [key, met] of this.#met) {
      if ("decision" in met && typeof met.decision === "object" && "rerun" in met.decision) {
        this.#met.delete(key);
      }
    }
  }

  /** The decisions and answers for those of `pending` that have one, as `cm.recover` takes them. */
  for(pending: readonly PendingCall[]): {
    decisions: Record<string, Extract<Met, { decision: unknown }>["decision"]>;
    answers: Record<string, string>;
    count: number;
  } {
    const decisions: Record<string, Extract<Met, { decision: unknown }>["decision"]> = {};
    const answers: Record<string, string> = {};
    let count = 0;
    for (const call of pending) {
      const met = this.#met.get(keyOf(call));
      if (met === undefined) continue;
      count++;
      if ("answer" in met) answers[call.id] = met.answer;
      else decisions[call.id] = met.decision;
    }
    return { decisions, answers, count };
  }
}

/** A call that waits for approval, and the same call waiting again with its outcome unknown, are two questions. */
function keyOf(call: PendingCall): string {
  return `${call.kind}\n${call.id}`;
}

/** The text of an awakeable's value that was not JSON (see {@link lenientJson}). */
class NotJson {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/**
 * The serde cordon's awakeables read their values with: JSON, as Restate's default, except that a value
 * that is not JSON becomes a {@link NotJson} (its call is asked again) instead of an error that would
 * fail the invocation's every retry.
 */
export const lenientJson = {
  contentType: "application/json",
  serialize(value: unknown): Uint8Array {
    return new TextEncoder().encode(JSON.stringify(value ?? null));
  },
  deserialize(data: Uint8Array): unknown {
    const text = new TextDecoder().decode(data);
    try {
      return JSON.parse(text);
    } catch {
      return new NotJson(text);
    }
  },
};

function describe(value: unknown): string {
  if (value instanceof NotJson) return JSON.stringify(value.text.slice(0, 100));
  const json = JSON.stringify(value);
  if (json === undefined) return "nothing";
  return json.length <= 100 ? json : `${json.slice(0, 100)}…`;
}
