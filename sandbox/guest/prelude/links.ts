/**
 * The host's links into the guest (see `interface.ts`): `send`, the synchronous call and the answer slot,
 * kept here from install on and never handed to the model's code.
 */

import { ANSWER_TEXT_BYTE, type GuestAnswerSlot, type GuestSend, type GuestSyncCall } from "../interface.js";
import { Int32ArrayCtor } from "./intrinsics.js";

/** Reports a tool call, a console line or the end of a run to the host. */
export let send: GuestSend = () => {};
/** The host's synchronous call (an isolated-vm Reference), if any: called only through {@link syncApply}. */
export let syncCall: GuestSyncCall | undefined;
/** `syncCall.applySync`, read once at install: the model's code never sees `syncCall`. */
export let syncApply: GuestSyncCall["applySync"] | undefined;
/**
 * The answer slot's buffer (layout in interface.ts: GuestAnswerSlot), taken at install and never handed
 * out. The answer's text is read through a view made for it (see readAnswer in calls.ts).
 */
export let answerBuffer: SharedArrayBuffer | undefined;
/** The answer slot's words (its state, the answer's length, how long to spin). */
export let answerWords: Int32Array | undefined;
/** How many UTF-16 code units of answer the slot holds. */
export let answerCapacity = 0;

/** Keeps the host's links (once, at install). */
export const linkHost = (hostSend: GuestSend, hostSyncCall?: GuestSyncCall, answers?: GuestAnswerSlot) => {
  send = hostSend;
  syncCall = hostSyncCall;
  syncApply = hostSyncCall?.applySync;
  answerBuffer = answers?.buffer;
  answerWords = answerBuffer === undefined ? undefined : new Int32ArrayCtor(answerBuffer, 0, 4);
  answerCapacity = answerBuffer === undefined ? 0 : (answerBuffer.byteLength - ANSWER_TEXT_BYTE) / 2;
};
