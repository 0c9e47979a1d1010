/**
 * What a response body is (HTML, JSON, text or binary) and how its bytes become text.
 */
import { TextDecoder } from "node:util";

/** How web_fetch treats a body. */
export type BodyKind = "html" | "json" | "text" | "binary";

/** The media type of a Content-Type header, lower-case and without parameters (`""` when absent). */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

/** The charset parameter of a Content-Type header, if any. */
export function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? "");
  return match?.[1];
}

const TEXT_TYPES = new Set([
  "application/xml",
  "application/javascript",
  "application/ecmascript",
  "application/x-javascript",
  "application/x-sh",
  "application/x-yaml",
  "application/yaml",
  "application/toml",
  "application/sql",
  "application/graphql",
  "application/x-www-form-urlencoded",
  "application/x-ndjson",
]);

/**
 * The kind of a body from its media type; `undefined` when the type says nothing useful (absent, or
 * `application/octet-stream`, which servers send for unknown files) and the bytes must decide.
 */
export function kindOfMediaType(mediaType: string): BodyKind | undefined {
  if (mediaType === "" || mediaType === "application/octet-stream") return undefined;
  if (mediaType === "text/html" || mediaType === "application/xhtml+xml") return "html";
  if (mediaType === "application/json" || mediaType.endsWith("+json") || mediaType === "text/json") {
    return "json";
  }
  if (mediaType.startsWith("text/") || mediaType.endsWith("+xml") || TEXT_TYPES.has(mediaType)) return "text";
  return "binary";
}

/** Decides from the first bytes: NUL bytes or invalid UTF-8 mean binary, a leading tag means HTML. */
export function sniffKind(bytes: Uint8Array): BodyKind {
  const head = bytes.subarray(0, 8_000);
  if (head.includes(0)) return "binary";
  const start = new TextDecoder("latin1").decode(head.subarray(0, 512)).trimStart().toLowerCase();
  if (/^(\ufeff|ï»¿)?\s*(<!doctype html|<html|<head|<body)/.test(start)) return "html";
  if (/^[[{]/.test(start)) return "json";
  try {
    // A body cut at the download cap may end inside a character: judge the head only.
    new TextDecoder("utf-8", { fatal: true }).decode(head.subarray(0, lastCompleteUtf8(head)));
    return "text";
  } catch {
    return "binary";
  }
}

function lastCompleteUtf8(bytes: Uint8Array): number {
  let end = bytes.length;
  // Step back over at most three continuation bytes and the lead byte they belong to.
  for (let i = 1; i <= 4 && end - i >= 0; i++) {
    const byte = bytes[end - i]!;
    if ((byte & 0xc0) === 0x80) continue;
    if (byte >= 0xc0) end -= i;
    break;
  }
  return end;
}

/**
 * Decodes a body: the header's charset, else (for HTML) a `<meta charset>` in the first bytes, else
 * UTF-8. An unknown charset label falls back to UTF-8; bad bytes become U+FFFD.
 */
export function decodeBody(bytes: Uint8Array, kind: BodyKind, headerCharset: string | undefined): string {
  let label = headerCharset;
  if (label === undefined && kind === "html") {
    const head = new TextDecoder("latin1").decode(bytes.subarray(0, 2_048));
    label = /<meta[^>]+charset\s*=\s*["']?\s*([\w:.-]+)/i.exec(head)?.[1];
  }
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label ?? "utf-8");
  } catch {
    decoder = new TextDecoder("utf-8");
  }
  return decoder.decode(bytes);
}

/** JSON text compacted (no insignificant whitespace); the text as it was when it is not valid JSON. */
export function compactJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}
