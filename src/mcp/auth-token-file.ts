/**
 * The static bearer token of `cordon mcp --http --auth-token-file FILE`, for scripts: read from a file
 * only its owner can read or write (0600, or stricter), and compared in constant time.
 */

import { createHash, timingSafeEqual } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { UsageError } from "../../common/errors.js";

/** The shortest token accepted, in characters: a guessable one would protect nothing. */
export const MIN_STATIC_TOKEN_CHARS = 32;

const MAX_TOKEN_FILE_BYTES = 4096;

/** A static token: whether a presented one is it. */
export interface StaticToken {
  matches(presented: string): boolean;
}

/** Reads the token in `path` (its first line), refusing a file others could read or a short token. */
export async function readStaticTokenFile(path: string): Promise<StaticToken> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch (error) {
    throw new UsageError(`--auth-token-file ${path} cannot be read: ${(error as Error).message}.`);
  }
  if (!info.isFile() || info.size > MAX_TOKEN_FILE_BYTES) {
    throw new UsageError(`--auth-token-file ${path} is not a file of one line, the token.`);
  }
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) {
    throw new UsageError(
      `--auth-token-file ${path} belongs to another user (uid ${info.uid}): keep the token in a file of your own, mode 600.`,
    );
  }
  if (process.platform !== "win32" && (info.mode & 0o077) !== 0) {
    const mode = (info.mode & 0o777).toString(8).padStart(3, "0");
    throw new UsageError(
      `--auth-token-file ${path} has mode ${mode}: other users may read the token. Make it readable by its owner alone: chmod 600 ${path}`,
    );
  }
  const token = (await readFile(path, "utf8")).split(/\r?\n/, 1)[0]!.trim();
  if (token.length < MIN_STATIC_TOKEN_CHARS) {
    throw new UsageError(
      `--auth-token-file ${path} holds a token of ${token.length} characters; it needs at least ${MIN_STATIC_TOKEN_CHARS} (for example: openssl rand -hex 32 > ${path}).`,
    );
  }
  const expected = digest(token);
  // Digests of equal length, so that the comparison's time says nothing about the token, not even its length.
  return { matches: (presented) => timingSafeEqual(digest(presented), expected) };
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}
