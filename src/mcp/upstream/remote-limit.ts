/**
 * The longest message cordon reads from a remote upstream, held on the bytes as they arrive (the SDK's
 * transport would read a JSON body or an SSE event whole, however large): a `fetch` for the transport
 * whose responses pass through unchanged up to `maxBytes` per message. A JSON body over it, or an SSE
 * event over it, is read to its end without being kept and takes the shape of the error a stdio
 * upstream's over-long message becomes (oversized.ts), for the request it answered: the call fails
 * saying so, and the connection goes on.
 */

import { type ReadableStream, type Transformer, TransformStream } from "node:stream/web";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { RequestId } from "@modelcontextprotocol/sdk/types.js";
import { groupDigits } from "../../../common/numbers.js";
import type { SkippedLine } from "../stdio-lines.js";
import { classifySkippedLine, oversizedResponse } from "./oversized.js";

/** Characters kept of each end of a message too long to read: enough to find its id and kind. */
const KEPT_END_CHARS = 4_096;

/** Options of {@link messageLimitedFetch}. */
interface MessageLimitOptions {
  maxBytes: number;
  log: (line: string) => void;
  /** The fetch underneath. Default: the global one. */
  fetch?: FetchLike;
}

/** A fetch whose responses carry no message over `maxBytes` (see the module's comment). */
export function messageLimitedFetch(options: MessageLimitOptions): FetchLike {
  const { maxBytes, log } = options;
  return async (url, init) => {
    const response = await (options.fetch ?? fetch)(url, init);
    // A redirect is followed (or not) by the SDK, from its headers: it passes as it came.
    if (response.body === null || (response.status >= 300 && response.status < 400)) return response;
    const requestId = requestIdOf(init?.body);
    const type = response.headers.get("content-type") ?? "";
    if (type.includes("text/event-stream")) {
      const limited = response.body.pipeThrough(new TransformStream(sseLimit(maxBytes, requestId, log)));
      return new Response(limited, response);
    }
    return limitedBody(response, response.body, maxBytes, requestId, log);
  };
}

/** The id of the one JSON-RPC request a POST carried, if it carried one. */
function requestIdOf(body: RequestInit["body"]): RequestId | undefined {
  if (typeof body !== "string") return undefined;
  try {
    const message = JSON.parse(body) as { id?: unknown; method?: unknown };
    const { id } = message;
    return typeof message.method === "string" && (typeof id === "string" || typeof id === "number")
      ? id
      : undefined;
  } catch {
    return undefined;
  }
}

/** A whole body (JSON, or an error's text), kept only while it is within `maxBytes`. */
async function limitedBody(
  response: Response,
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  requestId: RequestId | undefined,
  log: (line: string) => void,
): Promise<Response> {
  const kept: Uint8Array[] = [];
  const ends = new KeptEnds();
  const decoder = new TextDecoder();
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.byteLength;
    if (bytes <= maxBytes) kept.push(chunk);
    else {
      for (const earlier of kept.splice(0)) ends.add(decoder.decode(earlier, { stream: true }));
      ends.add(decoder.decode(chunk, { stream: true }));
    }
  }
  if (bytes <= maxBytes) return new Response(Buffer.concat(kept), response);
  const line: SkippedLine = { head: ends.head, tail: ends.tail.trimEnd(), bytes };
  const size = `${groupDigits(bytes)} bytes, over the limit of ${groupDigits(maxBytes)}`;
  if (!response.ok || requestId === undefined) {
    log(`a response of ${size}, was not read`);
    return new Response(
      `A response of ${size} bytes cordon reads in one message from an upstream, was not read.`,
      {
        status: 502,
        headers: { "content-type": "text/plain" },
      },
    );
  }
  log(`an answer of ${size}, was not read; its request fails`);
  return new Response(JSON.stringify(oversizedResponse(requestId, line, maxBytes, false)), {
    status: 200,
    headers: { "content-type": "application/json" },
  });
}

/** The first and last characters of a text that arrives in pieces. */
class KeptEnds {
  head = "";
  tail = "";
  add(piece: string): void {
    if (this.head.length < KEPT_END_CHARS) this.head += piece.slice(0, KEPT_END_CHARS - this.head.length);
    this.tail = (this.tail + piece.slice(-KEPT_END_CHARS)).slice(-KEPT_END_CHARS);
  }
}

/**
 * An SSE stream's events passed through while each is within `maxBytes`; one over it is replaced by an
 * error event for the request it answered (its own id, else the POST's request), under the same event
 * id so that a resumed stream goes on after it, or dropped when it answered none (a notification, or a
 * request of the server's).
 */
function sseLimit(
  maxBytes: number,
  postRequestId: RequestId | undefined,
  log: (line: string) => void,
): Transformer<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let lines: string[] = [];
  let line = "";
  /** The current line's first characters, however long it is: whether it is blank is told from them. */
  let lineStart = "";
  let eventBytes = 0;
  /** Set while the rest of an event too long to read is skipped. */
  let skipping: KeptEnds | undefined;

  const take = (piece: string) => {
    eventBytes += Buffer.byteLength(piece);
    if (lineStart.length < 2) lineStart += piece.slice(0, 2 - lineStart.length);
    if (skipping) {
      skipping.add(piece);
      return;
    }
    line += piece;
    if (eventBytes <= maxBytes) return;
    skipping = new KeptEnds();
    skipping.add([...lines, line].join("\n"));
    lines = [];
    line = "";
  };
  const endLine = (controller: TransformStreamDefaultController<Uint8Array>) => {
    // An empty line (or a lone CR before the LF) ends the event.
    if (lineStart === "" || lineStart === "\r") endEvent(controller);
    else if (skipping) skipping.add("\n");
    else lines.push(line.replace(/\r$/, ""));
    line = "";
    lineStart = "";
  };
  const endEvent = (controller: TransformStreamDefaultController<Uint8Array>) => {
    if (skipping) {
      const replacement = replacementEvent(skipping, eventBytes);
      if (replacement !== undefined) controller.enqueue(encoder.encode(replacement));
    } else if (lines.length > 0) controller.enqueue(encoder.encode(`${lines.join("\n")}\n\n`));
    lines = [];
    line = "";
    eventBytes = 0;
    skipping = undefined;
  };
  const replacementEvent = (ends: KeptEnds, bytes: number): string | undefined => {
    const eventId = /^id: ?(.*)$/m.exec(ends.head)?.[1];
    const dataAt = ends.head.indexOf("data:");
    const head = dataAt === -1 ? "" : ends.head.slice(dataAt + 5).trimStart();
    const skipped: SkippedLine = { head, tail: ends.tail.trimEnd(), bytes };
    const message = classifySkippedLine(skipped);
    const size = `${groupDigits(bytes)} bytes, over the limit of ${groupDigits(maxBytes)}`;
    const answered =
      message.kind === "response" ? message.id : message.kind === "unknown" ? postRequestId : undefined;
    if (answered === undefined) {
      log(`a ${message.kind === "unknown" ? "message" : message.kind} of ${size}, was not read`);
      return undefined;
    }
    log(`an answer of ${size}, was not read; its request fails`);
    const error = JSON.stringify(oversizedResponse(answered, skipped, maxBytes, false));
    return `${eventId === undefined ? "" : `id: ${eventId}\n`}event: message\ndata: ${error}\n\n`;
  };

  return {
    transform(chunk, controller) {
      const text = decoder.decode(chunk, { stream: true });
      let start = 0;
      for (;;) {
        const newline = text.indexOf("\n", start);
        take(newline === -1 ? text.slice(start) : text.slice(start, newline));
        if (newline === -1) return;
        start = newline + 1;
        endLine(controller);
      }
    },
    flush(controller) {
      take(decoder.decode());
      if (line !== "") lines.push(line.replace(/\r$/, ""));
      endEvent(controller);
    },
  };
}
