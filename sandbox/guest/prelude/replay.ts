/**
 * A run resumed by replay: the calls of the journal it replays are answered here, in the guest, in the
 * recorded order of ending, without crossing to the host; the host is told how many were.
 */

import type { GuestReplayedCalls, GuestRunConfig } from "../interface.js";
import { captured } from "./call-promises.js";
import { flushTape } from "./clock.js";
import { apply, isArray, MapCtor, mapDelete, mapGet, mapSet, stringCharCodeAt } from "./intrinsics.js";
import { send } from "./links.js";
import { slice } from "./objects.js";
import { outcomeValue, settleCall } from "./outcomes.js";
import type { Pending, Replaying, Run } from "./types.js";

/**
 * The journal in the run's config, checked; undefined when there is none or it is not well formed
 * (the host then answers every call, from the same journal).
 */
export const replayingFor = (config: GuestRunConfig): Replaying | undefined => {
  const journal = config.replayCalls as Partial<GuestReplayedCalls> | undefined;
  if (typeof journal !== "object" || journal === null) return undefined;
  const { tools, args, outcomes, after, order } = journal;
  if (!isArray(tools) || !isArray(args) || !isArray(outcomes) || !isArray(after) || !isArray(order)) {
    return undefined;
  }
  const length = tools.length;
  if (args.length !== length || outcomes.length !== length || after.length !== length) return undefined;
  // Lists parsed from JSON have no holes: every read below is an own element, never the prototype's.
  for (let i = 0; i < length; i++) {
    if (typeof tools[i] !== "string" || typeof args[i] !== "string") return undefined;
    if (typeof outcomes[i] !== "string" || typeof after[i] !== "number") return undefined;
  }
  for (let i = 0; i < order.length; i++) {
    const index = order[i];
    if (typeof index !== "number" || !(index >= 0 && index < length)) return undefined;
    if (outcomes[index] === "") return undefined;
  }
  return {
    journal: journal as GuestReplayedCalls,
    length,
    matched: 0,
    next: 0,
    waiting: new MapCtor(),
    held: 0,
    unsent: 0,
  };
};

/** Tells the host how many calls were answered here since it was last told. */
const flushReplayed = (current: Run) => {
  const replay = current.replay;
  if (replay === undefined || replay.unsent === 0) return;
  const count = replay.unsent;
  replay.unsent = 0;
  send("replayed", current.id, count, "", "");
};

/** What the host must hear before a message about calls (a call, the end): recorded values, replayed calls. */
export const beforeCallMessage = (current: Run) => {
  flushTape(current.id);
  flushReplayed(current);
};

/**
 * Delivers every outcome of the journal whose turn has come; once the code has made every call of the
 * journal, tells the host (which starts the calls that waited for a person only then).
 */
const deliverReplayed = (current: Run, replay: Replaying) => {
  const { order, outcomes, after } = replay.journal;
  while (replay.next < order.length) {
    const index = order[replay.next]!;
    const pending = apply(mapGet, replay.waiting, [index]) as Pending | undefined;
    if (pending === undefined || replay.matched < after[index]!) break;
    apply(mapDelete, replay.waiting, [index]);
    replay.held--;
    replay.next++;
    settleReplayed(pending, outcomes[index]!);
  }
  // The recorded values (the zone the first time) go before the count, as before any call message.
  if (replay.matched >= replay.length) beforeCallMessage(current);
};

/** Settles a replayed call with its recorded outcome (`"o"` and the value's JSON, or `"f"` and the failure's). */
const settleReplayed = (pending: Pending, text: string) =>
  settleCall(pending, apply(stringCharCodeAt, text, [0]) === 111 /* "o" */, slice(text, 1));

/**
 * The common case of a replay, code that awaits each call in turn: call `index` is the journal's call
 * at its place, its turn has come and nothing else waits, so the promise just made (its resolver is
 * `captured`) is settled with the recorded outcome now, with nothing kept for it. False otherwise.
 */
export const settleInTurn = (
  current: Run,
  replay: Replaying,
  index: number,
  tool: string,
  argsJson: string,
): boolean => {
  const { tools, args, outcomes, order, after } = replay.journal;
  if (order[replay.next] !== index || replay.matched + 1 < after[index]! || replay.held !== 0) return false;
  if (tools[index] !== tool || args[index] !== argsJson) return false;
  replay.matched++;
  replay.unsent++;
  replay.next++;
  const text = outcomes[index]!;
  captured(outcomeValue(tool, apply(stringCharCodeAt, text, [0]) === 111 /* "o" */, slice(text, 1)));
  // The recorded values (the zone the first time) go before the count, as before any call message.
  if (replay.matched >= replay.length) beforeCallMessage(current);
  return true;
};

/**
 * Any other call at a place the journal has: one it recorded waits for its turn here; one that waited
 * for a person (it runs live), or one that differs from the journal (the host ends the run), goes to
 * the host now, after the calls before it.
 */
export const meetInJournal = (current: Run, replay: Replaying, pending: Pending) => {
  const { tools, args, outcomes } = replay.journal;
  const { callId, tool, argsJson, requested } = pending;
  const index = callId - 1;
  replay.matched++;
  if (outcomes[index] !== "" && tools[index] === tool && args[index] === argsJson) {
    replay.unsent++;
    replay.held++;
    apply(mapSet, replay.waiting, [index, pending]);
  } else {
    apply(mapSet, current.pending, [callId, pending]);
    beforeCallMessage(current);
    if (requested === "") send("call", current.id, callId, tool, argsJson);
    else send("call", current.id, callId, tool, argsJson, requested);
  }
  deliverReplayed(current, replay);
};
