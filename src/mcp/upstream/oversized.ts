/**
 * A message from an upstream server too long to read, and what it becomes: an error for the request it
 * answered (found by the id at its start or end, since it is never read whole), an error back to the
 * server for a request of its own, or, when nothing says whom it was for, an error for every request still
 * waiting on that server, so none of them waits for an answer that was dropped.
 */

import type { JSONRPCErrorResponse, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { groupDigits } from "../../../common/numbers.js";
import type { SkippedLine } from "../stdio-lines.js";

/** What a skipped line was, as far as its start and end tell. */
export type SkippedMessage =
  | { kind: "response"; id: RequestId }
  | { kind: "request"; id: RequestId }
  | { kind: "notification" }
  | { kind: "unknown" };

/** What the error of a message too long to read carries in its `data`, for the call to explain it. */
export interface OversizedData {
  cordonReason: "upstream-message-too-large";
  bytes: number;
  maxBytes: number;
  /** Set when the message named no request: every call waiting on the server got this error. */
  unattributed: boolean;
}

/** The JSON-RPC error code of the error a message too long to read becomes. */
const OVERSIZED_ERROR_CODE = -32_603;

const ID = String.raw`("(?:[^"\\]|\\.)*"|-?\d+)`;
/** `{"id":N` or `{"jsonrpc":"2.0","id":N` at the very start: a top-level id, as most SDKs but TypeScript's write it. */
const ID_AT_START = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}`);
/** `"id":N}` at the very end: a top-level id, as the TypeScript SDK writes it (after the result). */
const ID_AT_END = new RegExp(String.raw`"id"\s*:\s*${ID}\s*\}\s*$`);
/** The first of these keys in a message tells what it is (nested ones come after the top-level one). */
const FIRST_KIND_KEY = /"(result|error|method)"\s*:/;

/** Reads what a skipped line was from its start and end. */
export function classifySkippedLine(line: SkippedLine): SkippedMessage {
  const id = idOf(ID_AT_START.exec(line.head)?.[1]) ?? idOf(ID_AT_END.exec(line.tail)?.[1]);
  const kindKey = FIRST_KIND_KEY.exec(line.head)?.[1];
  if (kindKey === "method") return id === undefined ? { kind: "notification" } : { kind: "request", id };
  if ((kindKey === "result" || kindKey === "error") && id !== undefined) return { kind: "response", id };
  return { kind: "unknown" };
}

function idOf(text: string | undefined): RequestId | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "string" || typeof parsed === "number" ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The error response that takes the place of a message too long to read, for request `id`. */
export function oversizedResponse(
  id: RequestId,
  line: SkippedLine,
  maxBytes: number,
  unattributed: boolean,
): JSONRPCErrorResponse {
  const data: OversizedData = {
    cordonReason: "upstream-message-too-large",
    bytes: line.bytes,
    maxBytes,
    unattributed,
  };
  return {
    jsonrpc: "2.0",
    id,
    error: { code: OVERSIZED_ERROR_CODE, message: oversizedSummary(line.bytes, maxBytes), data },
  };
}

/** The error sent back to an upstream for a request of its own that was too long to read. */
export function oversizedRequestAnswer(
  id: RequestId,
  line: SkippedLine,
  maxBytes: number,
): JSONRPCErrorResponse {
  return {
    jsonrpc: "2.0",
    id,
    error: { code: -32_600, message: oversizedSummary(line.bytes, maxBytes) },
  };
}

/** One sentence on a message too long to read. */
function oversizedSummary(bytes: number, maxBytes: number): string {
  return `A message of ${groupDigits(bytes)} bytes is over the ${groupDigits(maxBytes)} bytes cordon reads in one message from an upstream MCP server; it was not read.`;
}

/** The details of an error made by {@link oversizedResponse}, or undefined for any other error. */
export function oversizedDataOf(error: unknown): OversizedData | undefined {
  const data = (error as { data?: unknown } | undefined)?.data;
  if (typeof data !== "object" || data === null) return undefined;
  const candidate = data as Partial<OversizedData>;
  if (candidate.cordonReason !== "upstream-message-too-large") return undefined;
  if (typeof candidate.bytes !== "number" || typeof candidate.maxBytes !== "number") return undefined;
  return { ...(candidate as OversizedData), unattributed: candidate.unattributed === true };
}
