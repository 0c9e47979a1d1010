/**
 * The file journal's log: one file per run, a line per operation (create, append, end, renew, claim),
 * in the order the file system appended them. The log is the run: a run's state is what replaying its
 * lines gives, and a line counts only if its operation was allowed at its place in the file (an append
 * after another owner's claim does not). Each line carries a checksum, so a line torn by a crash (or
 * still being written by another process) is told apart from a whole one and never counts.
 */

import { createHash, randomBytes } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import type { JournalRecord, Lease } from "./run-journal.js";

/** One operation on a run, as a line of its log says it. */
export type LogOp =
  | { op: "create"; runId: string; header: JournalRecord; lease: Lease }
  | { op: "append" | "end"; owner: string; records: JournalRecord[] }
  | { op: "renew"; lease: Lease }
  | { op: "claim"; lease: Lease; now: number };

/** A run as the lines of its log so far leave it: what every operation is checked against. */
export interface RunState {
  runId: string;
  /** How many records the run has (the next `seq`). */
  records: number;
  lease: Lease;
  ended: boolean;
}

/** A line of a log: its operation, and the random id its writer gave it to find it again. */
interface LogLine {
  id: string;
  op: LogOp;
}

/**
 * The first bytes of a log: its create line's checksum and id, unique to that run. A cached state or a
 * state file of a run applies to a log only if the log starts with the same bytes (a run removed and
 * created again under its id is another log).
 */
export const LOG_HEAD_BYTES = 34;

/** How much of a log is read at once. */
const READ_CHUNK_BYTES = 1024 * 1024;

/** The state after `op`, or undefined when `op` is not allowed on `state` (the line does not count). */
export function applyOp(state: RunState | undefined, op: LogOp): RunState | undefined {
  if (op.op === "create") {
    if (state !== undefined || op.header.seq !== 0) return undefined;
    return { runId: op.runId, records: 1, lease: op.lease, ended: false };
  }
  if (state === undefined || state.ended) return undefined;
  switch (op.op) {
    case "append":
    case "end":
      if (state.lease.owner !== op.owner || !follows(state, op.records)) return undefined;
      return { ...state, records: state.records + op.records.length, ended: op.op === "end" };
    case "renew":
      return state.lease.owner === op.lease.owner ? { ...state, lease: op.lease } : undefined;
    case "claim":
      return state.lease.until <= op.now ? { ...state, lease: op.lease } : undefined;
  }
}

/** Whether `records` take the `seq`s right after the run's last record, in order. */
export function follows(state: RunState, records: readonly JournalRecord[]): boolean {
  return records.every((record, i) => record.seq === state.records + i);
}

/**
 * A line as written: a newline first (so that a line torn by a crash before it ends as a line of its own
 * and spoils nothing after it), the checksum of the rest, a space, the operation as JSON without its
 * records, then each record as JSON after a tab, and a newline. JSON escapes every control character, so
 * a record's text never breaks a line or a field, and it round-trips every string exactly (lone
 * surrogates included); a record apart from the others keeps each JSON string far below the longest
 * string JavaScript has, whatever the number of records in one append.
 */
export function encodeLine(op: LogOp): { id: string; bytes: Buffer } {
  const id = randomBytes(12).toString("base64url");
  const { fields, records } = splitOp(op);
  const pieces = [Buffer.from(JSON.stringify({ id, ...fields }), "utf8")];
  for (const { seq, text } of records) pieces.push(TAB, Buffer.from(JSON.stringify({ seq, text }), "utf8"));
  const prefix = Buffer.from(`\n${checksum(pieces)} `, "latin1");
  return { id, bytes: Buffer.concat([prefix, ...pieces, NEWLINE]) };
}

const TAB = Buffer.from("\t");
const NEWLINE = Buffer.from("\n");

/** An operation's records (a creation's header is its one record), and the rest of it. */
function splitOp(op: LogOp): { fields: Record<string, unknown>; records: readonly JournalRecord[] } {
  if (op.op === "create") {
    const { header, ...fields } = op;
    return { fields, records: [header] };
  }
  if (op.op === "append" || op.op === "end") {
    const { records, ...fields } = op;
    return { fields, records };
  }
  return { fields: op, records: [] };
}

/** The first 32 bits of the SHA-256 of `pieces`, in hex: enough to tell a torn line from a whole one. */
function checksum(pieces: readonly Uint8Array[]): string {
  const hash = createHash("sha256");
  for (const piece of pieces) hash.update(piece);
  return hash.digest("hex").slice(0, 8);
}

/** The line in `bytes` (without its newline), or undefined when it is torn, damaged or not one of ours. */
function decodeLine(bytes: Buffer): LogLine | undefined {
  if (bytes.length < 10 || bytes[8] !== 0x20) return undefined;
  const body = bytes.subarray(9);
  if (bytes.toString("latin1", 0, 8) !== checksum([body])) return undefined;
  try {
    const [first, ...rest] = splitAtTabs(body).map((piece) => JSON.parse(piece.toString("utf8")) as unknown);
    const { id, ...fields } = first as { id: unknown } & Record<string, unknown>;
    const op = joinOp(fields, rest);
    return typeof id === "string" && op !== undefined && isLogOp(op) ? { id, op } : undefined;
  } catch {
    return undefined;
  }
}

/** An operation from its fields and records, as {@link splitOp} parted them; undefined if they do not fit. */
function joinOp(fields: Record<string, unknown>, records: unknown[]): Record<string, unknown> | undefined {
  if (fields.op === "create") return records.length === 1 ? { ...fields, header: records[0] } : undefined;
  if (fields.op === "append" || fields.op === "end") return { ...fields, records };
  return records.length === 0 ? fields : undefined;
}

/** The pieces of `bytes` between tabs. */
function splitAtTabs(bytes: Buffer): Buffer[] {
  const pieces: Buffer[] = [];
  let start = 0;
  for (let tab = bytes.indexOf(0x09); tab !== -1; tab = bytes.indexOf(0x09, start)) {
    pieces.push(bytes.subarray(start, tab));
    start = tab + 1;
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}

const isLease = (value: unknown): value is Lease =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as Lease).owner === "string" &&
  typeof (value as Lease).until === "number";

const isRecord = (value: unknown): value is JournalRecord =>
  typeof value === "object" &&
  value !== null &&
  Number.isInteger((value as JournalRecord).seq) &&
  typeof (value as JournalRecord).text === "string";

/** Whether a line's JSON has the shape of an operation (a checksum that matches makes it ours). */
function isLogOp(op: Record<string, unknown>): op is LogOp {
  switch (op.op) {
    case "create":
      return typeof op.runId === "string" && isRecord(op.header) && isLease(op.lease);
    case "append":
    case "end":
      return typeof op.owner === "string" && Array.isArray(op.records) && op.records.every(isRecord);
    case "renew":
      return isLease(op.lease);
    case "claim":
      return isLease(op.lease) && typeof op.now === "number";
    default:
      return false;
  }
}

/**
 * Reads the whole lines of a log from `from` (the start of a line) to `size` (the file's size, as read),
 * calling `each` with each one (undefined for a torn or damaged line) and the offset right after it.
 * Returns where the next line starts: the end of the last whole line, before any bytes that do not end
 * in a newline yet (a line being written, or torn by a crash, which a later line's leading newline ends).
 */
export async function readLines(
  file: FileHandle,
  from: number,
  size: number,
  each: (line: LogLine | undefined, end: number) => void,
): Promise<number> {
  const chunk = Buffer.allocUnsafe(Math.min(READ_CHUNK_BYTES, Math.max(size - from, 1)));
  let lineStart = from;
  let position = from;
  let partial: Buffer[] = [];
  while (position < size) {
    const { bytesRead } = await file.read(chunk, 0, Math.min(chunk.length, size - position), position);
    if (bytesRead === 0) break;
    position += bytesRead;
    const read = chunk.subarray(0, bytesRead);
    let start = 0;
    for (let newline = read.indexOf(0x0a); newline !== -1; newline = read.indexOf(0x0a, start)) {
      const piece = read.subarray(start, newline);
      const bytes = partial.length === 0 ? piece : Buffer.concat([...partial, piece]);
      partial = [];
      lineStart += bytes.length + 1;
      if (bytes.length > 0) each(decodeLine(bytes), lineStart);
      start = newline + 1;
    }
    if (start < bytesRead) partial.push(Buffer.from(read.subarray(start)));
  }
  return lineStart;
}
