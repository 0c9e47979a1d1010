/**
 * The --observed-types file: the result types code mode learnt, kept between runs of the command
 * (`cordon run` and `cordon mcp` write it, `cordon types` shows it). JSON as `ObservedTypes.toJSON()`
 * gives it; replaced whole (written beside it, then renamed over it), so that a crash or a reader at
 * the wrong moment never sees half of one. Several processes writing one file: the last write wins.
 * The keys of real results are in it (an e-mail address, a project's code name): it is written readable
 * by its owner alone (0600), and a file found readable by others is made so at the start.
 */

import { chmod, readFile, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { messageOf, UsageError } from "../../common/errors.js";
import { groupDigits } from "../../common/numbers.js";
import { ObservedTypes } from "../codemode/observed/store.js";
import { writeFileAtomic } from "../files/atomic-write.js";

/** The largest file read as observed types, in bytes: far above what a full store writes. */
const MAX_OBSERVED_TYPES_FILE_BYTES = 64 * 1024 * 1024;

/** The mode the file is written with: its owner reads and writes it, nobody else. */
const OBSERVED_TYPES_FILE_MODE = 0o600;

/** The store a --observed-types file holds, and whether the file was there (with its permission bits). */
export interface ObservedTypesFile {
  store: ObservedTypes;
  existed: boolean;
  /** The permission bits of the file found (`0o644`), when it existed. */
  mode?: number;
}

/**
 * The store in `path`. A file that does not exist is an empty store when `missing` is `"empty"` (the
 * commands that write it: their first run makes it), and a {@link UsageError} when it is `"error"`.
 * Throws a UsageError saying what is wrong and what to do for a folder, an unreadable file, one that
 * is not JSON or not a store of observed types, a folder to write it in that does not exist, or one of
 * the command's `others` files.
 */
export async function readObservedTypesFile(
  path: string,
  missing: "empty" | "error",
  /** The command's other files, by option name: the observed types must not overwrite one. */
  others: Readonly<Record<string, string | undefined>> = {},
): Promise<ObservedTypesFile> {
  const option = `--observed-types ${path}`;
  for (const [other, file] of Object.entries(others)) {
    if (file !== undefined && resolve(file) === resolve(path)) {
      throw new UsageError(
        `${option} is also the ${other} file, which the observed types would overwrite: give another file, e.g. observed-types.json.`,
      );
    }
  }
  const remedy = "Give the file cordon run or cordon mcp wrote with --observed-types, or a new file name.";
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => error);
  if (info instanceof Error) {
    if (info.code !== "ENOENT") throw new UsageError(`${option}: cannot read it (${info.message}).`);
    if (missing === "error") {
      throw new UsageError(
        `${option}: no such file. cordon run and cordon mcp write it when given --observed-types ${path}: run one of them first.`,
      );
    }
    const folder = dirname(resolve(path));
    const isFolder = await stat(folder).then(
      (found) => found.isDirectory(),
      () => false,
    );
    if (!isFolder) {
      throw new UsageError(
        `${option}: the folder ${dirname(path)} does not exist. Create it, or give a file in a folder that does.`,
      );
    }
    return { store: new ObservedTypes(), existed: false };
  }
  if (info.isDirectory()) {
    throw new UsageError(
      `${option} is a folder: give a file name, e.g. ${join(path, "observed-types.json")}.`,
    );
  }
  if (info.size > MAX_OBSERVED_TYPES_FILE_BYTES) {
    throw new UsageError(
      `${option} is ${groupDigits(info.size)} bytes, more than the ${groupDigits(MAX_OBSERVED_TYPES_FILE_BYTES)} a file of observed types may have. ${remedy}`,
    );
  }
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new UsageError(`${option}: cannot read it (${messageOf(error)}).`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${option} is not JSON (${messageOf(error)}). ${remedy}`);
  }
  try {
    return { store: ObservedTypes.fromJSON(json), existed: true, mode: info.mode & 0o777 };
  } catch (error) {
    throw new UsageError(`${option}: ${messageOf(error)}`);
  }
}

/** Writes `store` to `path` (mode {@link OBSERVED_TYPES_FILE_MODE}), replacing what was there in one step. */
async function writeObservedTypesFile(path: string, store: ObservedTypes): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(store)}\n`, { mode: OBSERVED_TYPES_FILE_MODE });
}

/** Writes a store to its file whenever it has changed since the last write, one write at a time. */
export interface ObservedTypesSaver {
  /** Writes the store if it changed since the last write; resolves once written (or reported). */
  save(): Promise<void>;
}

/**
 * A saver of a file's store to its `path`; its first save makes a file that did not exist, even with
 * nothing learnt. A file found readable or writable by others is made {@link OBSERVED_TYPES_FILE_MODE}
 * at once, saying so to `report`. A write that fails is reported to `report` (with what to do; once,
 * until a write works again), never thrown: losing learnt types must not fail the command's own work.
 */
export function observedTypesSaver(
  path: string,
  { store, existed, mode }: ObservedTypesFile,
  report: (line: string) => void,
): ObservedTypesSaver {
  let written = existed ? store.changes : -1;
  let failing = false;
  let writing: Promise<void> =
    mode !== undefined && (mode & ~OBSERVED_TYPES_FILE_MODE) !== 0
      ? keepPrivate(path, mode, report)
      : Promise.resolve();
  const save = (): Promise<void> => {
    writing = writing.then(async () => {
      const changes = store.changes;
      if (changes === written) return;
      try {
        await writeObservedTypesFile(path, store);
        written = changes;
        failing = false;
      } catch (error) {
        // Said once until a write works again, not at every save.
        if (failing) return;
        failing = true;
        report(
          `could not save the observed result types to ${path} (${messageOf(error)}); check that its folder is writable.`,
        );
      }
    });
    return writing;
  };
  return { save };
}

/** Makes the file at `path` (found with permission bits `mode`) readable by its owner alone, saying so. */
async function keepPrivate(path: string, mode: number, report: (line: string) => void): Promise<void> {
  const was = `--observed-types ${path} was open to other users (mode ${mode.toString(8)})`;
  try {
    await chmod(path, OBSERVED_TYPES_FILE_MODE);
    report(`${was}: cordon made it ${OBSERVED_TYPES_FILE_MODE.toString(8)}, for you alone.`);
  } catch (error) {
    report(
      `${was} and cordon could not change that (${messageOf(error)}): make it ${OBSERVED_TYPES_FILE_MODE.toString(8)} (chmod ${OBSERVED_TYPES_FILE_MODE.toString(8)} ${path}); the next write replaces it with a file only you can read.`,
    );
  }
}
