/**
 * The plain data that crosses between an engine's host side and the guest prelude, read and written
 * the same way by every engine that runs the prelude (the isolate engine, the QuickJS environment): a
 * call's answer as text, a journal as the guest replays it, recorded values and the `done` report, each
 * kept to its well-formed fields.
 */

import {
  type BridgeCallOutcome,
  type RecordedValues,
  type ReplayedCalls,
  recordedZone,
} from "../contract/index.js";
import type { GuestDoneReport, GuestReplayedCalls } from "../guest/interface.js";

/** The text a call offered synchronously is answered with at once (see GuestSyncCall). */
export function answerText(outcome: BridgeCallOutcome): string {
  if (outcome.ok) return `o${typeof outcome.valueJson === "string" ? outcome.valueJson : ""}`;
  return `f${JSON.stringify(outcome.error)}`;
}

/** A journal as the guest replays it: each outcome as the text the guest settles a call with. */
export function guestReplay(replay: ReplayedCalls): GuestReplayedCalls {
  const { tools, args, after, order } = replay;
  const outcomes = replay.outcomes.map((outcome) => (outcome === null ? "" : answerText(outcome)));
  return { tools, args, outcomes, after, order };
}

/**
 * Recorded values from anywhere, kept only as lists of finite numbers, the overflow flag and a
 * well-formed zone.
 */
export function recordedValues(raw: unknown): RecordedValues {
  const values: RecordedValues = {};
  if (typeof raw !== "object" || raw === null) return values;
  const record = raw as Record<string, unknown>;
  for (const source of ["now", "random"] as const) {
    const list = record[source];
    if (Array.isArray(list)) values[source] = list.filter((item): item is number => Number.isFinite(item));
  }
  if (record.overflow === true) values.overflow = true;
  const zone = recordedZone(record.zone);
  if (zone !== undefined) values.zone = zone;
  return values;
}

/** Reads the guest's `done` report, keeping only well-formed string fields. */
export function parseReport(json: string): GuestDoneReport | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof raw !== "object" || raw === null) return undefined;
  const record = raw as Record<string, unknown>;
  const status = record.status;
  if (status !== "ok" && status !== "error" && status !== "limit") return undefined;
  const report: GuestDoneReport = { status };
  if (typeof record.valueJson === "string") report.valueJson = record.valueJson;
  if (record.inStart === true) report.inStart = true;
  const error = record.error;
  if (typeof error === "object" && error !== null) {
    const fields = error as Record<string, unknown>;
    const text = (value: unknown) => (typeof value === "string" ? value : undefined);
    report.error = { name: text(fields.name) ?? "Error", message: text(fields.message) ?? "" };
    for (const key of ["stack", "tool", "kind"] as const) {
      const value = text(fields[key]);
      if (value !== undefined) report.error[key] = value;
    }
  } else if (status !== "ok") {
    report.error = { name: "Error", message: "The code failed." };
  }
  return report;
}
