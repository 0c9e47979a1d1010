/**
 * Where the `cordon` command keeps what it may compute again: one folder per user, used only while no
 * other user can write to it. Its content is code cordon runs (compiled tools modules, V8's compiled
 * code), so a folder another user made first, or can still change, would run their code as this user.
 */

import { lstatSync, mkdirSync, realpathSync } from "node:fs";
import { dirname, join, parse, sep } from "node:path";
import { xdgBaseDir } from "./xdg.js";

/**
 * `$XDG_CACHE_HOME/cordon` (an absolute XDG_CACHE_HOME), else `~/.cache/cordon`; undefined when there
 * is no home to put it in.
 */
export function cordonCacheDir(env: NodeJS.ProcessEnv): string | undefined {
  const base = xdgBaseDir(env, "XDG_CACHE_HOME");
  return base === undefined ? undefined : join(base, "cordon");
}

/** A cache folder that only this user (and root) can change, or why it may not be used. */
export type CacheFolder = { path: string } | { problem: string };

/** Write permission for the group or for others. */
const WRITABLE_BY_OTHERS = 0o022;
/** The sticky bit: in such a folder (a shared /tmp) only an entry's owner can rename or remove it. */
const STICKY = 0o1000;

/**
 * The cache folder `$XDG_CACHE_HOME/cordon/<parts>` (made, private, when missing) once it is checked:
 * every folder from the file system's root down to the cache's parent must belong to this user or root
 * and be writable by no one else, unless it is sticky (a shared /tmp, where no one else can move this
 * user's entries); `cordon` and the folders under it must belong to this user, be writable by no one
 * else even when sticky, and not be symbolic links. Without that, another user could put a module
 * there, or swap a folder for one of theirs after the check. Undefined when there is no home for a
 * cache or it cannot be made (a read-only home). On a system without user ids (Windows) the folder is
 * only named.
 */
export function cacheFolder(env: NodeJS.ProcessEnv, parts: readonly string[]): CacheFolder | undefined {
  const root = cordonCacheDir(env);
  if (root === undefined) return undefined;
  const uid = process.getuid?.();
  if (uid === undefined) return { path: join(root, ...parts) };
  try {
    mkdirSync(dirname(root), { recursive: true, mode: 0o700 });
    const parent = realpathSync(dirname(root));
    let folder = parse(parent).root;
    for (const name of ["", ...parent.slice(folder.length).split(sep).filter(Boolean)]) {
      folder = join(folder, name);
      const problem = problemOf(folder, uid, "above");
      if (problem) return { problem };
    }
    for (const name of ["cordon", ...parts]) {
      folder = join(folder, name);
      try {
        mkdirSync(folder, { mode: 0o700 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const problem = problemOf(folder, uid, "own");
      if (problem) return { problem };
    }
    return { path: folder };
  } catch {
    // No cache can be made here (a read-only home, say): the command goes on without one, as it can.
    return undefined;
  }
}

/** What makes `folder` unsafe for this user's cache, and what to do about it; undefined when nothing does. */
function problemOf(folder: string, uid: number, place: "above" | "own"): string | undefined {
  const stats = lstatSync(folder);
  const elsewhere = "set XDG_CACHE_HOME to a folder of your own";
  const mine = stats.uid === uid;
  const removeIt = "remove it (cordon makes it again, private to you)";
  if (stats.isSymbolicLink()) {
    return `${folder} is a symbolic link: ${mine && place === "own" ? `${removeIt}, or ` : ""}${elsewhere}`;
  }
  if (!stats.isDirectory()) return `${folder} is not a folder: move it away, or ${elsewhere}`;
  if (!mine && (place === "own" || stats.uid !== 0)) {
    const allowed = place === "own" ? `you (uid ${uid})` : `you (uid ${uid}) or root`;
    return `${folder} belongs to uid ${stats.uid}, not to ${allowed}: ${elsewhere}`;
  }
  const mode = stats.mode & 0o7777;
  if ((mode & WRITABLE_BY_OTHERS) === 0 || (place === "above" && (mode & STICKY) !== 0)) return undefined;
  // What another user may have put in a folder of cordon's own is not to be trusted: it goes.
  const fix = !mine
    ? elsewhere
    : place === "own"
      ? `${removeIt}, or ${elsewhere}`
      : `run chmod go-w ${folder}, or ${elsewhere}`;
  return `${folder} can be written by other users (mode ${mode.toString(8).padStart(4, "0")}): ${fix}`;
}

const warned = new Set<string>();

/**
 * Says once on stderr (per process) that the cache is not used and why; the command goes on without it.
 */
export function warnCacheNotUsed(problem: string): void {
  if (warned.has(problem)) return;
  warned.add(problem);
  process.stderr.write(`cordon: warning: not using the cache, because ${problem}.\n`);
}
