/**
 * The calls the code makes: `tools.<name>(args)` checked, queued, and started when the code waits for
 * them, together (sent to the host, which answers each later) or, for the one call awaited alone, as a
 * synchronous call or through the answer slot.
 */

import { MAX_ERROR_MESSAGE_CHARS } from "../../contract/index.js";
import { ANSWER_LENGTH, ANSWER_SPINS_WORD, ANSWER_STATE, ANSWER_TEXT_BYTE, ANSWERED } from "../interface.js";
import { type CallPromiseType, captureArgs, captured } from "./call-promises.js";
import { run } from "./current-run.js";
import { describeError } from "./errors.js";
import {
  apply,
  atomicsExchange,
  atomicsLoad,
  atomicsStore,
  atomicsWait,
  construct,
  create,
  freeze,
  fromCharCode,
  getOwnPropertyDescriptor,
  MapCtor,
  mapDelete,
  mapEntries,
  mapGet,
  mapIteratorNext,
  mapSet,
  mapSize,
  mathMin,
  PromiseCtor,
  promiseRejectStatic,
  StringCtor,
  setHas,
  setPrototypeOf,
  stringCharCodeAt,
  stringify,
  TypedArrayCtor,
  TypeErrorCtor,
  Uint16ArrayCtor,
} from "./intrinsics.js";
import { answerBuffer, answerCapacity, answerWords, send, syncApply, syncCall } from "./links.js";
import { bare, cut, dataOf, slice } from "./objects.js";
import { settleCall } from "./outcomes.js";
import { beforeCallMessage, meetInJournal, settleInTurn } from "./replay.js";
import { ToolCallError } from "./tool-call-error.js";
import type { Pending, Run } from "./types.js";

/**
 * Called by V8 (as the call record's `then`) one microtask after the code began to wait for a call,
 * with the resolver of the call's promise. The one call the code awaits, with nothing else queued or
 * in flight, is offered to the host synchronously (see {@link startAlone}); otherwise every queued call
 * starts, to run together (calls nobody waited for start with them, or when the run ends).
 */
export function decide(this: Pending, resolve: (value: unknown) => void): void {
  this.resolve = resolve;
  const held = this.held;
  if (held !== undefined) {
    this.held = undefined;
    resolve(held.value);
    return;
  }
  const current = run;
  if (current === undefined || current.finished) return;
  const queued = current.queued;
  if (apply(mapGet, queued, [this.promise]) !== this) return;
  if (
    this.awaited &&
    (syncApply !== undefined || answerWords !== undefined) &&
    apply(mapSize, queued, []) === 1 &&
    apply(mapSize, current.pending, []) === 0 &&
    (current.waitingTools === undefined || !apply(setHas, current.waitingTools, [this.tool]))
  ) {
    startAlone(current, this);
  } else startQueued(current);
}

/**
 * A call refused in the sandbox, before it reached the host: a rejected promise, made at the call, with
 * the prototype of its tool's call promises (`type`), so that it too says when it was not awaited.
 */
export const refuseCall = (type: CallPromiseType, tool: string, kind: string, message: string) => {
  const refused = apply(promiseRejectStatic, PromiseCtor, [new ToolCallError(tool, kind, message)]);
  setPrototypeOf(refused, type.prototype);
  return refused as Promise<unknown>;
};

/**
 * `tools.<codeName>(args)` of `owner`'s tools object, reaching `realName` (`requested`: the name the code
 * used, when no declared name was it): checked and queued here, or refused with a rejected promise. Its
 * promise is made with `type`, the call promise type of `codeName` (see `call-promises.ts`).
 */
export const callTool = (
  owner: Run,
  type: CallPromiseType,
  codeName: string,
  realName: string,
  args: unknown,
  requested: string,
): Promise<unknown> => {
  // A tools object belongs to one run: code that kept it past that run is refused.
  const current = owner;
  if (current.finished || run !== current) {
    return refuseCall(
      type,
      realName,
      "refused",
      `tools.${codeName}() was called after the run_code run ended; the call was refused.`,
    );
  }
  if (current.calls >= current.config.maxToolCalls) {
    return refuseCall(
      type,
      realName,
      "limit",
      `tools.${codeName}() was refused: this run already made ${current.config.maxToolCalls} tool calls, the most allowed in one run_code run.`,
    );
  }
  let argsJson: string | undefined;
  try {
    argsJson = args === undefined ? "{}" : stringify(args);
  } catch (cause) {
    return refuseCall(
      type,
      realName,
      "invalid_arguments",
      `The arguments of tools.${codeName}() could not be turned into JSON: ${describeError(cause).message}`,
    );
  }
  if (typeof argsJson !== "string") {
    return refuseCall(
      type,
      realName,
      "invalid_arguments",
      `The arguments of tools.${codeName}() must be plain data (an object).`,
    );
  }
  const maxArgs = current.config.maxArgsChars;
  if (argsJson.length > maxArgs) {
    return refuseCall(
      type,
      realName,
      "invalid_arguments",
      `The arguments of tools.${codeName}() are ${argsJson.length} characters of JSON; one call may carry at most ${maxArgs}. Pass less data per call (split it over several calls, or pass ids instead of contents).`,
    );
  }
  const callId = ++current.calls;
  const promise = construct(PromiseCtor, captureArgs, type) as Promise<unknown>;
  const replay = current.replay;
  const inJournal = replay !== undefined && callId <= replay.length;
  if (inJournal && settleInTurn(current, replay, callId - 1, realName, argsJson)) return promise;
  const pending: Pending = {
    promise,
    resolve: captured,
    tool: realName,
    callId,
    argsJson,
    requested,
    held: undefined,
    awaited: false,
    // biome-ignore lint/suspicious/noThenProperty: the record is the thenable its call's promise follows.
    then: decide,
  };
  if (inJournal) {
    meetInJournal(current, replay, pending);
    return promise;
  }
  apply(mapSet, current.queued, [promise, pending]);
  return promise;
};

/** The ticket of the last call that waited in the answer slot. */
let answerTickets = 0;

/** Starts every queued call of the run, in the order they were made: the host answers each later. */
export const startQueued = (current: Run) => {
  const queued = current.queued;
  if (apply(mapSize, queued, []) === 0) return;
  current.queued = new MapCtor();
  const entries = apply(mapEntries, queued, []) as object;
  for (;;) {
    const step = apply(mapIteratorNext, entries, []) as IteratorResult<[unknown, Pending]>;
    if (step.done) break;
    const pending = step.value[1];
    apply(mapSet, current.pending, [pending.callId, pending]);
    beforeCallMessage(current);
    if (pending.requested === "") send("call", current.id, pending.callId, pending.tool, pending.argsJson);
    else send("call", current.id, pending.callId, pending.tool, pending.argsJson, pending.requested);
  }
};

/**
 * Makes the one call the code waits for, with nothing else in flight, as a synchronous call to the host
 * (isolated-vm's applySync): a tool that answers at once settles it within that crossing. An outcome
 * that comes later (`""`) settles it through the entry, like a call made with `send`; the isolate is
 * free meanwhile. With another call queued or in flight the code could go on with that one, so such
 * calls start as usual.
 */
const startAlone = (current: Run, pending: Pending) => {
  apply(mapDelete, current.queued, [pending.promise]);
  apply(mapSet, current.pending, [pending.callId, pending]);
  beforeCallMessage(current);
  if (answerWords !== undefined) {
    const spins = atomicsLoad(answerWords, ANSWER_SPINS_WORD);
    if (spins > 0 || syncApply === undefined) {
      waitForAnswer(current, pending, answerWords, spins);
      return;
    }
  }
  let answer: unknown;
  try {
    answer = apply(syncApply as (...args: unknown[]) => unknown, syncCall, [
      undefined,
      [current.id, pending.callId, pending.tool, pending.argsJson, pending.requested],
    ]);
  } catch (cause) {
    // Only the error's own message is read: its other fields are looked up on prototypes the code sets.
    const reason = typeof cause === "object" && cause !== null ? dataOf(cause, "message") : cause;
    const message = `The call could not reach the host: ${typeof reason === "string" ? cut(reason, MAX_ERROR_MESSAGE_CHARS) : "no reason given"}`;
    answer = `f${stringify(bare({ kind: "error", message }))}`;
  }
  if (answer === "") return;
  apply(mapDelete, current.pending, [pending.callId]);
  const text = typeof answer === "string" ? answer : "f";
  settleCall(pending, apply(stringCharCodeAt, text, [0]) === 111 /* "o" */, slice(text, 1));
};

/**
 * Looks at the slot's state until it is no longer `ticket`, at most `spins` times; returns it. Each
 * look is a wait with no timeout (about 0.1 µs, and no syscall): a loop of bare loads would run so many
 * times that V8 would compile it anew in every sandbox. An engine that refuses the wait makes it one look.
 */
const spin = (words: Int32Array, ticket: number, spins: number): number => {
  try {
    for (let i = 0; i < spins; i++) if (atomicsWait(words, ANSWER_STATE, ticket, 0) === "not-equal") break;
  } catch {
    // The guest gives up at once; the answer settles the call through the entry.
  }
  return atomicsLoad(words, ANSWER_STATE);
};
/**
 * What a view of the slot's text is made with (`construct(Uint16Array, ..., AnswerView)`): its frozen
 * prototype, the prelude's own, holds %TypedArray%.prototype's real `length` getter, taken at install.
 * `fromCharCode` reads the view as an array-like, which reads its `length`: through the code's own
 * getter on %TypedArray%.prototype, that read would hand the code the view. Never called.
 */
function AnswerView() {
  throw new TypeErrorCtor("Illegal constructor");
}
AnswerView.prototype = freeze(
  create(Uint16ArrayCtor.prototype, {
    length: bare({ get: getOwnPropertyDescriptor(TypedArrayCtor.prototype, "length")!.get }),
  }),
);
freeze(AnswerView);
/**
 * `count` code units of the answer's text from code unit `at`, as a string. The view is made directly
 * on the slot's buffer: a method such as `subarray` would make it through the constructor's species,
 * which the code can set, and hand it the buffer.
 */
const readAnswer = (at: number, count: number): string => {
  const view = construct(Uint16ArrayCtor, [answerBuffer, ANSWER_TEXT_BYTE + at * 2, count], AnswerView);
  return apply(fromCharCode, StringCtor, view as number[]) as string;
};
/**
 * {@link startAlone} with an answer slot: sends the call as a `now` message and looks at the slot
 * until the host answers there, says the answer comes later, or `spins` looks have passed; then the
 * guest gives up (the host sees that it no longer waits) and the call settles through the entry.
 */
const waitForAnswer = (current: Run, pending: Pending, words: Int32Array, spins: number) => {
  answerTickets = answerTickets >= 0x7fffffff ? 1 : answerTickets + 1;
  const ticket = answerTickets;
  atomicsStore(words, ANSWER_STATE, ticket);
  send("now", current.id, pending.callId, pending.tool, pending.argsJson, pending.requested, ticket);
  let state = spin(words, ticket, spins);
  if (state === ticket) state = atomicsExchange(words, ANSWER_STATE, ticket, 0);
  if (state !== ANSWERED) {
    atomicsStore(words, ANSWER_STATE, 0);
    return;
  }
  const length = mathMin(atomicsLoad(words, ANSWER_LENGTH), answerCapacity);
  atomicsStore(words, ANSWER_STATE, 0);
  let text = "";
  for (let at = 0; at < length; at += 4096) text += readAnswer(at, mathMin(4096, length - at));
  apply(mapDelete, current.pending, [pending.callId]);
  settleCall(pending, apply(stringCharCodeAt, text, [0]) === 111 /* "o" */, slice(text, 1));
};
