/**
 * The lines `cordon mcp` reads on standard input, held to a size. The SDK's stdio transport gives up on
 * a line over its buffer's size: it closes, and the server exits without a word. Here an over-long line
 * is skipped as it arrives (never held whole), answered with a JSON-RPC error naming the limit, and the
 * lines after it are served as usual.
 */

import { Transform, type TransformCallback } from "node:stream";
import { groupDigits } from "../../common/numbers.js";

/** The longest message `cordon mcp` reads on standard input, in bytes (the SDK transport's own default). */
export const MAX_STDIO_MESSAGE_BYTES = 10 * 1024 * 1024;

/** How much of a skipped line's start, and of its end, is kept to find its request id. */
const HEAD_BYTES = 4_096;
const TAIL_BYTES = 4_096;

/** A line too long to read: the start and the end of it, and its size in bytes. */
export interface SkippedLine {
  head: string;
  /** The last bytes of the line (without its line break): where most JSON-RPC responses carry their id. */
  tail: string;
  bytes: number;
}

/** A skipped line while its bytes still arrive: the end kept so far is bytes, decoded once it is whole. */
interface Skipping {
  head: string;
  tail: Buffer;
  bytes: number;
}

/**
 * Passes whole lines through, each in one chunk; a line longer than `maxBytes` is dropped and reported
 * to `onSkipped` once its end has arrived.
 */
export class LineLimit extends Transform {
  readonly #maxBytes: number;
  readonly #onSkipped: (line: SkippedLine) => void;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** Set while the rest of an over-long line is skipped. */
  #skipping: Skipping | undefined;

  constructor(maxBytes: number, onSkipped: (line: SkippedLine) => void) {
    super();
    this.#maxBytes = maxBytes;
    this.#onSkipped = onSkipped;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(10, start);
      const end = newline === -1 ? chunk.length : newline + 1;
      this.#take(chunk.subarray(start, end), newline !== -1);
      start = end;
    }
    done();
  }

  #take(piece: Buffer, endsLine: boolean): void {
    const skipping = this.#skipping;
    if (skipping) {
      skipping.bytes += piece.length;
      skipping.tail = lastBytes(
        Buffer.concat([skipping.tail, lastBytes(piece, TAIL_BYTES + 1)]),
        TAIL_BYTES + 1,
      );
    } else {
      this.#pending.push(piece);
      this.#pendingBytes += piece.length;
      // The line's own bytes, without the line break that ends it.
      if (this.#pendingBytes - (endsLine ? 1 : 0) > this.#maxBytes) {
        const line = Buffer.concat(this.#pending);
        const headEnd = Math.min(HEAD_BYTES, line.length - (endsLine ? 1 : 0));
        this.#skipping = {
          head: line.subarray(0, headEnd).toString("utf8"),
          tail: lastBytes(line, TAIL_BYTES + 1),
          bytes: line.length,
        };
        this.#pending = [];
        this.#pendingBytes = 0;
      } else if (endsLine) {
        this.push(Buffer.concat(this.#pending));
        this.#pending = [];
        this.#pendingBytes = 0;
        return;
      }
    }
    if (endsLine && this.#skipping) {
      const skipped = this.#skipping;
      this.#skipping = undefined;
      // Its line break is not part of its size, nor of its end.
      const tail = skipped.tail.subarray(0, skipped.tail.length - 1);
      this.#onSkipped({
        head: skipped.head,
        tail: tail.subarray(Math.max(0, tail.length - TAIL_BYTES)).toString("utf8"),
        bytes: skipped.bytes - 1,
      });
    }
  }
}

/** The last `count` bytes of `bytes`, copied, so a large chunk is not kept alive by its end. */
function lastBytes(bytes: Buffer, count: number): Buffer {
  return Buffer.from(bytes.subarray(Math.max(0, bytes.length - count)));
}

/**
 * The JSON-RPC error that answers a skipped line: for its request id when its start names one (else
 * `null`, as JSON-RPC answers a request it could not read).
 */
export function skippedLineError(line: SkippedLine, maxBytes: number): string {
  const found = /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)/.exec(line.head);
  let id: string | number | null = null;
  if (found?.[1] !== undefined) {
    try {
      const parsed: unknown = JSON.parse(found[1]);
      if (typeof parsed === "string" || typeof parsed === "number") id = parsed;
    } catch {
      id = null;
    }
  }
  const message = `The message is ${groupDigits(line.bytes)} bytes, over the ${groupDigits(maxBytes)} bytes cordon mcp reads in one message on standard input; it was not read. Send less: shorter code, and data fetched with tools rather than pasted in.`;
  return `${JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32600, message } })}\n`;
}
