// Checkpoints are sealed: a checkpoint that was tampered with, made with another key, expired, or made
// for other code, tools or limits is refused before anything of it is used.
import { createHmac, randomBytes } from "node:crypto";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { UserError } from "../../common/errors.js";
import { groupDigits } from "../../common/numbers.js";
import {
  CHECKPOINT_VERSION,
  CheckpointRefused,
  checkpointKeyBytes,
  digestOf,
  MAX_CHECKPOINT_BODY_BYTES,
  MAX_CHECKPOINT_CHARS,
  openCheckpoint,
  sealCheckpoint,
} from "../../src/codemode/pause/checkpoint.js";

const KEY = checkpointKeyBytes("a host's secret of thirty-two bytes");
const BINDING = {
  code: digestOf("await tools.refund({ id: 'A1' })"),
  tools: digestOf([{ name: "refund", parameters: { type: "object" } }]),
  limits: digestOf({ timeoutMs: 30_000 }),
};
const STATE = { journal: [{ call: 1, ok: true, value: 42 }], pending: [{ id: "p1", tool: "refund" }] };

function refusal(action: () => unknown): CheckpointRefused {
  try {
    action();
  } catch (error) {
    if (error instanceof CheckpointRefused) return error;
    throw error;
  }
  throw new Error("the checkpoint was not refused");
}

describe("checkpoints", () => {
  it("open with the key, code, tools and limits they were made with, and give back their state", () => {
    const { text, body } = sealCheckpoint({ ...BINDING, state: STATE }, KEY, { now: 1_000 });
    const opened = openCheckpoint(text, KEY, BINDING, 2_000);
    expect(opened).toEqual(body);
    expect(opened.state).toEqual(STATE);
    expect(opened.expires).toBe(1_000 + 24 * 60 * 60_000);
  });

  it("tampering with any one character is refused", () => {
    const { text } = sealCheckpoint({ ...BINDING, state: STATE }, KEY, { now: 1_000 });
    for (let i = 0; i < text.length; i++) {
      const flipped = text.slice(0, i) + (text[i] === "A" ? "B" : "A") + text.slice(i + 1);
      if (flipped === text) continue;
      const { problem } = refusal(() => openCheckpoint(flipped, KEY, BINDING, 2_000));
      expect(["altered", "malformed", "version", "another-key"]).toContain(problem);
    }
  });

  it("a body rewritten by someone without the key is refused as altered", () => {
    const { text } = sealCheckpoint({ ...BINDING, state: STATE }, KEY, { now: 1_000 });
    const parts = text.split(".");
    const body = JSON.parse(inflateRawSync(Buffer.from(parts[3]!, "base64url")).toString());
    body.state.journal[0].value = 1_000_000;
    parts[3] = deflateRawSync(Buffer.from(JSON.stringify(body))).toString("base64url");
    expect(refusal(() => openCheckpoint(parts.join("."), KEY, BINDING, 2_000)).problem).toBe("altered");
  });

  it("a checkpoint made with another key is refused, saying so", () => {
    const { text } = sealCheckpoint(
      { ...BINDING, state: STATE },
      checkpointKeyBytes("another host's secret key!!"),
    );
    const refused = refusal(() => openCheckpoint(text, KEY, BINDING));
    expect(refused.problem).toBe("another-key");
    expect(refused.message).toContain("made with another checkpoint key");
  });

  it("an expired checkpoint is refused", () => {
    const { text } = sealCheckpoint({ ...BINDING, state: STATE }, KEY, { now: 1_000, ttlMs: 60_000 });
    expect(openCheckpoint(text, KEY, BINDING, 60_999).id).toBeTypeOf("string");
    const refused = refusal(() => openCheckpoint(text, KEY, BINDING, 61_000));
    expect(refused.problem).toBe("expired");
    expect(refused.message).toContain("1970-01-01T00:01:01.000Z");
  });

  it("a checkpoint of other code, a changed tool schema or a changed limit is refused, naming which", () => {
    const { text } = sealCheckpoint({ ...BINDING, state: STATE }, KEY);
    const changedTools = digestOf([
      { name: "refund", parameters: { type: "object", properties: { amount: {} } } },
    ]);
    expect(refusal(() => openCheckpoint(text, KEY, { ...BINDING, code: digestOf("other") })).problem).toBe(
      "code",
    );
    const tools = refusal(() => openCheckpoint(text, KEY, { ...BINDING, tools: changedTools }));
    expect(tools.problem).toBe("tools");
    expect(tools.message).toContain("their names or schemas changed");
    const limits = refusal(() =>
      openCheckpoint(text, KEY, { ...BINDING, limits: digestOf({ timeoutMs: 1 }) }),
    );
    expect(limits.problem).toBe("limits");
  });

  it("something that is not a checkpoint is refused as malformed", () => {
    for (const text of [
      "",
      "hello",
      42,
      "cordon-ckpt.1.a.b",
      `cordon-ckpt.1.${"x".repeat(MAX_CHECKPOINT_CHARS)}`,
    ]) {
      expect(refusal(() => openCheckpoint(text, KEY, BINDING)).problem).toBe("malformed");
    }
  });

  it("digests do not depend on the order of object keys", () => {
    expect(digestOf({ a: 1, b: { c: 2, d: 3 } })).toBe(digestOf({ b: { d: 3, c: 2 }, a: 1 }));
    expect(digestOf({ a: 1 })).not.toBe(digestOf({ a: 2 }));
  });

  it("a key that is missing or too short to be a secret is a UserError", () => {
    expect(() => checkpointKeyBytes(undefined)).toThrow(UserError);
    expect(() => checkpointKeyBytes("short")).toThrow(/at least 16 bytes/);
    expect(checkpointKeyBytes(new Uint8Array(32)).length).toBe(32);
  });

  it("an 84 K-character checkpoint that inflates to 60 MB (a decompression bomb sealed with the key) is refused before it is parsed, naming the cap", () => {
    // What a key holder could seal: 60 MB of one letter deflates to about 80,000 characters.
    const body = { ...BINDING, id: "bomb", created: 0, expires: Date.now() + 60_000, state: "" };
    const json = Buffer.from(JSON.stringify({ ...body, state: "a".repeat(60_000_000) }));
    const head = `cordon-ckpt.${CHECKPOINT_VERSION}.${keyIdOf(KEY)}.${deflateRawSync(json).toString("base64url")}`;
    const bomb = `${head}.${createHmac("sha256", KEY).update(head).digest("base64url")}`;
    expect(bomb.length).toBeLessThan(100_000);
    const refused = refusal(() => openCheckpoint(bomb, KEY, BINDING));
    expect(refused.problem).toBe("malformed");
    expect(refused.message).toContain(
      `inflates to more than ${groupDigits(MAX_CHECKPOINT_BODY_BYTES)} bytes, the most a checkpoint may hold`,
    );
  });

  it("a run that recorded more than the body cap cannot be sealed, naming the cap", () => {
    const big = { ...BINDING, state: { journal: "b".repeat(MAX_CHECKPOINT_BODY_BYTES) } };
    expect(() => sealCheckpoint(big, KEY)).toThrow(
      `over the cap of ${groupDigits(MAX_CHECKPOINT_BODY_BYTES)}: the run recorded too much before it paused`,
    );
  });

  it("a checkpoint over the size cap cannot be sealed", () => {
    // Random text does not compress: the sealed checkpoint is as long as it is.
    const big = { ...BINDING, state: { journal: randomBytes(MAX_CHECKPOINT_CHARS).toString("base64") } };
    expect(() => sealCheckpoint(big, KEY)).toThrow(RangeError);
  });
});

/** The key id a checkpoint names: how cordon writes it (a digest of the key, not the key). */
function keyIdOf(key: Buffer): string {
  return createHmac("sha256", key).update("cordon checkpoint key id").digest("base64url").slice(0, 16);
}
