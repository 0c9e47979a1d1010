import type { Approvals } from "./types.js";

/** A decision as the dispatcher records it. */
export interface Decision {
  approved: boolean;
  by: "consumer" | "handler" | "default";
  reason?: string;
}

/** One call waiting for a decision. `decide` returns false when the call was already decided. */
export interface Ticket {
  readonly decided: Promise<Decision>;
  done: boolean;
  decide(decision: Decision): boolean;
}

/**
 * The calls of one dispatch that wait for a human decision. The stream consumer's `approve()`, the
 * out-of-band `handle.approvals` and `release()` all decide through here; the first decision wins.
 */
export class ApprovalBoard implements Approvals {
  readonly #waiting = new Map<string, (decision: Decision) => void>();
  #released: boolean | undefined;

  /** Registers a call as waiting; its ticket resolves with the first decision made for it. */
  open(callId: string): Ticket {
    let settle!: (decision: Decision) => void;
    const decided = new Promise<Decision>((resolve) => {
      settle = resolve;
    });
    const ticket: Ticket = {
      decided,
      done: false,
      decide: (decision) => {
        if (ticket.done) return false;
        ticket.done = true;
        if (this.#waiting.get(callId) === ticket.decide) this.#waiting.delete(callId);
        settle(decision);
        return true;
      },
    };
    if (this.#released !== undefined) ticket.decide({ approved: this.#released, by: "consumer" });
    else this.#waiting.set(callId, ticket.decide);
    return ticket;
  }

  approve(callId: string): boolean {
    const decide = this.#waiting.get(callId);
    if (!decide) return false;
    decide({ approved: true, by: "consumer" });
    return true;
  }

  reject(callId: string, reason?: string): boolean {
    const decide = this.#waiting.get(callId);
    if (!decide) return false;
    decide({ approved: false, by: "consumer", reason });
    return true;
  }

  release(decision: boolean): void {
    this.#released = decision;
    for (const decide of [...this.#waiting.values()]) {
      decide({ approved: decision, by: "consumer" });
    }
  }

  pending(): string[] {
    return [...this.#waiting.keys()];
  }
}
