/**
 * Where a paused run's large recorded values can live instead of inside its checkpoint. The checkpoint
 * keeps each value's SHA-256 digest (sealed with it), so a value read back from a store is checked and a
 * store cannot change what a resumed run sees.
 */

import { randomUUID } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { UserError } from "../errors.js";

/**
 * A place for recorded values, by key (the base64url SHA-256 digest of the value). `put` may be called
 * again with a key it has; `get` gives `undefined` for a key it does not have.
 */
export interface CheckpointStore {
  put(key: string, value: string): void | Promise<void>;
  get(key: string): string | undefined | Promise<string | undefined>;
}

/** Recorded values of at least this many characters go to the store, when there is one. */
export const MIN_STORED_VALUE_CHARS = 1_024;

/** A store in this process's memory: for tests, and for a host that pauses and resumes in one process. */
export function memoryCheckpointStore(): CheckpointStore & { readonly size: number } {
  const values = new Map<string, string>();
  return {
    put(key, value) {
      values.set(key, value);
    },
    get(key) {
      return values.get(key);
    },
    get size() {
      return values.size;
    },
  };
}

/** A digest as a file name: base64url, 43 characters. Anything else is never a path. */
const KEY = /^[A-Za-z0-9_-]{43}$/;

/**
 * A store in a directory (created if missing), one file per value, readable only by its owner (0600).
 * Several processes may share it: a value is written to a temporary file and renamed into place, so a
 * reader never sees half of one.
 */
export function fileCheckpointStore(directory: string): CheckpointStore {
  if (typeof directory !== "string" || directory === "") {
    throw new UserError("fileCheckpointStore needs the path of a directory.");
  }
  const path = (key: string) => {
    if (!KEY.test(key))
      throw new UserError(`Not a checkpoint store key: ${JSON.stringify(key.slice(0, 60))}.`);
    return join(directory, key);
  };
  return {
    async put(key, value) {
      await mkdir(directory, { recursive: true, mode: 0o700 });
      const target = path(key);
      const temporary = `${target}.${randomUUID()}.tmp`;
      await writeFile(temporary, value, { mode: 0o600 });
      await rename(temporary, target);
    },
    async get(key) {
      try {
        return await readFile(path(key), "utf8");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw error;
      }
    },
  };
}
