/**
 * A durable run read back from its store for a recovery: every record's seal checked in order, the
 * header's binding compared with this code mode's, and the journal rebuilt as a pausing run's
 * JournalState (which Replay answers from), with what the records say about each call that has no
 * outcome: it waits for a person, it never ran, or it may have run (its outcome is unknown).
 */

import type { CallRecordStatus } from "../../../common/failures.js";
import type { PersonPolicy } from "../../dispatch/types.js";
import type { CheckpointBinding } from "../pause/checkpoint.js";
import { type JournalEntry, type JournalState, outcomeOf } from "../pause/journal.js";
import {
  JOURNAL_FORMAT,
  journalKeyId,
  openRecord,
  peekHeader,
  type RunHeader,
  type RunRecord,
  type SealChain,
} from "./records.js";
import type { StoredRun } from "./run-journal.js";

/** Why a run cannot be recovered; nothing of it ran. */
export type RecoveryProblem =
  /** The store has no run of that id. */
  | "missing"
  /** A record is not one this cordon reads. */
  | "malformed"
  /** A record was changed, moved, or left out, or comes from another run's journal. */
  | "altered"
  /** Its records were sealed with another key. */
  | "another-key"
  /** The store gave another run's journal for this id. */
  | "another-run"
  /** It was made for other tools or limits. */
  | "tools"
  | "limits"
  /** Its code read the clock or Math.random more often than a journal records: it cannot be replayed. */
  | "not-replayable"
  /** Its lease has not run out: its process may be running it. */
  | "live"
  /** Another recoverer claimed it first. */
  | "claimed";

/** A durable run that cannot be recovered, and why (see {@link RecoveryProblem}); nothing ran. */
export class RecoveryRefused extends Error {
  override name = "RecoveryRefused";
  readonly problem: RecoveryProblem;

  constructor(problem: RecoveryProblem, message: string) {
    super(message);
    this.problem = problem;
  }
}

/** A run as its journal tells it. */
export interface JournaledRun {
  header: RunHeader;
  /** The journal as a pausing run keeps it: Replay answers the calls that have an outcome. */
  state: JournalState;
  /** Calls that may have run and have no outcome: the process died while they ran. */
  unknown: number[];
  /** Calls that went live with a person's decision (a `go` record's): a rerun applies it again. */
  decided: Map<number, PersonPolicy>;
  /** Where the next record goes. */
  chain: SealChain;
  /**
   * By call index: the revert of its effect that began (`"started"`) or ended (how), for a run that was
   * reverting its effects when it stopped.
   */
  reverts: Map<number, "started" | { status: CallRecordStatus; why?: string }>;
  /** How the run ended, as its end record says (a run that ended is replayed for its result). */
  end?: { status: string; error?: { name: string; message: string } };
}

/** What the records say about a call without an outcome. */
type CallState = "may-have-run" | "waits" | "did-not-run";

/**
 * Reads and checks a stored run: throws {@link RecoveryRefused} when a record does not verify, the
 * header is another run's or was sealed with another key, or the run was made for other tools or
 * limits. Nothing has run then.
 */
export function readJournaledRun(
  stored: StoredRun,
  key: Buffer,
  runId: string,
  binding: Omit<CheckpointBinding, "code">,
): JournaledRun {
  const { records } = stored;
  const peeked = peekHeader(records[0]);
  if (peeked === undefined) {
    throw new RecoveryRefused("malformed", `Run ${runId}'s journal does not start with a cordon run header.`);
  }
  if (peeked.runId !== runId) {
    throw new RecoveryRefused(
      "another-run",
      `The journal stored as run ${runId} is the journal of another run (${String(peeked.runId).slice(0, 200)}): it was not used.`,
    );
  }
  if (peeked.format !== JOURNAL_FORMAT) {
    throw new RecoveryRefused(
      "malformed",
      `Run ${runId}'s journal was written by a cordon of another journal format (${String(peeked.format).slice(0, 20)}; this one reads ${JOURNAL_FORMAT}): recover it with the cordon that ran it.`,
    );
  }
  if (peeked.keyId !== journalKeyId(key)) {
    throw new RecoveryRefused(
      "another-key",
      `Run ${runId}'s journal was sealed with another key: recover it where the pause.key it ran with is set.`,
    );
  }
  const chain: SealChain = { seq: 0, mac: "" };
  const state: JournalState = { entries: [], order: [], values: { now: [], random: [] }, logCount: 0 };
  const calls: CallState[] = [];
  const decided = new Map<number, PersonPolicy>();
  const reverts: JournaledRun["reverts"] = new Map();
  let header: RunHeader | undefined;
  let end: JournaledRun["end"];
  for (const record of records) {
    const opened = openRecord(key, runId, chain.mac, record, chain.seq);
    if ("problem" in opened) {
      throw new RecoveryRefused(
        opened.problem,
        opened.problem === "altered"
          ? `Run ${runId}'s journal was altered at record ${chain.seq} (changed, moved, left out, or another run's): it cannot be trusted, and nothing ran.`
          : `Run ${runId}'s record ${chain.seq} cannot be read.`,
      );
    }
    const seq = chain.seq;
    chain.seq++;
    chain.mac = opened.mac;
    for (const body of opened.records) {
      if (header === undefined) {
        if (body.t !== "header" || body.format !== JOURNAL_FORMAT) {
          throw new RecoveryRefused("malformed", `Run ${runId}'s header is not one this cordon reads.`);
        }
        header = body;
        continue;
      }
      if (body.t === "header") throw new RecoveryRefused("malformed", `Run ${runId} has a second header.`);
      if (end !== undefined) {
        throw new RecoveryRefused("malformed", `Run ${runId} has a record after its end.`);
      }
      if (body.t === "end") {
        if (typeof body.status !== "string") {
          throw new RecoveryRefused("malformed", `Run ${runId}'s end record is not one this cordon reads.`);
        }
        const { status, error: name, message = "" } = body;
        end = { status, ...(typeof name === "string" ? { error: { name, message: String(message) } } : {}) };
      }
      const fits =
        body.t === "revert" || body.t === "reverted"
          ? applyRevert(body, state, reverts)
          : applyRecord(body, state, calls, decided);
      if (fits === "overflow") {
        throw new RecoveryRefused(
          "not-replayable",
          `Run ${runId}'s code read the clock or Math.random more often than a journal records: it cannot be replayed exactly, so it is not recovered.`,
        );
      }
      if (!fits) {
        throw new RecoveryRefused(
          "malformed",
          `Run ${runId}'s record ${seq} does not fit the records before it.`,
        );
      }
    }
  }
  if (header === undefined) throw new RecoveryRefused("malformed", `Run ${runId} has no records.`);
  for (const what of ["tools", "limits"] as const) {
    if (header[what] !== binding[what]) {
      throw new RecoveryRefused(
        what,
        `Run ${runId} was made for other ${what === "tools" ? "tools (their names or schemas changed since)" : "limits (a limit changed since)"}: it cannot be recovered here.`,
      );
    }
  }
  const unknown: number[] = [];
  calls.forEach((call, index) => {
    if (call === "may-have-run" && state.entries[index]?.outcome === undefined) unknown.push(index);
  });
  return { header, state, unknown, decided, chain, reverts, ...(end ? { end } : {}) };
}

/** Applies a record of a revert: false when it does not fit (no such effect, an end before its start). */
function applyRevert(
  body: Extract<RunRecord, { t: "revert" | "reverted" }>,
  state: JournalState,
  reverts: JournaledRun["reverts"],
): boolean {
  if (state.entries[body.i]?.outcome?.ok !== true) return false;
  if (body.t === "revert") {
    reverts.set(body.i, "started");
    return true;
  }
  if (reverts.get(body.i) !== "started" || typeof body.status !== "string") return false;
  reverts.set(body.i, { status: body.status, ...(typeof body.why === "string" ? { why: body.why } : {}) });
  return true;
}

/** Applies one record to the rebuilt journal: false when it does not fit, "overflow" for too many values. */
function applyRecord(
  body: Exclude<RunRecord, RunHeader>,
  state: JournalState,
  calls: CallState[],
  decided: Map<number, PersonPolicy>,
): boolean | "overflow" {
  const { entries } = state;
  if (body.t === "values") {
    if (body.overflow === true) return "overflow";
    if (Array.isArray(body.now)) state.values.now.push(...body.now);
    if (Array.isArray(body.random)) state.values.random.push(...body.random);
    if (body.zone !== undefined) state.zone ??= body.zone;
    return true;
  }
  if (body.t === "paused" || body.t === "end") return true;
  if (body.t === "start") {
    if (body.i !== entries.length || typeof body.tool !== "string" || typeof body.args !== "string")
      return false;
    const entry: JournalEntry = { tool: body.tool, args: body.args };
    if (typeof body.requested === "string") entry.requested = body.requested;
    entries.push(entry);
    calls.push("may-have-run");
    return true;
  }
  const entry = entries[body.i];
  if (entry === undefined || entry.outcome !== undefined) return false;
  switch (body.t) {
    case "outcome": {
      const outcome = outcomeOf(body.outcome);
      if (outcome === undefined || !Number.isInteger(body.after)) return false;
      delete entry.pending;
      entry.outcome = outcome;
      if (body.record !== undefined) entry.record = body.record;
      entry.after = body.after;
      state.order.push(body.i);
      return true;
    }
    case "pending":
      entry.pending = { kind: body.kind, args: body.args, ...(body.flow ? { flow: body.flow } : {}) };
      calls[body.i] = "waits";
      return true;
    case "held":
      calls[body.i] = "did-not-run";
      return true;
    case "go":
      calls[body.i] = "may-have-run";
      delete entry.pending;
      if (body.person === undefined) decided.delete(body.i);
      else decided.set(body.i, body.person);
      return true;
    default:
      return false;
  }
}
