/**
 * The records of a durable run's journal, and their seals. What a store keeps is a sealed batch: the
 * records of one append as a JSON array with an HMAC-SHA-256 before it (`<mac>.[<json>,…]`), made with
 * the code mode's pause key over the run id, the batch's place, the previous batch's MAC and the JSON: a
 * record changed, moved, left out in the middle, taken from another run or sealed with another key does
 * not verify, and the run is refused before anything runs. One MAC per append rather than per record:
 * a `Promise.all` of a hundred calls is three MACs, not two hundred (a MAC costs about 10 µs here).
 */

import { createHmac, timingSafeEqual } from "node:crypto";
import type { CallRecordStatus } from "../../../common/failures.js";
import type { RecordedZone } from "../../../sandbox/contract/index.js";
import type { FlowApproval } from "../../dispatch/flow-approval.js";
import type { PersonPolicy } from "../../dispatch/types.js";
import type { PendingKind } from "../pause/journal.js";
import type { CallRecord } from "../result.js";
import type { JournalRecord } from "./run-journal.js";

/** The format of the records this cordon writes and reads. */
export const JOURNAL_FORMAT = 2;

/**
 * The most characters of record JSON sealed together: an append of more is sealed as several batches, so
 * that a store that writes a batch as one message (a Restate step) is never handed one too large.
 */
export const SEALED_BATCH_CHARS = 1024 * 1024;

/** What a durable run is bound to, as its header says: the checkpoint binding of today, and more. */
export interface RunHeader {
  t: "header";
  format: number;
  runId: string;
  /** The model's code, as given: a recovery runs it again. */
  code: string;
  /** Digests of the tool set and the limits (as a checkpoint's binding). */
  tools: string;
  limits: string;
  /** The prefix of the run's call ids. */
  prefix: string;
  /** When the run started, in ms since the epoch. */
  created: number;
  /** Which key sealed the records (a digest of it, not the key): "another key" rather than "altered". */
  keyId: string;
  /** The run reverts its effects if it fails (`onFailure: "revert"`): so does its recovery. */
  onFailure?: "revert";
}

/** One record's content; the header first, then in the order things happened. */
export type RunRecord =
  | RunHeader
  /** Clock, random and zone values the sandbox handed out, before whatever comes next. */
  | { t: "values"; now?: number[]; random?: number[]; zone?: RecordedZone; overflow?: true }
  /** Call `i` is about to start (written before its tool can run). */
  | { t: "start"; i: number; tool: string; args: string; requested?: string; key: string }
  /** Call `i` ended: what the code received (`outcome` as a checkpoint packs it), its record and `after`. */
  | { t: "outcome"; i: number; outcome: string; record?: CallRecord; after: number }
  /** Call `i` waits for a person (it did not run). */
  | { t: "pending"; i: number; kind: PendingKind; args: unknown; flow?: FlowApproval }
  /** Call `i` was held while the run paused (it did not run). */
  | { t: "held"; i: number }
  /** Call `i`, journaled before, goes live now (a decision, a rerun): from here its outcome is unknown until written. */
  | { t: "go"; i: number; person?: PersonPolicy }
  /** The revert of call `i`'s effect is about to run (written before it can). */
  | { t: "revert"; i: number; key: string }
  /** The revert of call `i`'s effect ended: how, and why when it did not revert it. */
  | { t: "reverted"; i: number; status: CallRecordStatus; why?: string }
  /** The run paused: its lease was given up, for whoever brings the decisions. */
  | { t: "paused" }
  /** The run ended: its status, and its error's name and message when it failed. */
  | { t: "end"; status: string; error?: string; message?: string };

/** The chain so far: the next record's place and the MAC it follows. */
export interface SealChain {
  seq: number;
  mac: string;
}

/** Seals `record` alone as the next batch of `chain` (which it advances). */
export function sealRecord(key: Buffer, runId: string, chain: SealChain, record: RunRecord): JournalRecord {
  return sealBatch(key, runId, chain, [JSON.stringify(record)]);
}

/**
 * Seals records, given as their JSON texts, as the next batch of `chain` (which it advances). The
 * texts must each be one `RunRecord`'s JSON (they are joined into an array as they are).
 */
function sealBatch(key: Buffer, runId: string, chain: SealChain, jsons: readonly string[]): JournalRecord {
  const json = `[${jsons.join(",")}]`;
  const mac = macOf(key, runId, chain.seq, chain.mac, json);
  const sealed = { seq: chain.seq, text: `${mac}.${json}` };
  chain.seq++;
  chain.mac = mac;
  return sealed;
}

/**
 * Seals JSON texts of records as the next batches of `chain`: as one batch, or several where they come
 * to more than {@link SEALED_BATCH_CHARS} characters (a longer record alone).
 */
export function sealBatches(
  key: Buffer,
  runId: string,
  chain: SealChain,
  jsons: readonly string[],
): JournalRecord[] {
  const sealed: JournalRecord[] = [];
  let from = 0;
  let chars = 0;
  for (let i = 0; i < jsons.length; i++) {
    const length = jsons[i]!.length;
    if (i > from && chars + length > SEALED_BATCH_CHARS) {
      sealed.push(sealBatch(key, runId, chain, jsons.slice(from, i)));
      from = i;
      chars = 0;
    }
    chars += length;
  }
  if (from < jsons.length) sealed.push(sealBatch(key, runId, chain, jsons.slice(from)));
  return sealed;
}

/** Why a journal record did not open. */
export type RecordProblem = "malformed" | "altered";

/**
 * Opens the batch at `seq`, which must follow the MAC `previous`: its records, its MAC, or the problem.
 * The JSON is parsed only once the MAC verified.
 */
export function openRecord(
  key: Buffer,
  runId: string,
  previous: string,
  record: JournalRecord,
  seq: number,
): { records: RunRecord[]; mac: string } | { problem: RecordProblem } {
  if (typeof record?.text !== "string") return { problem: "malformed" };
  if (record.seq !== seq) return { problem: "altered" };
  const dot = record.text.indexOf(".");
  if (dot <= 0) return { problem: "malformed" };
  const mac = record.text.slice(0, dot);
  const json = record.text.slice(dot + 1);
  const wanted = Buffer.from(macOf(key, runId, seq, previous, json));
  const got = Buffer.from(mac);
  if (wanted.length !== got.length || !timingSafeEqual(wanted, got)) return { problem: "altered" };
  try {
    const parsed: unknown = JSON.parse(json);
    if (!Array.isArray(parsed) || parsed.length === 0) return { problem: "malformed" };
    for (const item of parsed) {
      if (typeof item !== "object" || item === null || typeof (item as RunRecord).t !== "string") {
        return { problem: "malformed" };
      }
    }
    return { records: parsed as RunRecord[], mac };
  } catch {
    return { problem: "malformed" };
  }
}

/**
 * The header's content read without its seal, to tell "another key", "another run" or "another format"
 * from "altered" before the seal is checked; undefined when it is not a header.
 */
export function peekHeader(record: JournalRecord | undefined): Partial<RunHeader> | undefined {
  const text = record?.text;
  if (typeof text !== "string") return undefined;
  try {
    const parsed: unknown = JSON.parse(text.slice(text.indexOf(".") + 1));
    // A batch of one since format 2; a journal of format 1 sealed each record alone.
    const header = (Array.isArray(parsed) ? parsed[0] : parsed) as Partial<RunHeader> | undefined;
    return header?.t === "header" ? header : undefined;
  } catch {
    return undefined;
  }
}

/** A key's id: a digest that names it without giving it away (as a checkpoint's key id). */
export function journalKeyId(key: Buffer): string {
  return createHmac("sha256", key).update("cordon journal key id").digest("base64url").slice(0, 16);
}

function macOf(key: Buffer, runId: string, seq: number, previous: string, json: string): string {
  return createHmac("sha256", key)
    .update(`cordon-journal.${JOURNAL_FORMAT}\n${runId}\n${seq}\n${previous}\n`)
    .update(json)
    .digest("base64url");
}
