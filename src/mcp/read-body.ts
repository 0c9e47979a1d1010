/** Reading an HTTP request's body within a bound, for the MCP endpoint and the approval page. */

import type { IncomingMessage } from "node:http";

/** The whole body of `req`, or `undefined` as soon as it grows past `maxBytes` (the rest is not read). */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
