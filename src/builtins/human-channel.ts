/**
 * `HumanChannel`: where the ask_human tool's questions wait for a person. One consumer reads the
 * questions (from any number of sessions, routed by their ids) and answers, cancels or closes.
 */

import { randomUUID } from "node:crypto";
import { untilAborted } from "../../common/abort.js";
import { ToolError, UserError } from "../../common/errors.js";

/** A suggested answer. */
export interface QuestionOption {
  /** One line, unique within the question. */
  label: string;
  /** One line saying what choosing it means. */
  description?: string;
}

/** What is asked. */
export interface QuestionInput {
  question: string;
  /** 2 to 4 suggestions; any text is still a valid answer. */
  options?: readonly QuestionOption[];
  /** Several options may be chosen; the answer is their labels, one per line. */
  multiSelect?: boolean;
}

/** Where a question comes from, and what ends the wait for it. */
export interface AskOptions {
  /** Withdraws the question when it fires (the call was cancelled or timed out). */
  signal?: AbortSignal;
  sessionId?: string;
  runId?: string;
  callId?: string;
}

/** A question waiting for a person. */
export interface HumanQuestion {
  readonly id: string;
  readonly question: string;
  /** Suggested answers (empty for a free-text question). */
  readonly options: readonly QuestionOption[];
  readonly multiSelect: boolean;
  /** The session of the run that asked, for a consumer serving many sessions. */
  readonly sessionId: string | undefined;
  /** The run (dispatch) that asked. */
  readonly runId: string | undefined;
  /** The tool call that asked. */
  readonly callId: string | undefined;
  readonly askedAt: Date;
  /** Aborts once the question is no longer pending (answered, cancelled, withdrawn or closed). */
  readonly signal: AbortSignal;
}

interface Waiting {
  question: HumanQuestion;
  settle: (outcome: { answer: string } | { error: unknown }) => void;
  ended: AbortController;
}

/**
 * The channel between ask_human and a person. `questions()` yields each question once, to one consumer
 * at a time; `pending` is a snapshot for polling; `answer`, `cancel` and `close` end questions. A run has
 * at most one pending question: a second one from the same run waits until the first is settled.
 *
 * @example
 * const channel = new HumanChannel();
 * tools.add(askHuman(channel));
 * for await (const q of channel.questions()) channel.answer(q.id, await prompt(q.question));
 */
export class HumanChannel {
  readonly #waiting = new Map<string, Waiting>();
  readonly #undelivered: HumanQuestion[] = [];
  readonly #runTails = new Map<string, Promise<void>>();
  #wake: (() => void) | undefined;
  #consumer = false;
  #closed: string | undefined;

  /** Whether `close()` was called. */
  get closed(): boolean {
    return this.#closed !== undefined;
  }

  /** The questions waiting for an answer now (a snapshot). */
  get pending(): HumanQuestion[] {
    return [...this.#waiting.values()].map((w) => w.question);
  }

  /**
   * Asks a question and waits for the answer. Rejects with `ToolError` when it is cancelled or the
   * channel closes, and with the signal's reason when the signal fires.
   */
  async ask(input: QuestionInput, options: AskOptions = {}): Promise<string> {
    const { signal } = options;
    if (this.#closed !== undefined) throw closedError(this.#closed, false);
    signal?.throwIfAborted();
    const run = options.runId;
    const previous = run === undefined ? undefined : this.#runTails.get(run);
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The next question of the run waits for this one and every one before it: a question cancelled
    // while it waits must not let a later one past an earlier one still pending.
    const tail = previous ? previous.then(() => mine) : mine;
    if (run !== undefined) this.#runTails.set(run, tail);
    try {
      if (previous) await (signal ? untilAborted(previous, signal) : previous);
      if (this.#closed !== undefined) throw closedError(this.#closed, false);
      return await this.#post(input, options);
    } finally {
      release();
      if (run !== undefined && this.#runTails.get(run) === tail) this.#runTails.delete(run);
    }
  }

  #post(input: QuestionInput, options: AskOptions): Promise<string> {
    const ended = new AbortController();
    const question: HumanQuestion = {
      id: randomUUID(),
      question: input.question,
      options: (input.options ?? []).map((o) => ({ ...o })),
      multiSelect: input.multiSelect === true,
      sessionId: options.sessionId,
      runId: options.runId,
      callId: options.callId,
      askedAt: new Date(),
      signal: ended.signal,
    };
    return new Promise<string>((resolve, reject) => {
      const { signal } = options;
      const onAbort = () => this.#settle(question.id, { error: signal!.reason });
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiting.set(question.id, {
        question,
        ended,
        settle: (outcome) => {
          signal?.removeEventListener("abort", onAbort);
          if ("answer" in outcome) resolve(outcome.answer);
          else reject(outcome.error);
        },
      });
      this.#undelivered.push(question);
      this.#wake?.();
    });
  }

  #settle(id: string, outcome: { answer: string } | { error: unknown }): boolean {
    const waiting = this.#waiting.get(id);
    if (!waiting) return false;
    this.#waiting.delete(id);
    waiting.ended.abort();
    waiting.settle(outcome);
    return true;
  }

  /**
   * Answers a pending question; the tool returns `text`. For a multi-select question pass the chosen
   * labels (an array is joined with newlines). False when no such question is pending.
   */
  answer(id: string, text: string | readonly string[]): boolean {
    if (typeof text !== "string" && !(Array.isArray(text) && text.every((t) => typeof t === "string"))) {
      throw new UserError(
        "HumanChannel.answer(id, text): text must be a string or an array of option labels.",
      );
    }
    return this.#settle(id, { answer: typeof text === "string" ? text : text.join("\n") });
  }

  /** Cancels a pending question: the model reads a tool error with the reason. False when none is pending. */
  cancel(id: string, reason?: string): boolean {
    const why = reason ? `: ${reason}` : ".";
    return this.#settle(id, {
      error: new ToolError(`The human cancelled the question${why}`, {
        hint: "Go on without this answer, or ask again differently if you still need it.",
      }),
    });
  }

  /** Cancels every pending question, ends `questions()`, and refuses later questions. */
  close(reason?: string): void {
    if (this.#closed !== undefined) return;
    this.#closed = reason ?? "";
    for (const id of [...this.#waiting.keys()]) this.#settle(id, { error: closedError(this.#closed, true) });
    this.#undelivered.length = 0;
    this.#wake?.();
  }

  /**
   * Yields every question once, as it is asked, until `close()`. One consumer at a time: a second call
   * while the first iterator is in use throws `UserError`. Questions settled before they were read are
   * skipped.
   */
  questions(): AsyncIterableIterator<HumanQuestion> {
    if (this.#consumer) {
      throw new UserError(
        "HumanChannel.questions() has one consumer at a time: route questions from that one loop, or end it first.",
      );
    }
    this.#consumer = true;
    let done = false;
    const finish = (): IteratorResult<HumanQuestion> => {
      if (!done) {
        done = true;
        this.#consumer = false;
        this.#wake = undefined;
      }
      return { value: undefined, done: true };
    };
    const iterator: AsyncIterableIterator<HumanQuestion> = {
      next: async () => {
        while (!done) {
          const question = this.#undelivered.shift();
          if (question) {
            if (this.#waiting.has(question.id)) return { value: question, done: false };
            continue;
          }
          if (this.#closed !== undefined) break;
          await new Promise<void>((resolve) => {
            this.#wake = resolve;
          });
          this.#wake = undefined;
        }
        return finish();
      },
      return: async () => {
        const wake = this.#wake;
        const result = finish();
        wake?.();
        return result;
      },
      [Symbol.asyncIterator]() {
        return iterator;
      },
    };
    return iterator;
  }
}

function closedError(reason: string, wasPending: boolean): ToolError {
  const why = reason ? ` (${reason})` : "";
  return new ToolError(
    wasPending
      ? `No answer: the channel to the human was closed${why}.`
      : `No one can answer questions now: the channel to the human is closed${why}.`,
    { hint: "Go on without a human answer." },
  );
}
