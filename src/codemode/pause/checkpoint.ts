/**
 * Checkpoints: a paused run, sealed so that only a host holding the same key can resume it, only before
 * it expires, and only with the code, tool set and limits it was made with. The text is
 * `cordon-ckpt.<version>.<key id>.<body>.<mac>`: the body is JSON, deflated, as base64url (a journal
 * repeats itself a lot: compressed it is several times smaller); the MAC is HMAC-SHA-256 over
 * everything before it, and the key id (a digest of the key, not the key) lets a refusal say "another
 * key" rather than "altered".
 */

import { createHash, createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { UserError } from "../../../common/errors.js";
import { zlib } from "../../../common/node-builtins.js";
import { groupDigits } from "../../../common/numbers.js";

/** The format version this cordon writes and reads. */
export const CHECKPOINT_VERSION = 3;

/** How long a checkpoint can be resumed by default: 24 hours. */
export const DEFAULT_CHECKPOINT_TTL_MS = 24 * 60 * 60_000;

/** The longest checkpoint text, in characters; a run whose checkpoint would be longer cannot pause. */
export const MAX_CHECKPOINT_CHARS = 4_000_000;

/** The shortest key a host may seal checkpoints with, in bytes. */
export const MIN_CHECKPOINT_KEY_BYTES = 16;

const PREFIX = "cordon-ckpt";

/**
 * The most bytes of JSON a checkpoint's content may hold, deflated or not (16 MiB): a run that recorded
 * more cannot pause (a checkpoint store, `pause.store`, keeps large values out of the checkpoint), and a checkpoint
 * that inflates to more is refused before it is parsed, whatever its own length (deflate packs up to
 * about 1,000 bytes into one: 80,000 characters of checkpoint can hold 60 MB).
 */
export const MAX_CHECKPOINT_BODY_BYTES = 16 * 1024 * 1024;

/** What a checkpoint is bound to: digests of the code, the tool set and the limits it was made with. */
export interface CheckpointBinding {
  code: string;
  tools: string;
  limits: string;
}

/** The sealed content of a checkpoint. `state` is code mode's own (the journal and the pending calls). */
export interface CheckpointBody<State = unknown> extends CheckpointBinding {
  /** Unique per checkpoint (a random UUID): what a resume claims, so that it resumes once. */
  id: string;
  /** When it was made and when it expires, in ms since the epoch. */
  created: number;
  expires: number;
  state: State;
}

/** Why a checkpoint was refused; nothing of it was used. */
export type CheckpointProblem =
  | "malformed"
  | "version"
  | "another-key"
  | "altered"
  | "expired"
  | "code"
  | "tools"
  | "limits"
  /** It was resumed already (its claim is held), or the host's `pause.onCheckpointUsed` refused it. */
  | "reused"
  /** A value it keeps in a checkpoint store is missing or not the one recorded, or there is no store. */
  | "store";

/** A checkpoint that cannot be resumed, and why (see {@link CheckpointProblem}). */
export class CheckpointRefused extends Error {
  override name = "CheckpointRefused";
  readonly problem: CheckpointProblem;

  constructor(problem: CheckpointProblem, message: string) {
    super(message);
    this.problem = problem;
  }
}

/** A key as the host gives it: bytes, or a string (its UTF-8 bytes). */
export type CheckpointKey = string | Uint8Array;

/** The key's bytes; a `UserError` when it is missing or too short to be a secret. */
export function checkpointKeyBytes(key: unknown): Buffer {
  const bytes =
    typeof key === "string"
      ? Buffer.from(key, "utf8")
      : key instanceof Uint8Array
        ? Buffer.from(key)
        : undefined;
  if (bytes === undefined || bytes.length < MIN_CHECKPOINT_KEY_BYTES) {
    throw new UserError(
      `a checkpoint key must be a secret of at least ${MIN_CHECKPOINT_KEY_BYTES} bytes (a string or a Uint8Array), for example 32 random bytes; the same key resumes what it paused.`,
    );
  }
  return bytes;
}

/** A stable digest of a value: SHA-256 of its JSON with object keys sorted, as base64url. */
export function digestOf(value: unknown): string {
  return createHash("sha256").update(stableJson(value)).digest("base64url");
}

/** Seals a checkpoint body under `key`; throws a RangeError when the text would be over the cap. */
export function sealCheckpoint<State>(
  content: CheckpointBinding & { state: State },
  key: Buffer,
  options: { now?: number; ttlMs?: number } = {},
): { text: string; body: CheckpointBody<State> } {
  const created = options.now ?? Date.now();
  const body: CheckpointBody<State> = {
    ...content,
    id: randomUUID(),
    created,
    expires: created + (options.ttlMs ?? DEFAULT_CHECKPOINT_TTL_MS),
  };
  const json = Buffer.from(JSON.stringify(body));
  if (json.length > MAX_CHECKPOINT_BODY_BYTES) {
    throw new RangeError(
      `The checkpoint's content would be ${groupDigits(json.length)} bytes, over the cap of ${groupDigits(MAX_CHECKPOINT_BODY_BYTES)}: the run recorded too much before it paused. A checkpoint store (pause.store) keeps large values out of the checkpoint.`,
    );
  }
  const encoded = zlib().deflateRawSync(json).toString("base64url");
  const head = `${PREFIX}.${CHECKPOINT_VERSION}.${keyId(key)}.${encoded}`;
  const text = `${head}.${mac(head, key)}`;
  if (text.length > MAX_CHECKPOINT_CHARS) {
    throw new RangeError(
      `The checkpoint would be ${groupDigits(text.length)} characters, over the cap of ${groupDigits(MAX_CHECKPOINT_CHARS)}: the run recorded too much before it paused.`,
    );
  }
  return { text, body };
}

/**
 * Opens a checkpoint made with `key` for `expected`: throws {@link CheckpointRefused} saying what is
 * wrong (not a checkpoint, another version, another key, altered, expired, other code, tools or limits;
 * a part of `expected` left out is not checked).
 */
export function openCheckpoint<State>(
  text: unknown,
  key: Buffer,
  expected: Partial<CheckpointBinding>,
  now = Date.now(),
): CheckpointBody<State> {
  if (typeof text !== "string" || text.length > MAX_CHECKPOINT_CHARS) {
    throw new CheckpointRefused(
      "malformed",
      "This is not a cordon checkpoint (not a string of the right size).",
    );
  }
  const parts = text.split(".");
  if (parts.length !== 5 || parts[0] !== PREFIX) {
    throw new CheckpointRefused(
      "malformed",
      "This is not a cordon checkpoint: its format is not recognised.",
    );
  }
  const [, version, id, encoded, given] = parts as [string, string, string, string, string];
  if (version !== String(CHECKPOINT_VERSION)) {
    throw new CheckpointRefused(
      "version",
      `This checkpoint has format version ${version.slice(0, 10)}; this cordon reads version ${CHECKPOINT_VERSION}.`,
    );
  }
  if (id !== keyId(key)) {
    throw new CheckpointRefused(
      "another-key",
      "This checkpoint was made with another checkpoint key: resume it where the key it was made with is set.",
    );
  }
  const wanted = Buffer.from(mac(text.slice(0, text.length - given.length - 1), key));
  const got = Buffer.from(given);
  if (wanted.length !== got.length || !timingSafeEqual(wanted, got)) {
    throw new CheckpointRefused(
      "altered",
      "This checkpoint was altered since it was made: it cannot be trusted.",
    );
  }
  let json: Buffer;
  try {
    // Only after the MAC: nobody without the key can make this inflate. zlib stops at the cap, so a
    // checkpoint that would inflate further costs no more memory than the cap before it is refused.
    json = zlib().inflateRawSync(Buffer.from(encoded, "base64url"), {
      maxOutputLength: MAX_CHECKPOINT_BODY_BYTES,
      // Larger chunks than zlib's 16 KB: a journal inflates to several times its size, in fewer copies.
      chunkSize: 256 * 1024,
    });
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
      throw new CheckpointRefused(
        "malformed",
        `This checkpoint's content inflates to more than ${groupDigits(MAX_CHECKPOINT_BODY_BYTES)} bytes, the most a checkpoint may hold (MAX_CHECKPOINT_BODY_BYTES): it was not read. Start the run again.`,
      );
    }
    throw new CheckpointRefused("malformed", "This checkpoint's content cannot be read.");
  }
  let body: CheckpointBody<State>;
  try {
    body = JSON.parse(json.toString("utf8")) as CheckpointBody<State>;
  } catch {
    throw new CheckpointRefused("malformed", "This checkpoint's content cannot be read.");
  }
  if (!(now < body.expires)) {
    throw new CheckpointRefused(
      "expired",
      `This checkpoint expired at ${new Date(body.expires).toISOString()}; start the run again.`,
    );
  }
  for (const what of ["code", "tools", "limits"] as const) {
    if (expected[what] !== undefined && body[what] !== expected[what]) {
      throw new CheckpointRefused(
        what,
        `This checkpoint was made for other ${DIFFERENT[what]}; it cannot resume here.`,
      );
    }
  }
  return body;
}

const DIFFERENT: Record<keyof CheckpointBinding, string> = {
  code: "code than the code given to resume it",
  tools: "tools (their names or schemas changed since it was made)",
  limits: "limits (a limit changed since it was made)",
};

function keyId(key: Buffer): string {
  return createHmac("sha256", key).update("cordon checkpoint key id").digest("base64url").slice(0, 16);
}

function mac(text: string, key: Buffer): string {
  return createHmac("sha256", key).update(text).digest("base64url");
}

function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item === null || typeof item !== "object" || Array.isArray(item)) return item;
    return Object.fromEntries(
      Object.keys(item)
        .sort()
        .map((name) => [name, (item as Record<string, unknown>)[name]]),
    );
  });
}
