/**
 * The journal recorder of a durable run: what a pausing run records in memory (JournalRecorder), also
 * written to the run's store as it happens, through its {@link RunWriter}. The bridge waits for
 * {@link DurableRecorder.written} before a call starts and before an outcome reaches the code.
 */

import type { BridgeCallOutcome, RecordedValues } from "../../../sandbox/contract/index.js";
import type { FlowApproval } from "../../dispatch/flow-approval.js";
import type { PersonPolicy } from "../../dispatch/types.js";
import { JournalRecorder, type JournalState, outcomeText, type PendingKind } from "../pause/journal.js";
import type { CallRecord } from "../result.js";
import type { RunWriter } from "./writer.js";

/** The idempotency key of call `index` (from 0) of run `runId`. */
export function idempotencyKeyOf(runId: string, index: number): string {
  return `${runId}:${index}`;
}

/** A JournalRecorder whose records also go to the run's store (see the file's comment). */
export class DurableRecorder extends JournalRecorder {
  readonly runId: string;
  readonly writer: RunWriter;

  constructor(runId: string, writer: RunWriter, previous?: JournalState) {
    super(previous);
    this.runId = runId;
    this.writer = writer;
  }

  /** Resolves once everything recorded so far is durable; rejects when the run must stop. */
  written(): Promise<void> {
    return this.writer.written();
  }

  override made(index: number, tool: string, args: string, requested: string | undefined): void {
    const fresh = index >= this.state.entries.length;
    super.made(index, tool, args, requested);
    if (!fresh) return;
    const key = idempotencyKeyOf(this.runId, index);
    this.writer.add({
      t: "start",
      i: index,
      tool,
      args,
      key,
      ...(requested === undefined ? {} : { requested }),
    });
  }

  override ended(
    index: number,
    outcome: BridgeCallOutcome,
    record: CallRecord | undefined,
    made: number,
  ): void {
    const had = this.state.entries[index]?.outcome !== undefined;
    super.ended(index, outcome, record, made);
    if (had || this.state.entries[index]?.outcome === undefined) return;
    this.writer.add({
      t: "outcome",
      i: index,
      outcome: outcomeText(outcome),
      after: made,
      ...(record === undefined ? {} : { record }),
    });
  }

  override paused(index: number, kind: PendingKind, args: unknown, flow?: FlowApproval): void {
    super.paused(index, kind, args, flow);
    this.writer.add({ t: "pending", i: index, kind, args: args ?? null, ...(flow ? { flow } : {}) });
  }

  override values(values: RecordedValues): void {
    super.values(values);
    const { now, random, zone, overflow } = values;
    const some = (list: unknown): list is number[] => Array.isArray(list) && list.length > 0;
    if (!some(now) && !some(random) && zone === undefined && overflow !== true) return;
    this.writer.add({
      t: "values",
      ...(some(now) ? { now } : {}),
      ...(some(random) ? { random } : {}),
      ...(zone === undefined ? {} : { zone }),
      ...(overflow === true ? { overflow } : {}),
    });
  }

  /** Call `index` was held while the run paused: it did not run. */
  held(index: number): void {
    this.writer.add({ t: "held", i: index });
  }

  /** Call `index`, journaled before without an outcome, goes live now (with the decision it was given). */
  live(index: number, person: PersonPolicy | undefined): void {
    this.writer.add({ t: "go", i: index, ...(person === undefined ? {} : { person }) });
  }
}
