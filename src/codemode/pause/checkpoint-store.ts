/**
 * Where a paused run's large recorded values can live instead of inside its checkpoint, and where a
 * checkpoint is claimed for the one resume it gets. The checkpoint keeps each value's SHA-256 digest
 * (sealed with it), so a value read back from a store is checked and a store cannot change what a
 * resumed run sees. A claim is a compare-and-set: of every resume of one checkpoint, in every process
 * that shares the store, exactly one wins.
 */

import { mkdir, readFile, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { UserError } from "../../../common/errors.js";
import { writeFileAtomic } from "../../files/atomic-write.js";

/**
 * A place for recorded values, by key (the base64url SHA-256 digest of the value), and for claims of
 * checkpoints. `put` may be called again with a key it has; `get` gives `undefined` for a key it does
 * not have. `claim` and `release` must hold across every process that shares the store: a store of your
 * own implements `claim` as one atomic step of its database (an insert that fails on a duplicate key, a
 * conditional put), never as a read followed by a write.
 */
export interface CheckpointStore {
  put(key: string, value: string): void | Promise<void>;
  get(key: string): string | undefined | Promise<string | undefined>;
  /**
   * Claims `id` (a checkpoint's id) for one resume, atomically: `true` for exactly one caller, `false`
   * for every other, at the same moment or later, until the claim is released. `expires` (ms since the
   * epoch) is when the checkpoint expires: the claim must be kept at least until then (plus the clock
   * skew between the processes that share the store), and may be forgotten after.
   */
  claim(id: string, expires: number): boolean | Promise<boolean>;
  /** Gives a claim back: its resume ended before any call went live, so the checkpoint may resume again. */
  release(id: string): void | Promise<void>;
}

/** Recorded values of at least this many characters go to the store, when there is one. */
export const MIN_STORED_VALUE_CHARS = 1_024;

/** How long a store keeps a claim after its checkpoint expired: room for clocks that disagree. */
const CLAIM_KEPT_AFTER_EXPIRY_MS = 60 * 60_000;

/** How often a memory store looks for claims it may forget. */
const CLAIM_SWEEP_MS = 60_000;

/**
 * A store in this process's memory: for tests, and for a host that pauses and resumes in one process.
 * Its claims hold within this process only.
 */
export function memoryCheckpointStore(): CheckpointStore & { readonly size: number } {
  const values = new Map<string, string>();
  /** Claimed ids, and when each may be forgotten. */
  const claims = new Map<string, number>();
  let nextSweep = 0;
  const sweep = (now: number) => {
    if (now < nextSweep) return;
    nextSweep = now + CLAIM_SWEEP_MS;
    for (const [id, until] of claims) if (until <= now) claims.delete(id);
  };
  return {
    put(key, value) {
      values.set(key, value);
    },
    get(key) {
      return values.get(key);
    },
    // Synchronous: no other claim can run between the look and the set.
    claim(id, expires) {
      sweep(Date.now());
      if (claims.has(id)) return false;
      claims.set(id, expires + CLAIM_KEPT_AFTER_EXPIRY_MS);
      return true;
    },
    release(id) {
      claims.delete(id);
    },
    get size() {
      return values.size;
    },
  };
}

/** A digest as a file name: base64url, 43 characters. Anything else is never a path. */
const KEY = /^[A-Za-z0-9_-]{43}$/;

/** A claimed id as a file name: a checkpoint id (a UUID) or a digest. Anything else is never a path. */
const CLAIM_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** The folder of a file store that holds its claims, one file per claimed id. */
const CLAIMS_FOLDER = "claims";

/**
 * A store in a directory (created if missing), one file per value, readable only by its owner (0600).
 * Several processes may share it: a value is written to a temporary file and renamed into place, so a
 * reader never sees half of one; a claim is a file in `claims/` created with O_EXCL, which exactly one
 * process can do. A claim file holds the time after which it may be deleted (its checkpoint expired).
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
  const claims = join(directory, CLAIMS_FOLDER);
  const claimPath = (id: string) => {
    if (typeof id !== "string" || !CLAIM_ID.test(id))
      throw new UserError(`Not a checkpoint id to claim: ${JSON.stringify(String(id).slice(0, 60))}.`);
    return join(claims, id);
  };
  return {
    async put(key, value) {
      await mkdir(directory, { recursive: true, mode: 0o700 });
      await writeFileAtomic(path(key), value, { mode: 0o600 });
    },
    async get(key) {
      try {
        return await readFile(path(key), "utf8");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw error;
      }
    },
    async claim(id, expires) {
      const file = claimPath(id);
      await mkdir(claims, { recursive: true, mode: 0o700 });
      try {
        // O_CREAT | O_EXCL: the file system lets exactly one process create it.
        await writeFile(file, `${new Date(expires + CLAIM_KEPT_AFTER_EXPIRY_MS).toISOString()}\n`, {
          flag: "wx",
          mode: 0o600,
        });
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
        throw error;
      }
    },
    async release(id) {
      await unlink(claimPath(id)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
      });
    },
  };
}
