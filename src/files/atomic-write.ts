/**
 * Files that are replaced whole: checkpoints, the checkpoint store's values, compiled tools modules and
 * their manifests, learnt result types. A reader, or a process that starts after a crash, finds the old
 * content or the new one, never half of one or an empty file.
 */

import { randomBytes } from "node:crypto";
import { type FileHandle, open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** How {@link writeFileAtomic} writes. */
export interface AtomicWriteOptions {
  /** The file's permissions, exactly (not narrowed by the umask), e.g. 0o600. */
  mode: number;
}

/**
 * Writes `data` to `path`, replacing what was there in one step: the data goes to a new temporary file
 * beside it (same folder, so the rename stays on one file system), which is flushed to disk, given
 * `mode`, and renamed over `path`; the folder is then flushed too, so that the rename survives a crash.
 * On failure the temporary file is removed and `path` is as it was. The folder must exist.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions,
): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  let file: FileHandle | undefined;
  try {
    // O_EXCL: never writes through a file (or a link) someone put there under that name.
    file = await open(temporary, "wx", options.mode);
    await file.writeFile(data);
    await file.chmod(options.mode);
    await file.sync();
    await file.close();
    file = undefined;
    await rename(temporary, path);
  } catch (error) {
    await file?.close().catch(() => {});
    await unlink(temporary).catch(() => {});
    throw error;
  }
  await syncFolder(dirname(path));
}

/** Error codes of systems that cannot open or flush a folder (Windows, some network file systems). */
const FOLDER_SYNC_UNSUPPORTED = new Set(["EISDIR", "EPERM", "EACCES", "EINVAL", "ENOTSUP", "EBADF"]);

/**
 * Flushes a folder's entries to disk (a rename, a new file or a removed one is a change of the folder),
 * where the system can.
 */
export async function syncFolder(folder: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(folder, "r");
    await handle.sync();
  } catch (error) {
    if (!FOLDER_SYNC_UNSUPPORTED.has((error as NodeJS.ErrnoException).code ?? "")) throw error;
  } finally {
    await handle?.close().catch(() => {});
  }
}
