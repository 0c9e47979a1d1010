/**
 * The journal of a run that may pause: every call the code made (tool, arguments as JSON, and how it
 * ended, in the order calls ended), the values the sandbox's clock and Math.random handed out, the time
 * zone and locale its code saw, and how many console lines the code wrote. A paused run keeps it in its checkpoint; the run that resumes it
 * runs the code again and {@link Replay} answers each call from it instead of running the tool again.
 */

import {
  type BridgeCallOutcome,
  type RecordedValues,
  type RecordedZone,
  type ReplayedCalls,
  recordedZone,
} from "../../../sandbox/contract/index.js";
import type { FlowApproval } from "../../dispatch/flow-approval.js";
import type { CallRecord } from "../result.js";

/** Why a call waits for a person: its approval, or the answer to a question (a `waitsForHuman` tool). */
export type PendingKind = "approval" | "question";

/** One call the code made, as the journal keeps it. */
export interface JournalEntry {
  /** The real tool name the code addressed. */
  tool: string;
  /** The arguments as the code sent them (JSON text). */
  args: string;
  /** The name the code used, when it was not a declared one. */
  requested?: string;
  /** How the call ended, exactly as the sandbox received it. Absent: it did not end (see `pending`). */
  outcome?: BridgeCallOutcome;
  /** Its line in the run's `calls`, made when it ended (none for a call refused before it started). */
  record?: CallRecord;
  /** How many calls the code had made when this one ended: a replay delivers it no earlier. */
  after?: number;
  /**
   * Set while the call waits for a person, with its arguments as validated (what the person should
   * see). A call with neither `outcome` nor `pending` was made but never started: the run was pausing.
   */
  pending?: PendingEntry;
  /**
   * Set for an effect of a plan (`cm.plan`): the tool did not run, and `outcome` is its preview, which
   * the code got. Carrying the plan out runs it live (when approved) in place of the preview.
   */
  planned?: { args: unknown };
}

/**
 * Why a call waits, with its arguments as validated, and, when a flow policy sent it to a person, why
 * and which arguments hold labelled data.
 */
interface PendingEntry {
  kind: PendingKind;
  args: unknown;
  flow?: FlowApproval;
}

/** Everything a paused run keeps to be resumed: code mode's part of a checkpoint. */
export interface JournalState {
  entries: JournalEntry[];
  /** Indexes of `entries`, in the order their calls ended. */
  order: number[];
  values: { now: number[]; random: number[] };
  /**
   * The time zone and locale the code saw, as its sandbox reported them; absent when it reported none
   * (a journal made before they were recorded, or a sandbox that does not report them).
   */
  zone?: RecordedZone;
  /** Console lines the code wrote so far (a replay does not show them again). */
  logCount: number;
}

/** A journal with nothing in it yet. */
function emptyJournal(): JournalState {
  return { entries: [], order: [], values: { now: [], random: [] }, logCount: 0 };
}

/**
 * Records one run into a journal. A resumed run continues the journal of the run it resumes: the calls
 * it replays are already there, and what it does live is added.
 */
export class JournalRecorder {
  readonly state: JournalState;
  /** The sandbox handed out more values than it records: the run cannot be replayed exactly. */
  overflow = false;

  /** Entries of the journal it continues that it has not copied yet (it copies one before changing it). */
  readonly #shared: Set<JournalEntry>;

  constructor(previous: JournalState = emptyJournal()) {
    // A copy: the run that resumes may itself fail, and the journal it was given must stay as it was.
    this.state = {
      entries: [...previous.entries],
      order: [...previous.order],
      values: { now: [...previous.values.now], random: [...previous.values.random] },
      logCount: previous.logCount,
    };
    if (previous.zone !== undefined) this.state.zone = previous.zone;
    this.#shared = new Set(
      previous.entries.filter((entry) => entry.outcome === undefined || entry.planned !== undefined),
    );
  }

  /** Entry `index`, copied first when it is still the given journal's. */
  #own(index: number): JournalEntry | undefined {
    const entry = this.state.entries[index];
    if (entry === undefined || !this.#shared.delete(entry)) return entry;
    const copy = { ...entry };
    this.state.entries[index] = copy;
    return copy;
  }

  /** The code made call number `index` (from 0). */
  made(index: number, tool: string, args: string, requested: string | undefined): void {
    if (index < this.state.entries.length) return; // a replayed call: the journal has it
    const entry: JournalEntry = { tool, args };
    if (requested !== undefined) entry.requested = requested;
    this.state.entries[index] = entry;
  }

  /** Call `index` ended with `outcome`, when the code had made `made` calls. */
  ended(index: number, outcome: BridgeCallOutcome, record: CallRecord | undefined, made: number): void {
    const given = this.state.entries[index];
    if (given?.outcome !== undefined && given.planned === undefined) return;
    const entry = this.#own(index);
    if (entry === undefined) return;
    delete entry.pending;
    entry.outcome = outcome;
    if (record !== undefined) entry.record = record;
    if (entry.planned !== undefined) {
      // A planned effect that ran: its outcome takes the preview's place (and turn) in the journal.
      delete entry.planned;
      return;
    }
    entry.after = made;
    this.state.order.push(index);
  }

  /** Call `index`, which ended, gave its tool's preview: an effect of a plan. */
  previewed(index: number, args: unknown): void {
    const entry = this.#own(index);
    if (entry?.outcome !== undefined) entry.planned = { args };
  }

  /**
   * Keeps the first `count` calls only: a plan being carried out left its path there (an effect's live
   * result differed from its preview), so the calls the plan made after it are not this run's.
   */
  truncate(count: number): void {
    const { entries } = this.state;
    if (entries.length <= count) return;
    entries.length = count;
    this.state.order = this.state.order.filter((index) => index < count);
  }

  /**
   * For a plan being carried out that pauses: its planned effects that did not run wait for a person's
   * approval in the checkpoint, as calls that never ended (nothing gives the code their preview again).
   */
  unplan(): void {
    const waiting = new Set<number>();
    this.state.entries.forEach((given, index) => {
      if (given.planned === undefined) return;
      const entry = this.#own(index)!;
      const args = entry.planned!.args;
      delete entry.planned;
      delete entry.outcome;
      delete entry.record;
      delete entry.after;
      entry.pending = { kind: "approval", args };
      waiting.add(index);
    });
    if (waiting.size > 0) this.state.order = this.state.order.filter((index) => !waiting.has(index));
  }

  /** Call `index` waits for a person (sent to one by a flow policy when `flow` is given). */
  paused(index: number, kind: PendingKind, args: unknown, flow?: FlowApproval): void {
    const entry = this.#own(index);
    if (entry !== undefined) entry.pending = { kind, args, ...(flow ? { flow } : {}) };
  }

  /**
   * Values the sandbox handed out (after those of the replayed part, which it does not record again), and
   * the zone its code sees: the first run's is kept (a resume is stopped when its sandbox's differs).
   */
  values(values: RecordedValues): void {
    if (values.overflow === true) this.overflow = true;
    if (values.zone !== undefined) this.state.zone ??= values.zone;
    if (Array.isArray(values.now)) this.state.values.now.push(...values.now);
    if (Array.isArray(values.random)) this.state.values.random.push(...values.random);
  }

  /** The code wrote a console line. */
  logged(): void {
    this.state.logCount++;
  }
}

/** What the code asked for at one call of a replay, when it is not what the journal has there. */
export interface Divergence {
  index: number;
  message: string;
  /** What to do about it, when it is not the usual "start the run again" (see `divergedRun`). */
  remedy?: string;
}

/** How {@link Replay.match} answers one call of the code. */
export type ReplayAnswer =
  /** Its recorded outcome: now, or once the calls that ended before it have been delivered. */
  | { outcome: BridgeCallOutcome | Promise<BridgeCallOutcome>; record: CallRecord | undefined }
  /** A call that did not end: it runs live, after the last call the journal has has been matched. */
  | { live: Promise<void>; entry: JournalEntry }
  /**
   * An effect of a plan: it runs live now (approved, or it waits for a person), and its outcome goes to
   * {@link Replay.effectEnded}, which delivers it in the preview's turn.
   */
  | { effect: JournalEntry }
  /** A plan being carried out left the plan's path: this call and every later one are live. */
  | { offPlan: true }
  /** The code asked for something else than the journal has. */
  | { diverged: Divergence };

/** The longest arguments text a divergence message quotes. */
const QUOTED_ARGS_CHARS = 200;

/**
 * The replayed part of a resumed run. Call `i` of the code must be entry `i` of the journal (same tool,
 * same arguments). A call that ended gets its recorded outcome, delivered in the recorded order of
 * ending and no earlier than the code had then made as many calls, so that a `Promise.race` among tool
 * calls has the winner it had. (Not the microtask turn it arrived in: code that races calls against its
 * own microtasks may go another way, and is stopped at the first call that differs.) Calls that did not
 * end run live, and only once every call of the journal has been matched: a diverging run is stopped
 * before anything runs again.
 */
export class Replay {
  readonly #journal: JournalState;
  /** Calls of the journal the code has made again. */
  #matched = 0;
  /** Position in `order` of the next recorded outcome to deliver. */
  #next = 0;
  readonly #waiting = new Map<number, (outcome: BridgeCallOutcome) => void>();
  readonly #live: (() => void)[] = [];
  /** Calls the sandbox answered itself, from the journal it was given (see {@link answeredInSandbox}). */
  readonly #inSandbox = new Set<number>();
  /** Their records, in the order their calls ended, as their turn comes. */
  #sandboxRecords: CallRecord[] = [];
  /** The live outcomes of a plan's effects, by index, once they came (see {@link effectEnded}). */
  readonly #effects = new Map<number, BridgeCallOutcome>();
  /** An effect's live outcome was not its preview: the code may now leave the plan's path. */
  #deviated = false;
  /** Where the code left the plan's path: the journal ends there, and outcomes go as they come. */
  #leftAt: number | undefined;

  constructor(journal: JournalState) {
    this.#journal = journal;
  }

  /** Console lines of the replayed part: the sandbox writes them again, and nobody should see them twice. */
  get logCount(): number {
    return this.#journal.logCount;
  }

  /** The time zone and locale the paused run's code saw, when its sandbox reported them. */
  get zone(): RecordedZone | undefined {
    return this.#journal.zone;
  }

  /** How many calls the journal has: the code's calls from this one on run live. */
  get length(): number {
    return this.#leftAt ?? this.#journal.entries.length;
  }

  /**
   * Whether an effect of the plan being carried out ended otherwise than its preview said (a denial, a
   * failure, another value): the code may go another way from there, and may end before the plan did.
   */
  get deviated(): boolean {
    return this.#deviated;
  }

  /** How many calls of the journal the code has made again. */
  get matched(): number {
    return this.#matched;
  }

  /** Whether the code has made every call of the journal again. */
  get complete(): boolean {
    return this.#matched >= this.length;
  }

  /** The journal's entry `index`, for a divergence message about a call the code did not make. */
  entry(index: number): JournalEntry | undefined {
    return this.#journal.entries[index];
  }

  /** The code made call `index` (from 0, below {@link length}) with `tool` and `args`. */
  match(index: number, tool: string, args: string): ReplayAnswer {
    const entry = this.#journal.entries[index]!;
    if (entry.tool !== tool || entry.args !== args) {
      if (this.#deviated) return this.#leave(index);
      return { diverged: { index, message: describeDivergence(index, entry, tool, args) } };
    }
    this.#matched++;
    let answer: ReplayAnswer;
    const { outcome, record } = entry;
    if (entry.planned !== undefined) {
      answer = { effect: entry };
    } else if (outcome !== undefined) {
      if (this.#deliverable(index)) {
        this.#next++;
        answer = { outcome, record };
      } else {
        answer = {
          outcome: new Promise<BridgeCallOutcome>((resolve) => this.#waiting.set(index, resolve)),
          record,
        };
      }
    } else {
      answer = { live: new Promise<void>((resolve) => this.#live.push(resolve)), entry };
    }
    this.#flush();
    return answer;
  }

  /**
   * The sandbox answered the code's next `count` calls itself (from call {@link matched} on), from the
   * journal it was given (`ExecutionRequest.replayCalls`): they count as matched and delivered. Returns
   * the records of the calls whose turn has now come, in the order they ended; or, when the journal has
   * no outcome for one of them (a sandbox that says so is not replaying this journal), the index of the
   * first such call, and only the calls before it count.
   */
  answeredInSandbox(count: number): { records: CallRecord[] } | { refused: number } {
    const { entries } = this.#journal;
    let refused: number | undefined;
    for (let i = 0; i < count; i++) {
      const index = this.#matched;
      if (entries[index]?.outcome === undefined || entries[index]?.planned !== undefined) {
        refused = index;
        break;
      }
      this.#matched++;
      this.#inSandbox.add(index);
    }
    this.#flush();
    const records = this.#sandboxRecords;
    this.#sandboxRecords = [];
    return refused === undefined ? { records } : { refused };
  }

  /**
   * The live outcome of call `index`, an effect of a plan: delivered in its preview's turn (once the
   * outcomes before it were), so that calls racing it end in the order the plan saw while the outcome is
   * the preview's. Another outcome lets the code leave the plan's path (see {@link deviated}).
   */
  effectEnded(index: number, outcome: BridgeCallOutcome): Promise<BridgeCallOutcome> {
    const preview = this.#journal.entries[index]?.outcome;
    if (preview === undefined || outcomeText(preview) !== outcomeText(outcome)) this.#deviated = true;
    const delivered = new Promise<BridgeCallOutcome>((resolve) => this.#waiting.set(index, resolve));
    this.#effects.set(index, outcome);
    this.#flush();
    return delivered;
  }

  /**
   * The code asked for call `index` otherwise than the plan, after an effect deviated: the journal ends
   * before it, the outcomes still due go as they come, and this call and the later ones are live.
   */
  #leave(index: number): ReplayAnswer {
    this.#leftAt = index;
    this.#flush();
    return { offPlan: true };
  }

  /** Whether the outcome of call `index` is the next to deliver and the code has made enough calls. */
  #deliverable(index: number): boolean {
    const { order, entries } = this.#journal;
    const entry = entries[index]!;
    if (entry.planned !== undefined && !this.#effects.has(index)) return false;
    if (this.#leftAt !== undefined) return true;
    return order[this.#next] === index && this.#matched >= (entry.after ?? 0);
  }

  /** Off the plan's path: every outcome that has come goes to the code now, in any order. */
  #flushLeft(): void {
    for (const [index, resolve] of [...this.#waiting]) {
      if (!this.#deliverable(index)) continue;
      this.#waiting.delete(index);
      resolve(this.#effects.get(index) ?? this.#journal.entries[index]!.outcome!);
    }
    for (const start of this.#live.splice(0)) start();
  }

  /** Delivers every recorded outcome that may be delivered now; with the journal matched, starts the live calls. */
  #flush(): void {
    if (this.#leftAt !== undefined) {
      this.#flushLeft();
      return;
    }
    const { order, entries } = this.#journal;
    while (this.#next < order.length) {
      const index = order[this.#next]!;
      if (this.#inSandbox.has(index)) {
        // Delivered in the sandbox already; its record takes its place in the run's calls now.
        this.#next++;
        const record = entries[index]!.record;
        if (record !== undefined) this.#sandboxRecords.push(record);
        continue;
      }
      const resolve = this.#waiting.get(index);
      if (resolve === undefined || !this.#deliverable(index)) break;
      this.#waiting.delete(index);
      this.#next++;
      resolve(this.#effects.get(index) ?? entries[index]!.outcome!);
    }
    if (this.complete && this.#next >= order.length) {
      for (const start of this.#live.splice(0)) start();
    }
  }
}

/**
 * A journal as a checkpoint keeps it: one row per call instead of an object, and what a row can be
 * rebuilt from left out (a record's call id and tool, when they are the ones the call's place and tool
 * give). A journal of a thousand calls is parsed several times faster so, and is a third the size.
 */
export interface PackedJournal {
  calls: PackedCall[];
  order: number[];
  values: { now: number[]; random: number[] };
  zone?: RecordedZone;
  logCount: number;
}

/**
 * One call: its tool, its arguments, how it ended (`"o"` and the value's JSON, or `"f"` and the
 * failure's JSON; 0 when it did not end), `after`, its record (`[status, durationMs, callId?, tool?,
 * requested?]`, 0 for none), the name the code used, why it waits for a person, and (an effect of a
 * plan) the arguments its preview was given. Trailing empty
 * fields are left out.
 */
type PackedCall = [
  tool: string,
  args: string,
  outcome?: string | 0,
  after?: number | 0,
  record?: PackedRecord | 0,
  requested?: string | 0,
  pending?: PendingEntry | 0,
  planned?: { args: unknown } | 0,
];

/** A call's record: status and duration, and its id, tool and requested name where they differ. */
type PackedRecord = [
  status: CallRecord["status"],
  durationMs: number,
  callId?: string | 0,
  tool?: string | 0,
  requested?: string,
];

/** `journal` as a checkpoint keeps it; `prefix` is the run's call id prefix. */
export function packJournal(journal: JournalState, prefix: string): PackedJournal {
  const calls = journal.entries.map((entry, index): PackedCall => {
    const { tool, args, outcome, after, record, requested, pending, planned } = entry;
    let packedRecord: PackedRecord | 0 = 0;
    if (record !== undefined) {
      packedRecord = [record.status, record.durationMs];
      const callId = record.callId === callIdAt(prefix, index) ? 0 : record.callId;
      const recordTool = record.tool === tool ? 0 : record.tool;
      if (record.requested !== undefined) packedRecord.push(callId, recordTool, record.requested);
      else if (recordTool !== 0) packedRecord.push(callId, recordTool);
      else if (callId !== 0) packedRecord.push(callId);
    }
    const row: PackedCall = [
      tool,
      args,
      outcome === undefined ? 0 : outcomeText(outcome),
      after ?? 0,
      packedRecord,
      requested ?? 0,
      pending ?? 0,
      planned ?? 0,
    ];
    while (row.length > 2 && row[row.length - 1] === 0) row.pop();
    return row;
  });
  const packed: PackedJournal = {
    calls,
    order: journal.order,
    values: journal.values,
    logCount: journal.logCount,
  };
  if (journal.zone !== undefined) packed.zone = journal.zone;
  return packed;
}

/** A journal a checkpoint kept, unpacked; undefined when it is not one. */
export function unpackJournal(packed: unknown, prefix: string): JournalState | undefined {
  const journal = packed as Partial<PackedJournal> | undefined;
  if (typeof journal !== "object" || journal === null) return undefined;
  const { calls, order, values, logCount } = journal;
  if (!Array.isArray(calls) || !Array.isArray(order) || typeof logCount !== "number") return undefined;
  if (!Array.isArray(values?.now) || !Array.isArray(values.random)) return undefined;
  const zone = journal.zone === undefined ? undefined : recordedZone(journal.zone);
  if (journal.zone !== undefined && zone === undefined) return undefined;
  const entries: JournalEntry[] = [];
  for (const [index, row] of calls.entries()) {
    if (!Array.isArray(row) || typeof row[0] !== "string" || typeof row[1] !== "string") return undefined;
    const [tool, args, outcome, after, record, requested, pending, planned] = row;
    const entry: JournalEntry = { tool, args };
    if (typeof outcome === "string") {
      const parsed = outcomeOf(outcome);
      if (parsed === undefined) return undefined;
      entry.outcome = parsed;
    }
    if (typeof after === "number" && after > 0) entry.after = after;
    if (Array.isArray(record)) {
      const [status, durationMs, callId, recordTool, recordRequested] = record;
      entry.record = {
        callId: typeof callId === "string" ? callId : callIdAt(prefix, index),
        tool: typeof recordTool === "string" ? recordTool : tool,
        status,
        durationMs,
      };
      if (typeof recordRequested === "string") entry.record.requested = recordRequested;
    }
    if (typeof requested === "string") entry.requested = requested;
    if (typeof pending === "object" && pending !== null) entry.pending = pending;
    if (typeof planned === "object" && planned !== null) {
      // A preview stands in for an outcome: an effect of a plan without one is not a journal's.
      if (entry.outcome === undefined) return undefined;
      entry.planned = planned;
    }
    entries.push(entry);
  }
  const ended = (index: unknown) =>
    Number.isInteger(index) && entries[index as number]?.outcome !== undefined;
  if (!order.every(ended)) return undefined;
  return { entries, order, values, logCount, ...(zone === undefined ? {} : { zone }) };
}

/** The id of the call at `index` of a run whose calls' ids start with `prefix`. */
function callIdAt(prefix: string, index: number): string {
  return `${prefix}.${index + 1}`;
}

/** An outcome as a journal keeps it: `o` and the value's JSON, or `f` and the failure's JSON. */
export function outcomeText(outcome: BridgeCallOutcome): string {
  return outcome.ok ? `o${outcome.valueJson}` : `f${JSON.stringify(outcome.error)}`;
}

/** An outcome from {@link outcomeText}; undefined when the text is not one. */
export function outcomeOf(text: string): BridgeCallOutcome | undefined {
  if (text.startsWith("o")) return { ok: true, valueJson: text.slice(1) };
  if (!text.startsWith("f")) return undefined;
  try {
    const error = JSON.parse(text.slice(1)) as { tool?: unknown; kind?: unknown; message?: unknown };
    if (
      typeof error.tool !== "string" ||
      typeof error.kind !== "string" ||
      typeof error.message !== "string"
    ) {
      return undefined;
    }
    return { ok: false, error: { tool: error.tool, kind: error.kind, message: error.message } };
  } catch {
    return undefined;
  }
}

/**
 * The most bytes of JSON the journal a sandbox replays may take: it travels in the request that starts
 * the run, within the wire protocol's line cap (16 MB) beside the code. A larger journal is replayed by
 * the host instead, one call at a time.
 */
export const MAX_SANDBOX_REPLAY_BYTES = 8 * 1024 * 1024;

/**
 * The journal as the sandbox of a resumed run replays it (`ExecutionRequest.replayCalls`): the sandbox
 * then answers the recorded calls without a crossing each. Undefined when it would exceed
 * {@link MAX_SANDBOX_REPLAY_BYTES}.
 */
export function sandboxReplay(journal: JournalState): ReplayedCalls | undefined {
  // A plan's previews are not outcomes to replay: its effects run live, so the host answers every call.
  if (journal.entries.some((entry) => entry.planned !== undefined)) return undefined;
  const replay: ReplayedCalls = { tools: [], args: [], outcomes: [], after: [], order: journal.order };
  // A bound as it goes (JSON escapes a character into at most 6 bytes), the exact size only near the cap.
  let chars = 0;
  for (const { tool, args, outcome, after } of journal.entries) {
    replay.tools.push(tool);
    replay.args.push(args);
    replay.outcomes.push(outcome ?? null);
    replay.after.push(after ?? 0);
    chars += tool.length + args.length + outcomeChars(outcome) + 100;
  }
  if (6 * chars <= MAX_SANDBOX_REPLAY_BYTES) return replay;
  return Buffer.byteLength(JSON.stringify(replay)) <= MAX_SANDBOX_REPLAY_BYTES ? replay : undefined;
}

function outcomeChars(outcome: BridgeCallOutcome | undefined): number {
  if (outcome === undefined) return 0;
  if (outcome.ok) return outcome.valueJson.length;
  return outcome.error.tool.length + outcome.error.kind.length + outcome.error.message.length;
}

function describeDivergence(index: number, entry: JournalEntry, tool: string, args: string): string {
  const what = entry.tool !== tool ? "another tool" : "other arguments";
  return `call ${index + 1} differs from the journal (${what}): the code called ${tool}(${quote(args)}) where the paused run called ${entry.tool}(${quote(entry.args)})`;
}

function quote(args: string): string {
  return args.length <= QUOTED_ARGS_CHARS
    ? args
    : `${args.slice(0, QUOTED_ARGS_CHARS)}… [${args.length - QUOTED_ARGS_CHARS} more characters]`;
}
