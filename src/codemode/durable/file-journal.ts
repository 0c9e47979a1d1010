/**
 * A {@link RunJournal} in a folder: a run is one log file, `<runId>.log`, of lines that each say one
 * operation (create, append, end, renew, claim; journal-log.ts). Several processes on one machine may
 * share the folder (a local file system: the rules below hold where appends are atomic, not on NFS).
 *
 * The file system orders every operation on a run: each is one write to the log opened with O_APPEND,
 * which lands whole after every write before it, and an operation counts only if it was allowed at
 * its place in the file. So the check of the lease and the write are one exclusive step: of two
 * claimers of one expired lease, the claim written first counts and the second finds the first
 * claimer's lease before it; an append written after a claim does not count, and its writer, which
 * reads the log back after its write, learns so and gets `false`. Every method reads back what it wrote
 * before it answers, from where it last read (a log is only ever appended to, so what was read stays
 * true), and the answer is the same for every process that reads the log.
 *
 * Durable when the promise resolves: an append is one write and one fsync of the log (k records are one
 * line), a created run's log is written and flushed under a temporary name and linked into place (it
 * appears whole or not at all), and the folder is flushed after. A run's state (its lease, how many
 * records, ended or not) is also kept in a small `<runId>.state` file, written when the lease changes or
 * the log grew by a megabyte: {@link RunJournal.incomplete} reads it and the log after it, not every
 * record of every run. Files are readable by their owner only (0600), the folder too (0700).
 */

import { randomBytes } from "node:crypto";
import {
  chmod,
  constants,
  type FileHandle,
  link,
  mkdir,
  open,
  readdir,
  readFile,
  unlink,
} from "node:fs/promises";
import { join } from "node:path";
import { UserError } from "../../../common/errors.js";
import { syncFolder, writeFileAtomic } from "../../files/atomic-write.js";
import {
  applyOp,
  encodeLine,
  follows,
  LOG_HEAD_BYTES,
  type LogOp,
  type RunState,
  readLines,
} from "./journal-log.js";
import {
  type IncompleteRun,
  type JournalRecord,
  MAX_RUN_ID_CHARS,
  type RunJournal,
  type StoredRun,
} from "./run-journal.js";

/** A run id that is a file name as it is: no separator, no NUL, not `.` or `..`, not hidden. */
const SAFE_RUN_ID = new RegExp(`^[A-Za-z0-9][A-Za-z0-9._-]{0,${MAX_RUN_ID_CHARS - 1}}$`);

/** How much a log grows between two writes of its state file. */
const STATE_EVERY_BYTES = 1024 * 1024;

/** What a handle knows of a run's log: the state after its first `offset` bytes. */
interface KnownLog {
  /** The log's first bytes ({@link LOG_HEAD_BYTES}): which log this is. */
  head: string;
  offset: number;
  state: RunState | undefined;
  /** Where the state file was last written from. */
  savedAt: number;
}

/** Opens a log for reading and appending; never creates one, never follows a symbolic link. */
const READ_APPEND = constants.O_RDWR | constants.O_APPEND | (constants.O_NOFOLLOW ?? 0);
const READ_ONLY = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0);

/**
 * Makes a journal store in `directory` (created, 0700, if missing). Each call gives a new handle:
 * handles on one folder, in this process or others, see one store. Run ids must be usable as file
 * names (letters, digits, `.`, `_`, `-`; a random UUID is): any other id is refused with a UserError.
 */
export function fileJournal(directory: string): RunJournal {
  if (typeof directory !== "string" || directory === "") {
    throw new UserError("fileJournal needs the path of a directory to keep the runs' journals in.");
  }
  const known = new Map<string, KnownLog>();
  let ready: Promise<void> | undefined;
  const ensureFolder = () => {
    ready ??= makeFolder(directory).catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    return ready;
  };
  const logPath = (runId: string) => join(directory, `${fileName(runId)}.log`);
  const statePath = (runId: string) => join(directory, `${fileName(runId)}.state`);

  /** Opens a run's log, or undefined when there is none. */
  const openLog = async (runId: string, flags: number): Promise<FileHandle | undefined> => {
    const path = logPath(runId);
    try {
      return await open(path, flags);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  };

  /**
   * Where reading a log may start: this handle's last read of it, else its state file, else the start.
   * Either must be of this log (its head) and within it: a log is only appended to, so a shorter one is
   * not the log that was read (a hand cut it short), and is read from its start.
   */
  const startOf = async (runId: string, head: string, size: number): Promise<KnownLog> => {
    const applies = (log: KnownLog | undefined): log is KnownLog =>
      log !== undefined && log.head === head && log.offset <= size;
    const cached = known.get(runId);
    if (applies(cached)) return cached;
    const saved = await readState(statePath(runId));
    return applies(saved) ? saved : { head, offset: 0, state: undefined, savedAt: 0 };
  };

  /** Keeps the furthest read of a log (two reads of one run may end in either order). */
  const remember = (runId: string, log: KnownLog) => {
    const cached = known.get(runId);
    if (cached === undefined || cached.head !== log.head || cached.offset < log.offset) known.set(runId, log);
  };

  /**
   * Reads a log on from where this handle knows it to its end: the run's state, and whether the line
   * of id `own` (when given) counted.
   */
  const catchUp = async (runId: string, file: FileHandle, own?: { id: string; from: KnownLog }) => {
    const head = await readHead(file);
    const size = (await file.stat()).size;
    const from = own?.from ?? (await startOf(runId, head, size));
    let state = from.state;
    let counted: boolean | undefined;
    const offset = await readLines(file, from.offset, size, (line) => {
      const next = line === undefined ? undefined : applyOp(state, line.op);
      if (next !== undefined) state = next;
      if (own !== undefined && line?.id === own.id) counted = next !== undefined;
    });
    if (state === undefined) throw damaged(logPath(runId));
    if (state.runId !== runId) return { log: from, state: undefined, counted: false };
    const log = { head, offset, state, savedAt: from.savedAt };
    remember(runId, log);
    return { log, state, counted };
  };

  /** Writes the run's state file, as a shortcut for later reads; the log stays the truth. */
  const saveState = async (runId: string, log: KnownLog) => {
    try {
      await writeFileAtomic(statePath(runId), JSON.stringify(log), { mode: 0o600 });
      remember(runId, { ...log, savedAt: log.offset });
    } catch {
      // A missing or old state file costs a longer read, nothing else.
    }
  };

  /**
   * Writes `op` to a run's log if `allowed` by the state this handle reads, then reads the log back:
   * `true` when the line counted. The line's place in the file decides, so the answer is the same for
   * every reader, and a line that did not count changes nothing.
   */
  const write = async (runId: string, op: LogOp, allowed: (state: RunState) => boolean, save: boolean) => {
    await ensureFolder();
    const file = await openLog(runId, READ_APPEND);
    if (file === undefined) return false;
    try {
      const before = await catchUp(runId, file);
      if (before.state === undefined || !allowed(before.state)) return false;
      const line = encodeLine(op);
      const { bytesWritten } = await file.write(line.bytes);
      if (bytesWritten !== line.bytes.length) throw new Error(`A short write to ${logPath(runId)}.`);
      await file.datasync();
      const after = await readBack(runId, file, op, line, before.log);
      if (after.counted === undefined) throw new Error(`A line written to ${logPath(runId)} is not there.`);
      if (after.counted && (save || after.log.offset - after.log.savedAt >= STATE_EVERY_BYTES)) {
        await saveState(runId, after.log);
      }
      return after.counted;
    } finally {
      await file.close();
    }
  };

  /**
   * Whether the line just written counted. When the log grew by exactly that line, it lies right where
   * this handle's read ended, and the state there decides; else the log is read on (other lines came first).
   */
  const readBack = async (
    runId: string,
    file: FileHandle,
    op: LogOp,
    line: { id: string; bytes: Buffer },
    from: KnownLog,
  ) => {
    if ((await file.stat()).size === from.offset + line.bytes.length) {
      const state = applyOp(from.state, op);
      if (state === undefined) return { log: from, counted: false };
      const log = { ...from, offset: from.offset + line.bytes.length, state };
      remember(runId, log);
      return { log, counted: true };
    }
    return catchUp(runId, file, { id: line.id, from });
  };

  const appendOrEnd =
    (op: "append" | "end") => (runId: string, records: readonly JournalRecord[], owner: string) =>
      write(
        runId,
        { op, owner, records: records.map(({ seq, text }) => ({ seq, text })) },
        (state) => !state.ended && state.lease.owner === owner && follows(state, records),
        op === "end",
      );

  return {
    async create(runId, header, lease) {
      const path = logPath(runId);
      await ensureFolder();
      if (header.seq !== 0) return false;
      const { bytes } = encodeLine({
        op: "create",
        runId,
        header: { seq: header.seq, text: header.text },
        lease: { owner: lease.owner, until: lease.until },
      });
      return linkNewFile(directory, path, bytes);
    },
    append: appendOrEnd("append"),
    end: appendOrEnd("end"),
    renew(runId, lease) {
      const op: LogOp = { op: "renew", lease: { owner: lease.owner, until: lease.until } };
      return write(runId, op, (state) => !state.ended && state.lease.owner === lease.owner, true);
    },
    claim(runId, lease, now) {
      const op: LogOp = { op: "claim", lease: { owner: lease.owner, until: lease.until }, now };
      return write(runId, op, (state) => !state.ended && state.lease.until <= now, true);
    },
    async read(runId) {
      const path = logPath(runId);
      const file = await openLog(runId, READ_ONLY);
      if (file === undefined) return undefined;
      try {
        return await readRun(runId, path, file);
      } finally {
        await file.close();
      }
    },
    async incomplete(now, limit = 100) {
      const found: IncompleteRun[] = [];
      for (const runId of await runIds(directory)) {
        const file = await openLog(runId, READ_ONLY);
        if (file === undefined) continue;
        try {
          const { state } = await catchUp(runId, file);
          if (state === undefined || state.ended || state.lease.until > now) continue;
          found.push({ runId, leaseExpired: state.lease.until, records: state.records });
        } finally {
          await file.close();
        }
      }
      return found.sort((a, b) => a.leaseExpired - b.leaseExpired).slice(0, limit);
    },
    async remove(runId) {
      const paths = [logPath(runId), statePath(runId)];
      known.delete(runId);
      for (const path of paths) {
        await unlink(path).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== "ENOENT") throw error;
        });
      }
      await syncFolder(directory).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
      });
    },
  };
}

/** A run id as a file name, or a UserError that says which ids are. */
function fileName(runId: string): string {
  if (typeof runId === "string" && SAFE_RUN_ID.test(runId)) return runId;
  const shown = typeof runId === "string" ? JSON.stringify(runId.slice(0, 60)) : typeof runId;
  throw new UserError(
    `The run id ${shown} cannot name a file of the file journal: use 1 to ${MAX_RUN_ID_CHARS} letters, digits, '.', '_' or '-', starting with a letter or digit (a random UUID is one).`,
  );
}

/** Creates the journal's folder, readable by its owner only, if it is missing. */
async function makeFolder(directory: string): Promise<void> {
  const created = await mkdir(directory, { recursive: true, mode: 0o700 });
  // The mode was narrowed by the umask; a folder this store made is 0700 exactly.
  if (created !== undefined) await chmod(directory, 0o700);
}

/**
 * Creates `path` with `bytes` unless it exists: written and flushed under a temporary name first and
 * linked into place, so the file appears whole or not at all (a hard link fails if the name is taken).
 */
async function linkNewFile(directory: string, path: string, bytes: Uint8Array): Promise<boolean> {
  const temporary = join(directory, `.${randomBytes(9).toString("base64url")}.new`);
  const file = await open(temporary, "wx", 0o600);
  try {
    await file.write(bytes);
    await file.chmod(0o600);
    await file.datasync();
  } finally {
    await file.close();
  }
  try {
    await link(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    await unlink(temporary);
  }
  await syncFolder(directory);
  return true;
}

/** The first bytes of a log, which tell it from any other log that had its name. */
async function readHead(file: FileHandle): Promise<string> {
  const head = Buffer.alloc(LOG_HEAD_BYTES);
  const { bytesRead } = await file.read(head, 0, LOG_HEAD_BYTES, 0);
  return head.toString("latin1", 0, bytesRead);
}

/** A run's state file, if there is one. */
async function readState(path: string): Promise<KnownLog | undefined> {
  try {
    const saved = JSON.parse(await readFile(path, "utf8")) as KnownLog;
    const valid =
      typeof saved.head === "string" &&
      Number.isInteger(saved.offset) &&
      typeof saved.state?.runId === "string";
    if (!valid) return undefined;
    return { head: saved.head, offset: saved.offset, state: saved.state, savedAt: saved.offset };
  } catch {
    // None, or not one of ours: the log is read from its start.
    return undefined;
  }
}

/** The whole run in a log: every record of every line that counted. */
async function readRun(runId: string, path: string, file: FileHandle): Promise<StoredRun | undefined> {
  let state: RunState | undefined;
  const records: JournalRecord[] = [];
  await readLines(file, 0, (await file.stat()).size, (line) => {
    const next = line === undefined ? undefined : applyOp(state, line.op);
    if (next === undefined || line === undefined) return;
    state = next;
    if (line.op.op === "create") records.push(line.op.header);
    if (line.op.op === "append" || line.op.op === "end") records.push(...line.op.records);
  });
  if (state === undefined) throw damaged(path);
  // A file system that ignores case may give another run's log under this name.
  if (state.runId !== runId) return undefined;
  return { runId, records, lease: state.lease, ended: state.ended };
}

/** The run ids of the logs in the folder. */
async function runIds(directory: string): Promise<string[]> {
  try {
    const names = await readdir(directory);
    return names
      .filter((name) => name.endsWith(".log"))
      .map((name) => name.slice(0, -".log".length))
      .filter((runId) => SAFE_RUN_ID.test(runId));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

/** A log whose first line is not a run's creation: not something this store wrote. */
function damaged(path: string): Error {
  return new Error(
    `The journal file ${path} does not start with a run's creation: it is damaged, or not a journal.`,
  );
}
