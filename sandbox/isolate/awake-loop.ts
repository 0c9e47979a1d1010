/**
 * Keeps this thread's event loop from sleeping for a moment after it answered one of the code's calls,
 * while the machine has a core to spare: the code's next call then finds the thread awake.
 *
 * A thread that sleeps in the event loop's poll must be woken by the next call's message, and on an
 * idle machine (a VM's vCPU asleep) that wake-up costs the sender and this thread tens of µs each,
 * about as much as the rest of a call. While an immediate is pending, the loop polls without waiting
 * and goes round again, so the thread stays on its core and every other event is still handled as it
 * comes: nothing is held up. It stops {@link AWAKE_AFTER_ANSWER_US} µs after the last answer, and is
 * never started while the machine's cores are all busy (spare-core.ts), where it would take a core
 * from the thread that must send the next call.
 */

import { hasSpareCore } from "./spare-core.js";

/** How long the loop stays awake after an answer, in µs: longer than a step of code between two calls. */
const AWAKE_AFTER_ANSWER_US = 300;

let awakeUntil = 0;
let awake = false;

function turn(): void {
  if (performance.now() < awakeUntil) setImmediate(turn);
  else awake = false;
}

/** Whether the loop is being kept awake now. */
export function isAwake(): boolean {
  return awake;
}

/**
 * Keeps the event loop awake for `microseconds` from now (the later end wins when it already is); does
 * nothing while the machine has no core to spare (`spare` says; the machine's idle time by default), or
 * when `microseconds` is 0.
 */
export function stayAwake(
  microseconds: number = AWAKE_AFTER_ANSWER_US,
  spare: () => boolean = hasSpareCore,
): void {
  if (microseconds <= 0 || !spare()) return;
  awakeUntil = Math.max(awakeUntil, performance.now() + microseconds / 1000);
  if (awake) return;
  awake = true;
  setImmediate(turn);
}
