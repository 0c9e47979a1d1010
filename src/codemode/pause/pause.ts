/**
 * Pausing and resuming a run: the checkpoint a paused run is sealed into (its code, its journal, its
 * console output and the time it used), the calls it waits on, and the checks a resume passes before
 * anything runs: the checkpoint's seal, and decisions and answers that fit the calls that wait.
 */

import { createHash } from "node:crypto";
import { messageOf, UserError } from "../../../common/errors.js";
import type { LogEntry } from "../../../sandbox/contract/index.js";
import type { PersonPolicy } from "../../dispatch/types.js";
import type { PendingCall, PlannedEffect } from "../result.js";
import {
  type CheckpointBinding,
  type CheckpointBody,
  CheckpointRefused,
  openCheckpoint,
  sealCheckpoint,
} from "./checkpoint.js";
import { type CheckpointStore, MIN_STORED_VALUE_CHARS, memoryCheckpointStore } from "./checkpoint-store.js";
import {
  type JournalEntry,
  type JournalState,
  type PackedJournal,
  packJournal,
  unpackJournal,
} from "./journal.js";

/** How a code mode pauses: its key, how long checkpoints last, where large values go and claims are made. */
export interface PauseSettings {
  key: Buffer;
  ttlMs: number;
  store: CheckpointStore | undefined;
  /** Where a resume claims its checkpoint: `store`, else {@link PROCESS_CLAIMS}. */
  claims: CheckpointClaims;
  /** Told of each checkpoint before its run resumes; `false` (or a rejection) refuses it. */
  onCheckpointUsed: ((checkpoint: CheckpointInfo) => unknown) | undefined;
}

/** The part of a {@link CheckpointStore} that claims checkpoints for their one resume. */
export type CheckpointClaims = Pick<CheckpointStore, "claim" | "release">;

/**
 * Where code modes without a checkpoint store claim checkpoints: one set for the whole process, so that
 * a second resume of a checkpoint is refused by any code mode of this process, not only by the one that
 * resumed it first. (Checkpoint ids are random UUIDs: two checkpoints never share one.)
 */
export const PROCESS_CLAIMS: CheckpointClaims = memoryCheckpointStore();

/** What a host learns about a checkpoint being resumed (see `PauseOptions.onCheckpointUsed`). */
export interface CheckpointInfo {
  /** Unique per checkpoint. */
  id: string;
  /** When it was made and when it expires, in ms since the epoch. */
  created: number;
  expires: number;
  /** Whether this resume forks the paused run on purpose (`resume(…, { fork: true })`): it claims nothing. */
  fork?: boolean;
}

/** Code mode's part of a checkpoint: everything a paused run needs to go on. */
export interface PausedRun {
  /** The model's code, as given (TypeScript). */
  code: string;
  /** The prefix of its calls' ids: a resumed run's calls keep their ids. */
  prefix: string;
  journal: JournalState;
  /** What the code wrote so far. */
  logs: LogEntry[];
  /** Milliseconds the run has used so far: a resumed run gets what is left of `timeoutMs`. */
  usedMs: number;
  /** A durable run's id: its journal, not the checkpoint, is what a resume continues (see `cm.recover`). */
  runId?: string;
  /** Entries whose successful value lives in the store: entry index → SHA-256 of the value (base64url). */
  stored?: Record<string, string>;
  /**
   * A plan (`cm.plan`), or a run that carries one out: its resume runs an effect only where a person
   * approved that very call, and pauses for any other (see docs/effects.md).
   */
  plan?: true;
}

/** A paused run as its checkpoint keeps it: the journal packed (see `packJournal`). */
type SealedRun = Omit<PausedRun, "journal"> & { journal: PackedJournal };

/** A person's decision on a call that waits for approval: approved or not, and why not. */
export type Decision = boolean | { approved: boolean; reason?: string };

/** What `CodeMode.resume` is given besides the checkpoint. */
export interface ResumeDecisions {
  /** Decisions on the pending approvals, by pending call id. */
  decisions?: Readonly<Record<string, Decision>>;
  /** Answers to the pending questions, by pending call id. */
  answers?: Readonly<Record<string, string>>;
}

/** The calls of a paused run that wait for a person, with their ids. */
export function pendingCalls(run: Pick<PausedRun, "prefix" | "journal">): PendingCall[] {
  const pending: PendingCall[] = [];
  run.journal.entries.forEach((entry, index) => {
    if (entry.pending === undefined) return;
    pending.push({
      id: callId(run.prefix, index),
      tool: entry.tool,
      args: entry.pending.args,
      kind: entry.pending.kind,
      ...(entry.pending.flow ? { flow: entry.pending.flow } : {}),
    });
  });
  return pending;
}

/** The effects a plan lists (its calls that gave a preview and did not run), in the order they were made. */
export function plannedEffects(run: Pick<PausedRun, "prefix" | "journal">): PlannedEffect[] {
  const effects: PlannedEffect[] = [];
  run.journal.entries.forEach((entry, index) => {
    if (entry.planned === undefined) return;
    effects.push({ id: callId(run.prefix, index), tool: entry.tool, args: entry.planned.args });
  });
  return effects;
}

/**
 * `decisions` as a map by call id: `"approve-all"` approves every effect the checkpoint lists and every
 * call that waits for approval in it (as the sealed checkpoint holds them).
 */
export function decisionsFor(
  run: Pick<PausedRun, "prefix" | "journal">,
  decisions: Readonly<Record<string, Decision>> | "approve-all" | undefined,
): Readonly<Record<string, Decision>> | undefined {
  if (decisions !== "approve-all") return decisions;
  const ids = [
    ...plannedEffects(run).map((effect) => effect.id),
    ...pendingCalls(run)
      .filter((call) => call.kind === "approval")
      .map((call) => call.id),
  ];
  return Object.fromEntries(ids.map((id) => [id, true]));
}

/** The id of call `index` (from 0) of a run whose call ids start with `prefix`. */
function callId(prefix: string, index: number): string {
  return `${prefix}.${index + 1}`;
}

/**
 * Seals a paused run. With a store, successful values of at least {@link MIN_STORED_VALUE_CHARS}
 * characters go there and the checkpoint keeps their digests. Throws a RangeError when the checkpoint
 * would be over its cap.
 */
export async function sealPausedRun(
  settings: PauseSettings,
  binding: CheckpointBinding,
  run: PausedRun,
): Promise<{ text: string; body: CheckpointBody<PausedRun> }> {
  let state = run;
  const { store } = settings;
  if (store) {
    const stored: Record<string, string> = {};
    const entries = await Promise.all(
      run.journal.entries.map(async (entry, index): Promise<JournalEntry> => {
        const outcome = entry.outcome;
        if (outcome?.ok !== true || outcome.valueJson.length < MIN_STORED_VALUE_CHARS) return entry;
        const key = digestText(outcome.valueJson);
        await store.put(key, outcome.valueJson);
        stored[index] = key;
        return { ...entry, outcome: { ok: true, valueJson: "" } };
      }),
    );
    state = { ...run, journal: { ...run.journal, entries }, stored };
  }
  const sealed: SealedRun = { ...state, journal: packJournal(state.journal, state.prefix) };
  const { text, body } = sealCheckpoint({ ...binding, state: sealed }, settings.key, {
    ttlMs: settings.ttlMs,
  });
  return { text, body: { ...body, state } };
}

/**
 * Opens a checkpoint (seal, expiry, binding) and reads the paused run in it, journal unpacked. Throws
 * {@link CheckpointRefused} when it is not a paused run, or its code is not the one it was sealed with.
 */
function openSealedRun(
  settings: PauseSettings,
  text: unknown,
  expected: Omit<CheckpointBinding, "code">,
): CheckpointBody<PausedRun> {
  const body = openCheckpoint<SealedRun>(text, settings.key, expected);
  const sealed = body.state;
  const journal = isSealedRun(sealed) ? unpackJournal(sealed.journal, sealed.prefix) : undefined;
  // Only a plan has effects that did not run (their previews stand in): no other run replays one.
  const plannedOutsidePlan =
    journal !== undefined && !sealed.plan && journal.entries.some((entry) => entry.planned !== undefined);
  if (journal === undefined || plannedOutsidePlan || body.code !== digestOfCode(sealed.code)) {
    throw new CheckpointRefused("malformed", "This checkpoint's content is not a paused run.");
  }
  return { ...body, state: { ...sealed, journal } };
}

/** What a paused run waits for, read from its sealed checkpoint (see `CodeMode.inspect`). */
export interface CheckpointSummary extends CheckpointInfo {
  pending: PendingCall[];
  /** For a plan: the effects it lists, which a person approves or denies (see `cm.plan`). */
  effects?: PlannedEffect[];
}

/**
 * Reads what a checkpoint waits for, after the same checks as a resume (seal, expiry, tools, limits):
 * what a person approves is what the sealed checkpoint holds, never what a store or a client says.
 */
export function inspectPausedRun(
  settings: PauseSettings,
  text: unknown,
  expected: Omit<CheckpointBinding, "code">,
): CheckpointSummary {
  const body = openSealedRun(settings, text, expected);
  const summary: CheckpointSummary = {
    id: body.id,
    created: body.created,
    expires: body.expires,
    pending: pendingCalls(body.state),
  };
  if (body.state.plan) summary.effects = plannedEffects(body.state);
  return summary;
}

/**
 * Opens a checkpoint for a resume: its seal, expiry and binding (tools and limits; the code is the
 * checkpoint's own), then the values kept in the store. Throws {@link CheckpointRefused} saying what
 * is wrong; nothing has run then.
 */
export async function openPausedRun(
  settings: PauseSettings,
  text: unknown,
  expected: Omit<CheckpointBinding, "code">,
): Promise<{ body: CheckpointBody<PausedRun>; run: PausedRun }> {
  const body = openSealedRun(settings, text, expected);
  const run = body.state;
  const stored = run.stored ?? {};
  const keys = Object.entries(stored);
  if (keys.length > 0 && settings.store === undefined) {
    throw new CheckpointRefused(
      "store",
      "This checkpoint keeps values in a checkpoint store, and this code mode has none: give it (pause.store) the store the run paused with.",
    );
  }
  const entries = [...run.journal.entries];
  for (const [index, key] of keys) {
    const value = await settings.store!.get(key);
    if (value === undefined || digestText(value) !== key) {
      throw new CheckpointRefused(
        "store",
        `A value this checkpoint keeps in its checkpoint store is ${value === undefined ? "missing" : "not the one it recorded"} (key ${key}).`,
      );
    }
    const entry = entries[Number(index)];
    if (entry?.outcome?.ok === true)
      entries[Number(index)] = { ...entry, outcome: { ok: true, valueJson: value } };
  }
  const { stored: _stored, ...rest } = run;
  return { body, run: { ...rest, journal: { ...run.journal, entries } } };
}

/** The refusal of a second resume: what happened, and how to run a paused run again on purpose. */
function resumedAlready(id: string): string {
  return `Checkpoint ${id} was resumed already (or is being resumed now): a checkpoint resumes once, because a second resume would run its decided calls again. Nothing ran. To run the paused run again on purpose, as a fork, resume it with { fork: true }.`;
}

/**
 * Claims the checkpoint for this resume in `claims`, after every other check and before anything runs:
 * resolves with the function that gives the claim back. Rejects with {@link CheckpointRefused} `reused`
 * when it was claimed before (resumed already, or being resumed), and `store` when the store failed or
 * answered something other than a boolean.
 */
export async function claimCheckpoint(
  claims: CheckpointClaims,
  body: Pick<CheckpointBody, "id" | "expires">,
): Promise<() => Promise<void>> {
  let won: unknown;
  try {
    won = await claims.claim(body.id, body.expires);
  } catch (error) {
    throw new CheckpointRefused(
      "store",
      `The checkpoint store could not claim checkpoint ${body.id} for this resume: ${messageOf(error)}. Nothing ran.`,
    );
  }
  if (won === false) throw new CheckpointRefused("reused", resumedAlready(body.id));
  if (won !== true) {
    throw new CheckpointRefused(
      "store",
      `The checkpoint store's claim(id, expires) must give true (claimed now) or false (claimed before); it gave ${typeof won}. Nothing ran.`,
    );
  }
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    await claims.release(body.id);
  };
}

/**
 * Asks the host's `onCheckpointUsed` whether the checkpoint may be resumed, last before the run starts:
 * `false` or a rejection refuses it ({@link CheckpointRefused} `reused`).
 */
export async function confirmUse(
  settings: PauseSettings,
  body: CheckpointBody<PausedRun>,
  fork: boolean,
): Promise<void> {
  if (!settings.onCheckpointUsed) return;
  let verdict: unknown;
  try {
    verdict = await settings.onCheckpointUsed({
      id: body.id,
      created: body.created,
      expires: body.expires,
      ...(fork ? { fork } : {}),
    });
  } catch (error) {
    throw new CheckpointRefused(
      "reused",
      `onCheckpointUsed refused checkpoint ${body.id}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (verdict === false) {
    throw new CheckpointRefused(
      "reused",
      `onCheckpointUsed refused checkpoint ${body.id} (for example, it was resumed already).`,
    );
  }
}

/**
 * How each call that waits for a person is met on resume: by index of the journal. Decisions and
 * answers must name calls that wait, of the right kind; a call with neither waits again (the run may
 * pause again). Throws a `UserError` that says what was wrong.
 */
export function peopleFor(run: PausedRun, given: ResumeDecisions): Map<number, PersonPolicy> {
  // A plan's effects wait for a decision as calls that wait for approval do.
  const effects = plannedEffects(run).map((effect): PendingCall => ({ ...effect, kind: "approval" }));
  const pending = [...effects, ...pendingCalls(run)];
  const byId = new Map(pending.map((call) => [call.id, call]));
  const people = new Map<number, PersonPolicy>();
  const waiting = pending.map((call) => `${call.id} (${call.kind} of ${call.tool})`).join(", ");
  const check = (id: string, kind: PendingCall["kind"], what: string) => {
    const call = byId.get(id);
    if (call === undefined) {
      throw new UserError(
        `resume: ${what} names call ${JSON.stringify(id)}, which does not wait in this checkpoint. The calls that wait: ${waiting}.`,
      );
    }
    if (call.kind !== kind) {
      throw new UserError(
        `resume: call ${id} waits for ${call.kind === "approval" ? "a decision (decisions)" : "an answer (answers)"}, not ${what}.`,
      );
    }
    return indexOf(run.prefix, id);
  };
  for (const [id, decision] of Object.entries(given.decisions ?? {})) {
    const index = check(id, "approval", "a decision");
    if (typeof decision === "boolean") people.set(index, { decision: { approved: decision } });
    else if (typeof decision?.approved === "boolean") {
      const reason = typeof decision.reason === "string" ? decision.reason : undefined;
      people.set(index, { decision: { approved: decision.approved, ...(reason ? { reason } : {}) } });
    } else {
      throw new UserError(
        `resume: the decision on ${id} must be true, false or { approved: boolean, reason?: string }.`,
      );
    }
  }
  for (const [id, answer] of Object.entries(given.answers ?? {})) {
    const index = check(id, "question", "an answer");
    if (typeof answer !== "string") throw new UserError(`resume: the answer to ${id} must be a string.`);
    people.set(index, { answer });
  }
  return people;
}

/** The digest of the model's code a checkpoint is bound to. */
export function digestOfCode(code: string): string {
  return digestText(code);
}

function digestText(text: string): string {
  return createHash("sha256").update(text).digest("base64url");
}

function indexOf(prefix: string, id: string): number {
  return Number(id.slice(prefix.length + 1)) - 1;
}

function isSealedRun(value: unknown): value is SealedRun {
  const run = value as SealedRun | undefined;
  return (
    typeof run?.code === "string" &&
    typeof run.prefix === "string" &&
    typeof run.usedMs === "number" &&
    Array.isArray(run.logs) &&
    (run.plan === undefined || run.plan === true)
  );
}
