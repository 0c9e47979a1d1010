/**
 * The key `cordon run --approve pause` seals checkpoints with and `cordon resume` opens them with. It
 * comes from the environment variable `CORDON_CHECKPOINT_KEY` when that is set (and not empty);
 * otherwise from the key file `$XDG_CONFIG_HOME/cordon/checkpoint.key` (`~/.config/cordon/checkpoint.key`
 * when XDG_CONFIG_HOME is unset), which is created on first use with {@link KEY_FILE_BYTES} random bytes
 * written as hex, readable by its owner only (the file 0600, its folder 0700). The key is the variable's
 * text, or the file's text without its line end: setting `CORDON_CHECKPOINT_KEY` to the file's content on
 * another machine resumes there what was paused here.
 *
 * Whoever can put a key of theirs there can seal a checkpoint whose code `cordon resume` runs, so a key
 * file is refused when it is a symbolic link (opened with O_NOFOLLOW), not this user's, or readable by
 * others, and when its folder is not this user's or others can write to it (they could replace the file).
 */

import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { chmod, mkdir, open, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { UsageError } from "../../common/errors.js";
import { groupDigits } from "../../common/numbers.js";
import { MIN_CHECKPOINT_KEY_BYTES } from "../codemode/pause/checkpoint.js";
import { xdgBaseDir } from "./xdg.js";

/** The environment variable that holds the key. */
export const CHECKPOINT_KEY_VARIABLE = "CORDON_CHECKPOINT_KEY";

/** How many random bytes a new key file holds (written as hex: twice as many characters). */
const KEY_FILE_BYTES = 32;

/** The permissions of the key file, and of the folder cordon creates for it. */
const FILE_MODE = 0o600;
const FOLDER_MODE = 0o700;

/** The largest key file read: a key file holds one line. */
const MAX_KEY_FILE_BYTES = 4_096;

/** Not through a symbolic link; and a FIFO put there opens at once instead of waiting for a writer. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** Whether ownership and permission bits mean anything here (not on Windows). */
const POSIX = process.platform !== "win32";

/** Where a checkpoint key came from. */
export interface CheckpointKeySource {
  /** The key: at least `MIN_CHECKPOINT_KEY_BYTES` bytes of UTF-8. */
  key: string;
  /** `variable`: from CORDON_CHECKPOINT_KEY; `file`: from the key file, `created` on this use or not. */
  from: "variable" | "file";
  /** The key file's path, when the key came from it. */
  file?: string;
  /** Whether the key file was created just now. */
  created?: boolean;
}

/**
 * The path of the key file for the process environment `env`: in an absolute XDG_CONFIG_HOME, else in
 * `~/.config`; undefined when there is neither.
 */
export function checkpointKeyFile(env: NodeJS.ProcessEnv): string | undefined {
  const base = xdgBaseDir(env, "XDG_CONFIG_HOME");
  return base === undefined ? undefined : join(base, "cordon", "checkpoint.key");
}

/**
 * The checkpoint key: CORDON_CHECKPOINT_KEY, or the key file (created when missing). Throws a
 * {@link UsageError} that says what to do when the variable is too short, or the key file is too
 * short, readable by others, or cannot be read or created.
 */
export async function loadCheckpointKey(env: NodeJS.ProcessEnv): Promise<CheckpointKeySource> {
  const variable = env[CHECKPOINT_KEY_VARIABLE];
  if (variable !== undefined && variable !== "") {
    if (Buffer.byteLength(variable, "utf8") < MIN_CHECKPOINT_KEY_BYTES) {
      throw new UsageError(
        `${CHECKPOINT_KEY_VARIABLE} is ${Buffer.byteLength(variable, "utf8")} bytes long; a checkpoint key must be at least ${MIN_CHECKPOINT_KEY_BYTES}. Set it to a longer secret (for example the output of \`openssl rand -hex ${KEY_FILE_BYTES}\`), or unset it to use the key file ${checkpointKeyFile(env) ?? "$XDG_CONFIG_HOME/cordon/checkpoint.key"}.`,
      );
    }
    return { key: variable, from: "variable" };
  }
  const file = checkpointKeyFile(env);
  if (file === undefined) {
    throw new UsageError(
      `there is no folder for the checkpoint key file: XDG_CONFIG_HOME is not an absolute path and there is no home folder. Set XDG_CONFIG_HOME to a folder of your own, or set ${CHECKPOINT_KEY_VARIABLE}.`,
    );
  }
  const existing = await readKeyFile(file);
  if (existing !== undefined) return { key: existing, from: "file", file, created: false };
  return createKeyFile(file);
}

/**
 * Throws a {@link UsageError} when the key file's folder is not a folder, belongs to another user,
 * or others can write to it. A folder that does not exist yet passes (cordon creates it 0700).
 */
async function checkKeyFolder(file: string): Promise<void> {
  const folder = dirname(file);
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(folder);
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return;
    throw keyFileProblem(file, "read", error);
  }
  if (!info.isDirectory()) {
    throw new UsageError(
      `${folder}, the folder of the checkpoint key file, is not a folder. Remove it, set XDG_CONFIG_HOME to another folder, or set ${CHECKPOINT_KEY_VARIABLE}.`,
    );
  }
  if (!POSIX) return;
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) {
    throw new UsageError(
      `${folder}, the folder of the checkpoint key file, belongs to another user (uid ${info.uid}), who could replace the key with one they know and seal checkpoints whose code cordon resume would run. Set XDG_CONFIG_HOME to a folder of your own, or set ${CHECKPOINT_KEY_VARIABLE}.`,
    );
  }
  if ((info.mode & 0o022) !== 0) {
    throw new UsageError(
      `${folder}, the folder of the checkpoint key file, can be written by other users (mode ${(info.mode & 0o777).toString(8)}): they could replace the key with one they know and seal checkpoints whose code cordon resume would run. Run \`chmod 700 ${folder}\`, and delete ${file} (cordon makes a new key) if others may have replaced or read it.`,
    );
  }
}

/** The key in `file`, or undefined when there is no such file. */
async function readKeyFile(file: string): Promise<string | undefined> {
  await checkKeyFolder(file);
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, OPEN_FLAGS);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP") {
      throw new UsageError(
        `the checkpoint key file ${file} is a symbolic link: cordon reads a key only from a file of its own, which a link elsewhere is not. Replace the link with the file it points to (e.g. \`cp --remove-destination "$(readlink -f ${file})" ${file}\`), or set ${CHECKPOINT_KEY_VARIABLE}.`,
      );
    }
    throw keyFileProblem(file, "read", error);
  }
  let text: string;
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      throw new UsageError(
        `the checkpoint key file ${file} is not a file. Remove it, or set ${CHECKPOINT_KEY_VARIABLE}.`,
      );
    }
    const uid = process.getuid?.();
    if (POSIX && uid !== undefined && info.uid !== uid) {
      throw new UsageError(
        `the checkpoint key file ${file} belongs to another user (uid ${info.uid}). Delete it (cordon makes a new key of yours), or set ${CHECKPOINT_KEY_VARIABLE}.`,
      );
    }
    // Whoever can read the key can seal a checkpoint, and a checkpoint carries the code a resume runs.
    if (POSIX && (info.mode & 0o077) !== 0) {
      throw new UsageError(
        `the checkpoint key file ${file} can be read or written by other users (mode ${(info.mode & 0o777).toString(8)}). Run \`chmod 600 ${file}\`, and make a new key (delete the file) if others may have read it.`,
      );
    }
    if (info.size > MAX_KEY_FILE_BYTES) {
      throw new UsageError(
        `the checkpoint key file ${file} holds ${groupDigits(info.size)} bytes, more than the ${groupDigits(MAX_KEY_FILE_BYTES)} a key file may: it holds one line, the key. Delete it (cordon makes a new one), or set ${CHECKPOINT_KEY_VARIABLE}.`,
      );
    }
    text = (await handle.readFile("utf8")).replace(/\r?\n$/, "");
  } catch (error) {
    throw keyFileProblem(file, "read", error);
  } finally {
    await handle.close();
  }
  if (Buffer.byteLength(text, "utf8") < MIN_CHECKPOINT_KEY_BYTES) {
    throw new UsageError(
      `the checkpoint key file ${file} holds ${Buffer.byteLength(text, "utf8")} bytes; a key must be at least ${MIN_CHECKPOINT_KEY_BYTES}. Delete the file and cordon makes a new one (checkpoints made with the old key can no longer be resumed), or set ${CHECKPOINT_KEY_VARIABLE}.`,
    );
  }
  return text;
}

/** Creates the key file with a new random key; when another process created it first, reads that one. */
async function createKeyFile(file: string): Promise<CheckpointKeySource> {
  const key = randomBytes(KEY_FILE_BYTES).toString("hex");
  try {
    await mkdir(dirname(file), { recursive: true, mode: FOLDER_MODE });
    // A folder that was there already may be anyone's: no key is written into it unchecked.
    await checkKeyFolder(file);
    await writeFile(file, `${key}\n`, { mode: FILE_MODE, flag: "wx" });
    // The process's umask may only have taken bits away; make the mode exact.
    await chmod(file, FILE_MODE);
  } catch (error) {
    if ((error as { code?: string }).code === "EEXIST") {
      const theirs = await readKeyFile(file);
      if (theirs !== undefined) return { key: theirs, from: "file", file, created: false };
    }
    throw keyFileProblem(file, "create", error);
  }
  return { key, from: "file", file, created: true };
}

function keyFileProblem(file: string, what: "read" | "create", error: unknown): UsageError {
  if (error instanceof UsageError) return error;
  const why = error instanceof Error ? error.message : String(error);
  return new UsageError(
    `cannot ${what} the checkpoint key file ${file}: ${why}. Set XDG_CONFIG_HOME to a folder you can write, or set ${CHECKPOINT_KEY_VARIABLE} to a secret of at least ${MIN_CHECKPOINT_KEY_BYTES} bytes.`,
  );
}
