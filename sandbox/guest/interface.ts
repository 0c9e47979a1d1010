/**
 * How the host and the guest prelude talk, and the names and caps both sides use: the types of the three
 * functions that cross the isolate's boundary, the per-run config, the `done` report, and the constants
 * the prelude repeats inside itself (it cannot import them; a test checks that they agree).
 *
 * The host side (the isolate engine) imports this file; the prelude imports only its types.
 */

import type { RecordedValues } from "../contract/index.js";

/** One message from the guest to the host. All arguments are strings or numbers. */
export type GuestSend = (
  type: GuestMessageType,
  runId: number,
  id: number,
  a: string,
  b: string,
  c?: string,
  d?: number,
) => void;

/**
 * Where the host answers a call the code waits for alone while the guest's thread spins (in-process
 * sandboxes, on a machine with a core to spare): a SharedArrayBuffer both sides see. Sleeping until the
 * host answers would cost the guest's thread a wake-up that, on an idle machine, takes longer than most
 * tools do.
 *
 * The layout, in 32-bit words: word {@link ANSWER_STATE} is the ticket of the call the guest waits for
 * (a positive number, one per call, carried by its `now` message), {@link ANSWERED} once the host wrote
 * the answer, {@link ANSWER_LATER} when the answer comes through the entry, 0 when nobody waits; word
 * {@link ANSWER_LENGTH} is the answer's length; word {@link ANSWER_SPINS_WORD} is how many times the
 * guest may look before it gives up (0: it offers the call to `syncCall` instead, and sleeps). The
 * answer's text (as {@link GuestSyncCall} answers: `"o"` and the value's JSON, or `"f"` and the
 * failure's) follows from byte {@link ANSWER_TEXT_BYTE} as UTF-16 code units. The host moves the state
 * only from the ticket it answers (compare-and-exchange), so an answer to a call the guest gave up on
 * never reaches the call it waits for now. The guest reads the slot only through views it makes itself,
 * directly on the buffer, never through a method whose species or getters the model's code can set.
 */
export interface GuestAnswerSlot {
  buffer: SharedArrayBuffer;
}

/** Word of a {@link GuestAnswerSlot}: the ticket waited for, or what became of it. */
export const ANSWER_STATE = 0;
/** Word of a {@link GuestAnswerSlot}: the answer's length in UTF-16 code units. */
export const ANSWER_LENGTH = 1;
/** Word of a {@link GuestAnswerSlot}: how many times the guest may look for an answer (set by the host). */
export const ANSWER_SPINS_WORD = 2;
/** Byte of a {@link GuestAnswerSlot} where the answer's text starts. */
export const ANSWER_TEXT_BYTE = 16;
/** State of a {@link GuestAnswerSlot}: the host wrote the answer. */
export const ANSWERED = -1;
/** State of a {@link GuestAnswerSlot}: the answer comes later, through the entry. */
export const ANSWER_LATER = -2;

/**
 * The host's function for a call the code waits for with nothing else in flight: an isolated-vm
 * Reference, called as `applySync(undefined, [runId, callId, tool, argsJson, requested])` (the arguments
 * of a `call` message). It returns the outcome as text when the host has it at once (a synchronous
 * tool): `"o"` and the value's JSON (nothing after it for undefined), or `"f"` and a failure's JSON
 * `{ tool, kind, message }`. It returns `""` when the outcome comes later: the host then settles the call
 * through the entry, as it settles a `call` message, and the guest's thread is free meanwhile.
 *
 * Not `applySyncPromise`: when the host's promise settles, isolated-vm 5 to 7 can signal a condition
 * variable the waiting thread has already freed (`Scheduler::AsyncWait::Done`), which hangs or crashes
 * the host's process.
 */
export interface GuestSyncCall {
  applySync(receiver: undefined, args: [number, number, string, string, string]): unknown;
}

/**
 * What the guest reports:
 * - `call`: `tools.<name>(args)` was called; `id` is the call id, `a` the real tool name, `b` the
 *   arguments as JSON text, `c` the name the code used when it differs from every name declared for the
 *   tool (`tools.getOrder` for `get_order`, resolved by the dispatcher's rule), else `""`.
 * - `now`: a `call` the code waits for alone, whose answer the guest waits for in its
 *   {@link GuestAnswerSlot}; `d` is the call's ticket there.
 * - `log`: a console line; `a` is the level, `b` the text.
 * - `done`: the run ended; `b` is a {@link GuestDoneReport} as JSON text.
 * - `values`: for a run that records, the values its sources of nondeterminism handed out since the
 *   last message (`b`: {@link RecordedValues} as JSON text), sent before the message that follows them;
 *   for a run that records or replays, the first one also carries the time zone and locale the code
 *   sees (`zone`), read before the code runs.
 * - `replayed`: for a run that replays ({@link GuestRunConfig.replayCalls}), `id` is how many of the
 *   code's calls since the last such message the guest answered from the journal itself; sent before
 *   its next `call` (or sync call) and before `done`, and once the code has made every call of the journal.
 */
type GuestMessageType = "call" | "now" | "log" | "done" | "values" | "replayed";

/**
 * The guest's entry point, called by the host.
 * - `("start", runId, main, configJson)`: runs `main` (the model's code wrapped as an async function)
 *   with the per-run {@link GuestRunConfig}.
 * - `("settle", runId, callId, valueJson)`: a tool call succeeded; `valueJson` is its value as JSON text
 *   (`""` for undefined).
 * - `("fail", runId, callId, errorJson)`: a tool call failed; `errorJson` is `{ tool, kind, message }`.
 * - `("guard", 0, 0, "")`: before the first run, records the built-ins a later run checks (a run that
 *   is not final does this itself as it starts; the host sends it first when the code could run before
 *   `start`).
 * - `("idle", runId, 0, "")`: does nothing. It returns once the isolate has finished what it was running,
 *   which is what the host calls it for.
 *
 * Outcomes for another run, or for a call already settled, are ignored.
 */
export type GuestEntry = (
  op: "start" | "settle" | "fail" | "guard" | "idle",
  runId: number,
  a: unknown,
  b: string,
) => void;

/** The per-run settings the host sends with `start`. */
export interface GuestRunConfig {
  /**
   * Names usable in code (`tools.<name>`), mapped to the real tool names. Other names reach a tool when
   * they resolve to exactly one real name under the dispatcher's rule (case, separators, camelCase and a
   * trailing `Tool` folded).
   */
  toolNames: Record<string, string>;
  /** The names the model's code declares (variables, functions, classes, parameters), for suggestions. */
  names?: string[];
  /** Characters of console output forwarded in this run. */
  maxLogChars: number;
  /** Characters of the JSON-encoded result. */
  maxResultChars: number;
  /** Tool calls the code may start in this run; later ones are refused inside the guest. */
  maxToolCalls: number;
  /** Characters of JSON arguments one tool call may carry; a larger call is refused inside the guest. */
  maxArgsChars: number;
  /**
   * Characters of text this sandbox may hand to `Intl.Segmenter` over its whole life: ICU copies the
   * text outside the heap, where the memory limit does not see it.
   */
  maxIcuChars: number;
  /** No later run will use this sandbox: the record of the built-ins that guards later runs is skipped. */
  final?: boolean;
  /** Real names of tools whose calls may wait for a person: the guest never offers those synchronously. */
  waitingTools?: string[];
  /** Record the values the clock and Math.random hand out (a run that may pause). */
  record?: boolean;
  /** Values to hand out first, per source, before live ones (a run resumed by replay). */
  replay?: RecordedValues;
  /** The journal of the run this one resumes: the calls the guest answers itself (see `replayed`). */
  replayCalls?: GuestReplayedCalls;
  /**
   * `tools.$search` and `tools.$describe` exist (see `sandbox/contract/discovery.ts`): `maxLimit` is the
   * most matches one search may ask for, `defaultLimit` what it gets without asking, `maxCalls` how many
   * discovery calls the run may make, `maxQueryChars` how long a query or name may be.
   */
  discovery?: GuestDiscoveryConfig;
}

/** The numbers the guest checks discovery calls against (the host's constants, sent with each run). */
interface GuestDiscoveryConfig {
  maxLimit: number;
  defaultLimit: number;
  maxCalls: number;
  maxQueryChars: number;
}

/**
 * A journal as the guest replays it: `ReplayedCalls` as parallel lists of plain values (call `i` is
 * `tools[i]`, `args[i]`, `outcomes[i]`, `after[i]`), which the guest reads as they are, without making an
 * object per call.
 */
export interface GuestReplayedCalls {
  tools: string[];
  args: string[];
  /** `"o"` and the value's JSON, or `"f"` and the failure's JSON (as {@link GuestSyncCall} answers); `""`: it runs live. */
  outcomes: string[];
  /** How many calls the code had made when each ended: its outcome is delivered no earlier. */
  after: number[];
  /** Indexes of the calls with an outcome, in the order they ended. */
  order: number[];
}

/** How a run ended, as the guest reports it (JSON text in the `done` message). */
export interface GuestDoneReport {
  status: "ok" | "error" | "limit";
  /** The result as JSON text; absent when the code returned `undefined`. */
  valueJson?: string;
  /** Set for `error` and `limit`. */
  error?: { name: string; message: string; stack?: string; tool?: string; kind?: string };
  /**
   * The run ended inside the task of its `start` (the code finished without waiting for a tool call):
   * the isolate is idle once that task's call returns, so the host needs no `idle` call to know it.
   */
  inStart?: boolean;
}

/**
 * The file name the model's code is compiled under. Stack frames in this file are the model's own; every
 * other frame (the prelude, the engine) is removed from the stacks reported to the host.
 */
export const USER_CODE_FILENAME = "run_code.js";

/**
 * The name of the parameter through which wrapped code registers a snapshot of its top-level
 * declarations, so that a session can keep them (see `installPrelude`).
 */
export const PERSIST_PARAMETER = "__cordon_persist__";

/**
 * The name of the parameter through which wrapped code reads the value an earlier run of the session
 * left for one of its top-level `var`s (an own data property of the global object, never a getter).
 */
export const RESTORE_PARAMETER = "__cordon_restore__";
