/**
 * Reads a response body up to a byte cap, decompressing gzip, deflate and brotli on the way. The cap
 * counts decoded bytes, so a small compressed body cannot expand past it.
 */
import type { Readable } from "node:stream";
import { ToolError } from "../../common/errors.js";
import { zlib } from "../../common/node-builtins.js";

/** The bytes read, and whether the cap stopped the download before the end. */
export interface BodyBytes {
  bytes: Buffer;
  capped: boolean;
}

/** Stops reading a body and releases its connection; a late error from it is ignored. */
export function discard(body: Readable): void {
  body.on("error", () => {});
  body.destroy();
}

/** How many stacked content encodings a body may have. */
const MAX_CONTENT_ENCODINGS = 2;

function decoderFor(encoding: string): NodeJS.ReadWriteStream | undefined {
  switch (encoding) {
    case "":
    case "identity":
      return undefined;
    case "gzip":
    case "x-gzip":
      return zlib().createGunzip();
    case "deflate":
      return zlib().createInflate();
    case "br":
      return zlib().createBrotliDecompress();
    default:
      throw new ToolError(
        `The server sent the body in an encoding web_fetch cannot read (${encoding.slice(0, 100)}).`,
      );
  }
}

/**
 * Reads at most `maxBytes` decoded bytes of `body` (encoded as the Content-Encoding header says) and
 * then stops reading: the rest is never downloaded. The body stream is always destroyed at the end.
 */
export async function readCapped(
  body: Readable,
  contentEncoding: string | undefined,
  maxBytes: number,
): Promise<BodyBytes> {
  const encodings = (contentEncoding ?? "")
    .toLowerCase()
    .split(",")
    .map((e) => e.trim())
    .filter((e) => e !== "" && e !== "identity");
  if (encodings.length > MAX_CONTENT_ENCODINGS) {
    discard(body);
    throw new ToolError(
      `The server applied ${encodings.length} content encodings (at most ${MAX_CONTENT_ENCODINGS} are read); web_fetch refuses the body.`,
    );
  }
  let decoders: NodeJS.ReadWriteStream[];
  try {
    // Encodings are listed in the order they were applied: undo the last one first.
    decoders = encodings
      .reverse()
      .map(decoderFor)
      .filter((d) => d !== undefined);
  } catch (error) {
    discard(body);
    throw error;
  }
  let stream: NodeJS.ReadableStream = body;
  for (const decoder of decoders) {
    stream.on("error", (error: Error) => decoder.emit("error", error));
    stream = stream.pipe(decoder);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  let capped = false;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (total + chunk.length > maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - total));
        total = maxBytes;
        capped = true;
        break;
      }
      chunks.push(chunk);
      total += chunk.length;
    }
  } catch (error) {
    if (decoders.length > 0 && isZlibError(error)) {
      throw new ToolError(`The server's ${encodings.join(", ")} body is corrupt and cannot be decompressed.`);
    }
    throw error;
  } finally {
    discard(body);
    for (const decoder of decoders) discard(decoder as unknown as Readable);
  }
  return { bytes: Buffer.concat(chunks, total), capped };
}

function isZlibError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("Z_");
}
