/**
 * The host's side of a {@link GuestAnswerSlot}: where an in-process sandbox's host writes the answer to
 * a call the code waits for alone, while the guest's thread spins on it instead of sleeping.
 *
 * A sleeping thread must be woken, and on an idle machine (a VM's vCPU asleep) that wake-up costs about
 * as much as the rest of the call. The guest looks at the slot at most {@link ANSWER_SPINS} times (each
 * look is about 0.1 µs), about as long as the host takes to wake and answer a synchronous tool; then it
 * gives up, its thread is free, and the answer comes through the entry as any call's does. It spins only
 * while the machine has a core to spare (spare-core.ts); otherwise it sleeps in a synchronous call.
 */

import {
  ANSWER_LATER,
  ANSWER_LENGTH,
  ANSWER_SPINS_WORD,
  ANSWER_STATE,
  ANSWER_TEXT_BYTE,
  ANSWERED,
  type GuestAnswerSlot,
} from "../guest/interface.js";
import { hasSpareCore } from "./spare-core.js";

/** How the code's thread waits for a call's answer (see `IsolateEngineOptions.spin`). */
export type SpinMode = "auto" | "always" | "never";

/** How many times the guest looks at the slot before it gives up on a call (see the module's comment). */
export const ANSWER_SPINS = 600;

/** The slot's size in bytes: answers longer than fits come through the entry. */
export const ANSWER_SLOT_BYTES = 64 * 1024;

/** {@link ANSWER_SPINS} while the machine has a core to spare, else 0 (the guest sleeps). */
export function spinsWhileSpare(): number {
  return hasSpareCore() ? ANSWER_SPINS : 0;
}

/** {@link ANSWER_SPINS} whatever the machine's load. */
export function alwaysSpin(): number {
  return ANSWER_SPINS;
}

/** One sandbox's answer slot. */
export class AnswerSlot {
  readonly #buffer = new SharedArrayBuffer(ANSWER_SLOT_BYTES);
  readonly #words = new Int32Array(this.#buffer, 0, ANSWER_TEXT_BYTE / 4);
  readonly #text = Buffer.from(this.#buffer, ANSWER_TEXT_BYTE);
  readonly #spins: () => number;

  /** `spins` says how many looks the guest's next call may take (0: it sleeps instead). */
  constructor(spins: () => number = spinsWhileSpare) {
    this.#spins = spins;
    this.judgeSpins();
  }

  /** What the guest is handed at install. */
  guestSide(): GuestAnswerSlot {
    return { buffer: this.#buffer };
  }

  /**
   * Hands `text` to the guest if it still waits for call `ticket`. False when it does not (it gave up,
   * or the text does not fit, and then it stops waiting): the caller then settles the call through the
   * entry.
   */
  answer(ticket: number, text: string): boolean {
    this.judgeSpins();
    if (text.length * 2 > this.#text.length) {
      this.later(ticket);
      return false;
    }
    if (Atomics.load(this.#words, ANSWER_STATE) !== ticket) return false;
    this.#text.write(text, 0, "utf16le");
    Atomics.store(this.#words, ANSWER_LENGTH, text.length);
    return Atomics.compareExchange(this.#words, ANSWER_STATE, ticket, ANSWERED) === ticket;
  }

  /** Tells the guest waiting for call `ticket` that its answer comes through the entry: it stops looking. */
  later(ticket: number): void {
    this.judgeSpins();
    Atomics.compareExchange(this.#words, ANSWER_STATE, ticket, ANSWER_LATER);
  }

  /**
   * Lets the guest's next call spin or not, as the machine has a core to spare or not. Called at every
   * call the guest waits for alone, whichever way it waited.
   */
  judgeSpins(): void {
    Atomics.store(this.#words, ANSWER_SPINS_WORD, this.#spins());
  }
}
