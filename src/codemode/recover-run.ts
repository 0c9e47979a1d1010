/**
 * `cm.recover(runId)`: a durable run whose process died (or that paused) goes on here. Its journal is
 * read and every seal checked, its lease claimed (one recoverer wins), and its code runs again: the
 * journaled calls are replayed, and the run goes on live, writing to the same journal. A call that was
 * in flight when the process died runs again only when its tool is idempotent; any other waits for a
 * person (`unknown-outcome`), and nothing runs until one has decided. A run that ended answers with its
 * result, replayed from its journal with no call going live.
 */

import { randomUUID } from "node:crypto";
import { UserError } from "../../common/errors.js";
import type { BridgeCallOutcome } from "../../sandbox/contract/index.js";
import { type JournaledRun, RecoveryRefused, readJournaledRun } from "./durable/journaled-run.js";
import { idempotencyKeyOf } from "./durable/recorder.js";
import { type RunRecord, sealBatches } from "./durable/records.js";
import type { IncompleteRun, RunJournal } from "./durable/run-journal.js";
import type { JournalOptions } from "./options.js";
import { type JournalState, outcomeText } from "./pause/journal.js";
import { type Decision, type PausedRun, pendingCalls, peopleFor } from "./pause/pause.js";
import type { CodeRunResult, PendingCall } from "./result.js";
import type { KnownRevert } from "./revert.js";
import { type CodeRunOptions, type DurableSetup, REPLAY_DIVERGED, type RunSetup, runCode } from "./run.js";

/** How a person settles a call whose outcome is unknown (a `pending` item of kind `unknown-outcome`). */
export type OutcomeDecision =
  /** Run it again (with the same idempotency key). */
  | { rerun: true }
  /** Treat it as failed: the code's call rejects with this message (kind `error`). */
  | { failed: string }
  /** Treat it as done, with this result (JSON): the code's call resolves with it. */
  | { result: unknown };

/** What {@link recoverRun} is given besides the run id. */
export interface RecoverOptions {
  /**
   * By pending call id: a decision on a call that waits for approval (as `cm.resume` takes), or how to
   * settle a call whose outcome is unknown ({@link OutcomeDecision}).
   */
  decisions?: Readonly<Record<string, Decision | OutcomeDecision>>;
  /** Answers to the pending questions, by pending call id. */
  answers?: Readonly<Record<string, string>>;
  /** How a call that needs a person is met from here on; default the code mode's `approval`. */
  approval?: "wait" | "pause";
  /** Cancels the recovered run. */
  signal?: AbortSignal;
  /** The store the run was journaled to, when it was the run's own (`cm.run(code, { journal })`). */
  journal?: RunJournal | JournalOptions;
}

/** Recovers run `runId` (see the file's comment). */
export async function recoverRun(
  setup: RunSetup,
  runId: unknown,
  options: RecoverOptions = {},
): Promise<CodeRunResult> {
  const started = performance.now();
  const durable = setup.durable;
  if (!durable) throw new UserError("recover needs the code mode's journal: codeMode({ journal }).");
  if (typeof runId !== "string" || runId.length === 0) {
    throw new UserError("recover takes the run's id (a string), as onRunStart or the run's result gave it.");
  }
  const stored = await durable.store.read(runId);
  if (stored === undefined) {
    throw new RecoveryRefused("missing", `The journal has no run ${JSON.stringify(runId)}.`);
  }
  const run = readJournaledRun(stored, durable.key, runId, durable.binding);
  if (stored.ended) return replayEnded(setup, runId, run, options);
  const now = Date.now();
  if (stored.lease.until > now) {
    throw new RecoveryRefused(
      "live",
      `Run ${runId}'s lease runs until ${new Date(stored.lease.until).toISOString()}: its process may still be running it. Recover it once the lease has run out (cm.incompleteRuns() lists those).`,
    );
  }
  const given = splitDecisions(setup, run, options);
  const waiting = [
    ...given.unsettled,
    ...pendingCalls(pausedRunOf(run)).filter((call) => !given.met.has(call.id)),
  ];
  // Nothing it can do without a person: the run stays as it is, and says what it waits for.
  if (given.unsettled.length > 0 || (waiting.length > 0 && given.met.size === 0)) {
    return {
      status: "paused",
      value: undefined,
      logs: [],
      calls: [],
      durationMs: Math.round(performance.now() - started),
      runId,
      pending: waiting,
    };
  }
  const owner = randomUUID();
  if (!(await durable.store.claim(runId, { owner, until: now + durable.leaseMs }, now))) {
    throw new RecoveryRefused(
      "claimed",
      `Run ${runId} was claimed by another recoverer first: it goes on there.`,
    );
  }
  await settle(durable, runId, run, given.settled, owner);
  await settleReverts(durable, runId, run, given.reverts, owner);
  const paused = pausedRunOf(run);
  const people = peopleFor(paused, {
    decisions: given.approvals,
    ...(options.answers ? { answers: options.answers } : {}),
  });
  for (const [index, person] of run.decided) if (!people.has(index)) people.set(index, person);
  const runOptions: CodeRunOptions = {
    approval: options.approval ?? setup.approval,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(run.header.onFailure === "revert" ? { onFailure: "revert" } : {}),
  };
  return runCode(setup, run.header.code, runOptions, {
    run: paused,
    people,
    recovered: { runId, chain: run.chain, owner },
    reverts: given.reverts,
  });
}

/**
 * The result of a run that ended (its process may have died before the result reached anyone): its code
 * runs again with every call answered from the journal. Nothing goes live and nothing is written: a
 * replay that wants a call the journal has no outcome for is stopped as diverged. When the replay ends
 * otherwise than the run did, a failed run answers with the failure its end record keeps; a run that
 * ended well cannot, as its value is not kept, and answers `ReplayDiverged`. Decisions are not needed:
 * whatever waited was decided before the run ended.
 */
async function replayEnded(
  setup: RunSetup,
  runId: string,
  run: JournaledRun,
  options: RecoverOptions,
): Promise<CodeRunResult> {
  const result = await runCode(
    setup,
    run.header.code,
    {
      runId,
      approval: "wait",
      ...(options.signal ? { signal: options.signal } : {}),
      ...(run.header.onFailure === "revert" ? { onFailure: "revert" } : {}),
    },
    { run: pausedRunOf(run), people: new Map(), replayOnly: true, reverts: knownReverts(run) },
  );
  const ended = run.end;
  if (ended === undefined) return result;
  if (result.status === ended.status && result.error?.name === ended.error?.name) return result;
  const { checkpoint: _c, checkpointId: _i, pending: _p, ...rest } = result;
  if (ended.error !== undefined && ended.status !== "ok") {
    return { ...rest, status: ended.status as CodeRunResult["status"], value: undefined, error: ended.error };
  }
  if (result.error?.name === REPLAY_DIVERGED) return result;
  const how = (status: string, error: string | undefined) => `${status}${error ? ` (${error})` : ""}`;
  return {
    ...rest,
    status: "error",
    value: undefined,
    error: {
      name: REPLAY_DIVERGED,
      message: `Run ${runId} ended ${ended.status}, but replayed from its journal its code ended ${how(result.status, result.error?.name)}: its code or what it depends on is not deterministic. No call ran again.`,
    },
  };
}

/** What an ended run's journal says of its reverts: how each ended. */
function knownReverts(run: JournaledRun): Map<number, KnownRevert> {
  const known = new Map<number, KnownRevert>();
  for (const [index, revert] of run.reverts) if (revert !== "started") known.set(index, revert);
  return known;
}

/** The runs whose lease ran out and that did not end: their process died, or they paused. */
export function incompleteRuns(setup: RunSetup, limit?: number): Promise<IncompleteRun[]> {
  const durable = setup.durable;
  if (!durable) throw new UserError("incompleteRuns needs the code mode's journal: codeMode({ journal }).");
  return durable.store.incomplete(Date.now(), limit);
}

/** The decisions, sorted: settled unknown outcomes, approvals, and the unknown outcomes nobody settled. */
function splitDecisions(setup: RunSetup, run: JournaledRun, options: RecoverOptions) {
  const prefix = run.header.prefix;
  const idOf = (index: number) => `${prefix}.${index + 1}`;
  const unknownById = new Map(run.unknown.map((index) => [idOf(index), index]));
  const settled = new Map<number, BridgeCallOutcome | "rerun">();
  const approvals: Record<string, Decision> = {};
  const met = new Set<string>(Object.keys(options.answers ?? {}));
  for (const [id, decision] of Object.entries(options.decisions ?? {})) {
    if (isUnknownRevert(run, id)) continue;
    const index = unknownById.get(id);
    if (index === undefined) {
      approvals[id] = decision as Decision;
      met.add(id);
      continue;
    }
    settled.set(index, outcomeDecided(id, run.state.entries[index]!.tool, decision));
  }
  const unsettled: PendingCall[] = [];
  const reverts = new Map<number, KnownRevert>();
  for (const [index, revert] of run.reverts) {
    if (revert !== "started") {
      reverts.set(index, revert);
      continue;
    }
    const entry = run.state.entries[index]!;
    const id = `${idOf(index)}.revert`;
    const decision = options.decisions?.[id];
    if (decision !== undefined) {
      met.add(id);
      reverts.set(index, revertDecided(id, decision));
    } else if (setup.dispatcher.toolset.get(entry.tool)?.options.idempotent === true) {
      reverts.set(index, "rerun");
    } else {
      unsettled.push({
        id,
        tool: `${entry.tool}.revert`,
        args: parsedArgs(entry.args),
        kind: "unknown-outcome",
        idempotencyKey: `${idempotencyKeyOf(run.header.runId, index)}.revert`,
      });
    }
  }
  for (const index of run.unknown) {
    const entry = run.state.entries[index]!;
    if (settled.has(index)) continue;
    if (setup.dispatcher.toolset.get(entry.tool)?.options.idempotent === true) {
      settled.set(index, "rerun");
      continue;
    }
    unsettled.push({
      id: idOf(index),
      tool: entry.tool,
      args: parsedArgs(entry.args),
      kind: "unknown-outcome",
      idempotencyKey: idempotencyKeyOf(run.header.runId, index),
    });
  }
  return { settled, approvals, unsettled, met, reverts };
}

/** Whether `id` is the id of a revert whose outcome is unknown (`<call id>.revert`). */
function isUnknownRevert(run: JournaledRun, id: string): boolean {
  const prefix = `${run.header.prefix}.`;
  if (!id.startsWith(prefix) || !id.endsWith(".revert")) return false;
  const index = Number(id.slice(prefix.length, -".revert".length)) - 1;
  return run.reverts.get(index) === "started";
}

/** A person's decision on a revert whose outcome is unknown: run it again, or how it ended. */
function revertDecided(id: string, decision: unknown): KnownRevert {
  const outcome = outcomeDecided(id, "", decision);
  if (outcome === "rerun") return "rerun";
  return outcome.ok ? { status: "ok" } : { status: "error", why: outcome.error.message };
}

/** Writes the ends a person gave for reverts whose outcome was unknown, before anything runs. */
async function settleReverts(
  durable: DurableSetup,
  runId: string,
  run: JournaledRun,
  reverts: Map<number, KnownRevert>,
  owner: string,
): Promise<void> {
  const records: string[] = [];
  for (const [index, known] of reverts) {
    if (run.reverts.get(index) !== "started" || typeof known === "string") continue;
    const { status, why } = known;
    records.push(
      JSON.stringify({
        t: "reverted",
        i: index,
        status,
        ...(why === undefined ? {} : { why }),
      } satisfies RunRecord),
    );
  }
  await appendDecided(durable, runId, run, records, owner);
}

/** A person's decision on an unknown outcome, checked: what the code's call gets, or a rerun. */
function outcomeDecided(id: string, tool: string, decision: unknown): BridgeCallOutcome | "rerun" {
  const given = decision as Partial<{ rerun: unknown; failed: unknown; result: unknown }> | undefined;
  if (given?.rerun === true) return "rerun";
  if (typeof given?.failed === "string") {
    return { ok: false, error: { tool, kind: "error", message: given.failed } };
  }
  if (typeof given === "object" && given !== null && "result" in given) {
    const valueJson = JSON.stringify(given.result);
    if (valueJson !== undefined) return { ok: true, valueJson };
  }
  throw new UserError(
    `recover: call ${id}'s outcome is unknown; decide it with { rerun: true }, { failed: "reason" } or { result: <JSON value> }.`,
  );
}

/**
 * Writes the outcomes a person gave for calls whose outcome was unknown, before anything runs, and puts
 * them in the journal the replay answers from (last in the order of ending: they were decided last).
 */
async function settle(
  durable: DurableSetup,
  runId: string,
  run: JournaledRun,
  settled: Map<number, BridgeCallOutcome | "rerun">,
  owner: string,
): Promise<void> {
  const state: JournalState = run.state;
  const records: string[] = [];
  for (const [index, decided] of settled) {
    if (decided === "rerun") continue;
    const after = state.entries.length;
    const entry = state.entries[index]!;
    entry.outcome = decided;
    entry.after = after;
    delete entry.pending;
    const status = decided.ok ? "ok" : "error";
    entry.record = { callId: `${run.header.prefix}.${index + 1}`, tool: entry.tool, status, durationMs: 0 };
    state.order.push(index);
    records.push(
      JSON.stringify({
        t: "outcome",
        i: index,
        outcome: outcomeText(decided),
        record: entry.record,
        after,
      } satisfies RunRecord),
    );
  }
  await appendDecided(durable, runId, run, records, owner);
}

/** Seals and appends records a recovery wrote before anything runs; refused when another recoverer claimed the run. */
async function appendDecided(
  durable: DurableSetup,
  runId: string,
  run: JournaledRun,
  records: readonly string[],
  owner: string,
): Promise<void> {
  if (records.length === 0) return;
  const sealed = sealBatches(durable.key, runId, run.chain, records);
  if (!(await durable.store.append(runId, sealed, owner))) {
    throw new RecoveryRefused(
      "claimed",
      `Run ${runId} was claimed by another recoverer first: it goes on there.`,
    );
  }
}

function pausedRunOf(run: JournaledRun): PausedRun {
  return { code: run.header.code, prefix: run.header.prefix, journal: run.state, logs: [], usedMs: 0 };
}

function parsedArgs(args: string): unknown {
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}
