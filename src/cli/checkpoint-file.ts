/**
 * The --checkpoint file of `cordon run --approve pause`, which `cordon resume` reads and rewrites when
 * the run pauses again. It holds the checkpoint text and nothing else, readable by its owner only
 * (0600): a checkpoint carries the code, the calls' arguments and the results recorded so far. It is
 * replaced whole (written beside it, then renamed over it), so that a crash never leaves half of one.
 *
 * A checkpoint resumes once. Resuming it again would replay the same journal and run the decided calls
 * again (an approved call would take effect twice), so `cordon resume` claims the file just before the
 * run goes on, by renaming it to `<file>.used`: a second resume of the same file, at the same time or
 * later, finds nothing to resume. Once the run ends ok, `<file>.used` keeps only a note of when it was
 * resumed (none of the checkpoint's content), so that a later resume of the file can say so.
 */

import { open, readFile, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { UsageError } from "../../common/errors.js";
import { groupDigits } from "../../common/numbers.js";
import { MAX_CHECKPOINT_CHARS } from "../codemode/pause/checkpoint.js";
import { writeFileAtomic } from "../files/atomic-write.js";

/** The permissions of a checkpoint file. */
const CHECKPOINT_FILE_MODE = 0o600;

/**
 * Checks, before anything runs, that a checkpoint can be written at `path`: its folder exists, it is not
 * a folder, and it is none of the command's other files (`others`, by option name), which it would
 * overwrite. Throws a {@link UsageError} saying what to change.
 */
export async function checkCheckpointTarget(
  path: string,
  others: Readonly<Record<string, string | undefined>>,
): Promise<void> {
  for (const [option, other] of Object.entries(others)) {
    if (other !== undefined && resolve(other) === resolve(path)) {
      throw new UsageError(
        `--checkpoint ${path} is also the ${option} file, which the checkpoint would overwrite: give another file, e.g. run.ckpt.`,
      );
    }
  }
  const folder = dirname(resolve(path));
  const isFolder = await stat(folder).then(
    (info) => info.isDirectory(),
    () => false,
  );
  if (!isFolder) {
    throw new UsageError(
      `--checkpoint ${path}: the folder ${dirname(path)} does not exist. Create it, or give a file in a folder that does.`,
    );
  }
  const target = await stat(path).catch(() => undefined);
  if (target?.isDirectory()) {
    throw new UsageError(
      `--checkpoint ${path} is a folder: give a file name, e.g. ${join(path, "run.ckpt")}.`,
    );
  }
}

/** Writes `text` to `path` with mode 0600, replacing what was there. */
export async function writeCheckpointFile(path: string, text: string): Promise<void> {
  await writeFileAtomic(path, text, { mode: CHECKPOINT_FILE_MODE });
}

/** Where a checkpoint file is kept while its resume runs, and after a resume that did not end ok. */
export function usedCheckpointPath(path: string): string {
  return `${path}.used`;
}

/**
 * Claims the checkpoint in `path` for one resume: renames it to {@link usedCheckpointPath}, and checks it
 * still holds `text`. Throws an Error saying why when another resume claimed it first or it changed
 * since it was read (it is then put back).
 */
export async function claimCheckpointFile(path: string, text: string): Promise<void> {
  const used = usedCheckpointPath(path);
  try {
    await rename(path, used);
  } catch (error) {
    const why = (error as { code?: string }).code === "ENOENT" ? "it is gone" : (error as Error).message;
    throw new Error(
      `${path} could not be claimed for this resume (${why}): another cordon resume may have used it. A checkpoint resumes once.`,
    );
  }
  const claimed = await readFile(used, "utf8").catch(() => undefined);
  if (claimed?.trim() !== text) {
    await rename(used, path).catch(() => {});
    throw new Error(`${path} changed while this resume was getting ready: run cordon resume again.`);
  }
}

/** Removes the claimed copy of a checkpoint whose resume is over. */
export async function removeUsedCheckpoint(path: string): Promise<void> {
  await unlink(usedCheckpointPath(path)).catch(() => {});
}

/** How the note a finished resume leaves in `<file>.used` begins; the time follows it. */
const RESUMED_NOTE = "cordon: this checkpoint was resumed at ";

/**
 * Replaces the claimed copy of a checkpoint whose resumed run ended ok with a note of when that was: the
 * checkpoint's content (code, arguments, results) goes, and a later resume of `path` can still say that
 * it was resumed already.
 */
export async function noteCheckpointResumed(path: string, at: Date): Promise<void> {
  const note = `${RESUMED_NOTE}${at.toISOString()}, and the run ended ok. A checkpoint resumes once: this note is what tells a later cordon resume of ${basename(path)} so. It holds nothing else and may be removed.\n`;
  await writeCheckpointFile(usedCheckpointPath(path), note);
}

/** Why `path` cannot be resumed when only its claimed copy is left: what that copy says. */
async function resumedAlready(path: string): Promise<UsageError | undefined> {
  const used = usedCheckpointPath(path);
  const head = await readStart(used, RESUMED_NOTE.length + 40);
  if (head === undefined) return undefined;
  if (head.startsWith(RESUMED_NOTE)) {
    const at = head.slice(RESUMED_NOTE.length).split(",")[0];
    return new UsageError(
      `${path} was resumed already, at ${at}, and that run ended ok: a checkpoint resumes once (${used} is the note that says so). Run the code again with cordon run to do the work again.`,
    );
  }
  return new UsageError(
    `${path} was resumed already: its used checkpoint is kept as ${used}, because resuming it again would run the calls that were decided again. Run the code again with cordon run, or, if you are sure nothing ran, rename ${used} back to ${path}.`,
  );
}

/** The first `chars` characters of a file (at most), or undefined when it cannot be read. */
async function readStart(path: string, chars: number): Promise<string | undefined> {
  const file = await open(path, "r").catch(() => undefined);
  if (file === undefined) return undefined;
  try {
    const buffer = Buffer.alloc(chars);
    const { bytesRead } = await file.read(buffer, 0, chars, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } catch {
    return undefined;
  } finally {
    await file.close();
  }
}

/**
 * The checkpoint text in `path`. Throws a {@link UsageError} saying what to do when the file is
 * missing, a folder, unreadable, empty or far too large to be a checkpoint. (Whether its text is a
 * checkpoint this host may resume is for the resume to say.)
 */
export async function readCheckpointFile(path: string): Promise<string> {
  const made = "Give the file that `cordon run --approve pause --checkpoint <file>` wrote.";
  let text: string;
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw Object.assign(new Error("it is a folder"), { code: "EISDIR" });
    // base64url text and dots: a file much larger than the cap is not a checkpoint, and is not read.
    if (info.size > MAX_CHECKPOINT_CHARS + 1_024) {
      throw new UsageError(
        `${path} is not a cordon checkpoint: it is ${groupDigits(info.size)} bytes, over the ${groupDigits(MAX_CHECKPOINT_CHARS)} a checkpoint may have. ${made}`,
      );
    }
    text = await readFile(path, "utf8");
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as { code?: string }).code;
    const why =
      code === "ENOENT"
        ? "no such file"
        : code === "EISDIR"
          ? "it is a folder"
          : code === "EACCES"
            ? "permission denied"
            : (error as Error).message;
    const already = code === "ENOENT" ? await resumedAlready(path) : undefined;
    if (already) throw already;
    throw new UsageError(`cannot read the checkpoint ${path}: ${why}. ${made}`);
  }
  const trimmed = text.trim();
  if (trimmed === "") throw new UsageError(`the checkpoint file ${path} is empty. ${made}`);
  return trimmed;
}
