/**
 * The --checkpoint file of `cordon run --approve pause`, which `cordon resume` reads and rewrites when
 * the run pauses again. It holds the checkpoint text and nothing else, readable by its owner only
 * (0600): a checkpoint carries the code, the calls' arguments and the results recorded so far. It is
 * replaced whole (written beside it, then renamed over it), so that a crash never leaves half of one.
 *
 * A checkpoint resumes once. Resuming it again would replay the same journal and run the decided calls
 * again (an approved call would take effect twice), so `cordon resume` claims the file just before the
 * run goes on, by renaming it to `<file>.used`: a second resume of the same file, at the same time or
 * later, finds nothing to resume.
 */

import { readFile, rename, stat, unlink } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { groupDigits } from "../../common/numbers.js";
import { MAX_CHECKPOINT_CHARS } from "../codemode/pause/checkpoint.js";
import { writeFileAtomic } from "../files/atomic-write.js";
import { CliUsageError } from "./cli-error.js";

/** The permissions of a checkpoint file. */
export const CHECKPOINT_FILE_MODE = 0o600;

/**
 * Checks, before anything runs, that a checkpoint can be written at `path`: its folder exists, it is not
 * a folder, and it is none of the command's other files (`others`, by option name), which it would
 * overwrite. Throws a {@link CliUsageError} saying what to change.
 */
export async function checkCheckpointTarget(
  path: string,
  others: Readonly<Record<string, string | undefined>>,
): Promise<void> {
  for (const [option, other] of Object.entries(others)) {
    if (other !== undefined && resolve(other) === resolve(path)) {
      throw new CliUsageError(
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
    throw new CliUsageError(
      `--checkpoint ${path}: the folder ${dirname(path)} does not exist. Create it, or give a file in a folder that does.`,
    );
  }
  const target = await stat(path).catch(() => undefined);
  if (target?.isDirectory()) {
    throw new CliUsageError(
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

/**
 * The checkpoint text in `path`. Throws a {@link CliUsageError} saying what to do when the file is
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
      throw new CliUsageError(
        `${path} is not a cordon checkpoint: it is ${groupDigits(info.size)} bytes, over the ${groupDigits(MAX_CHECKPOINT_CHARS)} a checkpoint may have. ${made}`,
      );
    }
    text = await readFile(path, "utf8");
  } catch (error) {
    if (error instanceof CliUsageError) throw error;
    const code = (error as { code?: string }).code;
    const why =
      code === "ENOENT"
        ? "no such file"
        : code === "EISDIR"
          ? "it is a folder"
          : code === "EACCES"
            ? "permission denied"
            : (error as Error).message;
    if (code === "ENOENT" && (await stat(usedCheckpointPath(path)).catch(() => undefined))) {
      throw new CliUsageError(
        `${path} was resumed already: its used checkpoint is kept as ${usedCheckpointPath(path)}, because resuming it again would run the calls that were decided again. Run the code again with cordon run, or, if you are sure nothing ran, rename ${usedCheckpointPath(path)} back to ${path}.`,
      );
    }
    throw new CliUsageError(`cannot read the checkpoint ${path}: ${why}. ${made}`);
  }
  const trimmed = text.trim();
  if (trimmed === "") throw new CliUsageError(`the checkpoint file ${path} is empty. ${made}`);
  return trimmed;
}
