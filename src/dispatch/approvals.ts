import type { Approvals } from "./types.js";

/** A decision as the dispatcher records it. */
export interface Decision {
  approved: boolean;
  by: "consumer" | "handler" | "default";
  reason?: string;
}

/**
 * The calls of one dispatch that wait for a human decision. The stream consumer's `approve()`, the
 * out-of-band `handle.approvals` and `release()` all decide through here; the first decision wins.
 */
export class ApprovalBoard implements Approvals {
  readonly #waiting = new Map<string, (decision: Decision) => void>();
  #released: boolean | undefined;

  /** Registers a call as waiting. `decided` resolves with the first decision made for it. */
  open(callId: string): { decided: Promise<Decision>; decide(decision: Decision): boolean } {
    let settle!: (decision: Decision) => void;
    const decided = new Promise<Decision>((resolve) => {
      settle = resolve;
    });
    let done = false;
    const decide = (decision: Decision): boolean => {
      if (done) return false;
      done = true;
      this.#waiting.delete(callId);
      settle(decision);
      return true;
    };
    if (this.#released !== undefined) {
      decide({ approved: this.#released, by: "consumer" });
    } else {
      this.#waiting.set(callId, decide);
    }
    return { decided, decide };
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
