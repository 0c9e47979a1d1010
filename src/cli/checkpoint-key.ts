/**
 * The key `cordon run --approve pause` seals checkpoints with and `cordon resume` opens them with. It
 * comes from the environment variable `CORDON_CHECKPOINT_KEY` when that is set (and not empty);
 * otherwise from the key file `$XDG_CONFIG_HOME/cordon/checkpoint.key` (`~/.config/cordon/checkpoint.key`
 * when XDG_CONFIG_HOME is unset), which is created on first use with {@link KEY_FILE_BYTES} random bytes
 * written as hex, readable by its owner only (the file 0600, its folder 0700). The key is the variable's
 * text, or the file's text without its line end: setting `CORDON_CHECKPOINT_KEY` to the file's content on
 * another machine resumes there what was paused here.
 */

import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { MIN_CHECKPOINT_KEY_BYTES } from "../codemode/checkpoint.js";
import { CliUsageError } from "./cli-error.js";

/** The environment variable that holds the key. */
export const CHECKPOINT_KEY_VARIABLE = "CORDON_CHECKPOINT_KEY";

/** How many random bytes a new key file holds (written as hex: twice as many characters). */
export const KEY_FILE_BYTES = 32;

/** The permissions of the key file, and of the folder cordon creates for it. */
const FILE_MODE = 0o600;
const FOLDER_MODE = 0o700;

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

/** The path of the key file for the process environment `env`. */
export function checkpointKeyFile(env: NodeJS.ProcessEnv): string {
  const config = env.XDG_CONFIG_HOME;
  // The XDG rule: a relative XDG_CONFIG_HOME is ignored.
  const base = config && isAbsolute(config) ? config : join(homedir(), ".config");
  return join(base, "cordon", "checkpoint.key");
}

/**
 * The checkpoint key: CORDON_CHECKPOINT_KEY, or the key file (created when missing). Throws a
 * {@link CliUsageError} that says what to do when the variable is too short, or the key file is too
 * short, readable by others, or cannot be read or created.
 */
export async function loadCheckpointKey(env: NodeJS.ProcessEnv): Promise<CheckpointKeySource> {
  const variable = env[CHECKPOINT_KEY_VARIABLE];
  if (variable !== undefined && variable !== "") {
    if (Buffer.byteLength(variable, "utf8") < MIN_CHECKPOINT_KEY_BYTES) {
      throw new CliUsageError(
        `${CHECKPOINT_KEY_VARIABLE} is ${Buffer.byteLength(variable, "utf8")} bytes long; a checkpoint key must be at least ${MIN_CHECKPOINT_KEY_BYTES}. Set it to a longer secret (for example the output of \`openssl rand -hex ${KEY_FILE_BYTES}\`), or unset it to use the key file ${checkpointKeyFile(env)}.`,
      );
    }
    return { key: variable, from: "variable" };
  }
  const file = checkpointKeyFile(env);
  const existing = await readKeyFile(file);
  if (existing !== undefined) return { key: existing, from: "file", file, created: false };
  return createKeyFile(file);
}

/** The key in `file`, or undefined when there is no such file. */
async function readKeyFile(file: string): Promise<string | undefined> {
  let mode: number;
  try {
    const info = await stat(file);
    if (!info.isFile()) {
      throw new CliUsageError(
        `the checkpoint key file ${file} is not a file. Remove it, or set ${CHECKPOINT_KEY_VARIABLE}.`,
      );
    }
    mode = info.mode;
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return undefined;
    throw keyFileProblem(file, "read", error);
  }
  // Whoever can read the key can seal a checkpoint, and a checkpoint carries the code a resume runs.
  if (process.platform !== "win32" && (mode & 0o077) !== 0) {
    throw new CliUsageError(
      `the checkpoint key file ${file} can be read or written by other users (mode ${(mode & 0o777).toString(8)}). Run \`chmod 600 ${file}\`, and make a new key (delete the file) if others may have read it.`,
    );
  }
  let text: string;
  try {
    text = (await readFile(file, "utf8")).replace(/\r?\n$/, "");
  } catch (error) {
    throw keyFileProblem(file, "read", error);
  }
  if (Buffer.byteLength(text, "utf8") < MIN_CHECKPOINT_KEY_BYTES) {
    throw new CliUsageError(
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

function keyFileProblem(file: string, what: "read" | "create", error: unknown): CliUsageError {
  if (error instanceof CliUsageError) return error;
  const why = error instanceof Error ? error.message : String(error);
  return new CliUsageError(
    `cannot ${what} the checkpoint key file ${file}: ${why}. Set XDG_CONFIG_HOME to a folder you can write, or set ${CHECKPOINT_KEY_VARIABLE} to a secret of at least ${MIN_CHECKPOINT_KEY_BYTES} bytes.`,
  );
}
