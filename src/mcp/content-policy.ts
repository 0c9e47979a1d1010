/**
 * What content a run may hand an MCP client. The model's code chooses every field of an item it returns,
 * and a client renders them: an "image" of type text/html, an SVG with an `onload`, "audio" that is a
 * Windows program, a link to `javascript:` or `file:`, a name that reverses or clears the line it is
 * shown on. So MIME types are allowed per content type, URIs per scheme (an upstream's own URIs pass as
 * it sent them), and names, titles and descriptions are escaped. What is refused is replaced by a note
 * saying what and why, never dropped in silence.
 */

import type { ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import { visibleText } from "../dispatch/preview.js";

/** The image types sent to the client. */
export const IMAGE_MIME_TYPES: readonly string[] = [
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "image/avif",
  "image/bmp",
];

/** SVG: an image that can carry scripts and links, sent only when the operator allows it. */
export const SVG_MIME_TYPE = "image/svg+xml";

/** The audio types sent to the client. */
export const AUDIO_MIME_TYPES: readonly string[] = [
  "audio/wav",
  "audio/x-wav",
  "audio/wave",
  "audio/mpeg",
  "audio/ogg",
  "audio/opus",
  "audio/webm",
  "audio/flac",
  "audio/aac",
  "audio/mp4",
];

/**
 * The types an embedded resource or a resource link may declare (or none): plain text and data formats,
 * PDF, bytes, and the image and audio types above; nothing a client would run or render as a page.
 */
export const RESOURCE_MIME_TYPES: readonly string[] = [
  "text/plain",
  "text/markdown",
  "text/csv",
  "text/tab-separated-values",
  "application/json",
  "application/x-ndjson",
  "application/yaml",
  "application/pdf",
  "application/octet-stream",
  ...IMAGE_MIME_TYPES,
  ...AUDIO_MIME_TYPES,
];

/** The URI schemes of resources and links the code makes itself. */
export const URI_SCHEMES: readonly string[] = ["https:", "http:"];

/** The option of `cordon mcp` that lets SVG images through. */
export const ALLOW_SVG_OPTION = "--allow-svg";

/** What a run's content is held to. */
export interface ContentPolicy {
  /** Send SVG images too ({@link SVG_MIME_TYPE}). Default false. */
  allowSvg?: boolean;
  /** URIs upstream servers sent during the run: an item carrying one passes whatever its scheme. */
  upstreamUris?: ReadonlySet<string>;
}

/** An item the client may have (its MIME type normalised, its names escaped), or why not. */
export type ContentVerdict = { block: ContentBlock } | { refused: string };

/**
 * Holds a valid block (see `toContentBlock`) to `policy`: its MIME type must be allowed for its content
 * type ({@link IMAGE_MIME_TYPES}, {@link AUDIO_MIME_TYPES}, {@link RESOURCE_MIME_TYPES}) and is sent as
 * `type/subtype` in lower case with only a `charset` parameter; a URI must use one of
 * {@link URI_SCHEMES} unless an upstream sent it, and may hide no characters; a link's name, title and
 * description are escaped (see `visibleText`). A refusal is the note that stands in the item's place.
 */
export function judgeContent(block: ContentBlock, policy: ContentPolicy = {}): ContentVerdict {
  switch (block.type) {
    case "image":
    case "audio": {
      const mimeType = allowedMimeType(
        block.mimeType,
        block.type === "image" ? imageTypes(policy) : AUDIO_MIME_TYPES,
      );
      if (mimeType === undefined) return refused(block, mimeTypeRule(block.type, policy));
      return { block: { type: block.type, mimeType, data: block.data } };
    }
    case "resource": {
      const { uri, mimeType } = block.resource;
      const uriProblem = uriRule(uri, policy);
      if (uriProblem !== undefined) return refused(block, uriProblem);
      const allowed = mimeType === undefined ? undefined : allowedMimeType(mimeType, RESOURCE_MIME_TYPES);
      if (mimeType !== undefined && allowed === undefined)
        return refused(block, mimeTypeRule("resource", policy));
      return {
        block: {
          type: "resource",
          resource: { ...block.resource, ...(allowed ? { mimeType: allowed } : {}) },
        },
      };
    }
    case "resource_link": {
      const uriProblem = uriRule(block.uri, policy);
      if (uriProblem !== undefined) return refused(block, uriProblem);
      const allowed =
        block.mimeType === undefined ? undefined : allowedMimeType(block.mimeType, RESOURCE_MIME_TYPES);
      if (block.mimeType !== undefined && allowed === undefined)
        return refused(block, mimeTypeRule("resource_link", policy));
      const { title, description, size } = block;
      return {
        block: {
          type: "resource_link",
          uri: block.uri,
          name: visibleText(block.name),
          ...(title === undefined ? {} : { title: visibleText(title) }),
          ...(description === undefined
            ? {}
            : { description: visibleText(description, { keepNewlines: true }) }),
          ...(allowed === undefined ? {} : { mimeType: allowed }),
          ...(size === undefined ? {} : { size }),
        },
      };
    }
    default:
      return { block };
  }
}

function imageTypes(policy: ContentPolicy): readonly string[] {
  return policy.allowSvg === true ? [...IMAGE_MIME_TYPES, SVG_MIME_TYPE] : IMAGE_MIME_TYPES;
}

// A charset parameter's value: an RFC 2045 token.
const CHARSET = /;\s*charset\s*=\s*"?([A-Za-z0-9!#$%&'*+.^_`|~-]{1,40})"?\s*(?:;|$)/i;

/** `mimeType` as sent (`type/subtype` in lower case, its charset kept) when `allowed` has it. */
function allowedMimeType(mimeType: string, allowed: readonly string[]): string | undefined {
  const essence = mimeType.split(";")[0]!.trim().toLowerCase();
  if (!allowed.includes(essence)) return undefined;
  const charset = CHARSET.exec(mimeType)?.[1];
  return charset === undefined ? essence : `${essence}; charset=${charset.toLowerCase()}`;
}

function mimeTypeRule(type: ContentBlock["type"], policy: ContentPolicy): string {
  if (type === "image") {
    const svg =
      policy.allowSvg === true
        ? ""
        : ` (${SVG_MIME_TYPE} only when the server allows it: cordon mcp ${ALLOW_SVG_OPTION})`;
    return `an image is sent only as ${IMAGE_MIME_TYPES.join(", ")}${svg}`;
  }
  if (type === "audio") return `audio is sent only as ${AUDIO_MIME_TYPES.join(", ")}`;
  return `a resource is sent only with no MIME type or one of ${RESOURCE_MIME_TYPES.join(", ")}`;
}

/** Why `uri` may not go to the client, or undefined when it may. */
function uriRule(uri: string, policy: ContentPolicy): string | undefined {
  if (visibleText(uri) !== uri) return "its URI holds invisible, control or bidirectional characters";
  if (policy.upstreamUris?.has(uri) === true) return undefined;
  const scheme = new URL(uri).protocol;
  if (URI_SCHEMES.includes(scheme)) return undefined;
  return `its URI is ${scheme}, and a URI the code makes is sent only as ${URI_SCHEMES.join(" or ")} (an upstream server's own URIs pass as it sent them)`;
}

function refused(block: ContentBlock, why: string): ContentVerdict {
  return { refused: `[${describe(block)}: not sent, ${why}]` };
}

/** The item in a few words, from fields already checked to be short printable ASCII. */
function describe(block: ContentBlock): string {
  switch (block.type) {
    case "image":
    case "audio":
      return `${block.type} ${block.mimeType}`;
    case "resource":
      return `resource${block.resource.mimeType === undefined ? "" : ` ${block.resource.mimeType}`}`;
    case "resource_link":
      return `resource link${block.mimeType === undefined ? "" : ` ${block.mimeType}`}`;
    default:
      return "content";
  }
}
