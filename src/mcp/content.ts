/**
 * MCP content in code, both ways: an upstream's content blocks become plain data the model's code can
 * read (`{ type: "image", mimeType, data }` …), and the content items a run returns are found, checked
 * (the code is untrusted) and turned back into MCP content blocks for the client.
 */

import type { ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import { groupDigits } from "../../common/numbers.js";
import type { JsonSchema } from "../tools/types.js";
import { type ContentPolicy, judgeContent } from "./content-policy.js";

/** A content item as code sees it: an MCP content block without `_meta` and `annotations`. */
export type ContentItem =
  | { type: "text"; text: string }
  | { type: "image" | "audio"; mimeType: string; data: string }
  | { type: "resource"; resource: ResourceContents }
  | {
      type: "resource_link";
      uri: string;
      name: string;
      title?: string;
      description?: string;
      mimeType?: string;
      size?: number;
    };

/** An embedded resource's contents: its text, or its bytes in base64 (`blob`). */
type ResourceContents =
  | { uri: string; mimeType?: string; text: string }
  | { uri: string; mimeType?: string; blob: string };

/** The most content items one run sends to the client; items beyond stay in the text report. */
export const MAX_CONTENT_ITEMS = 20;

/**
 * The most characters (base64 data, text, URIs and names together) the content items of one run may
 * carry; an item that would go over stays in the text report.
 */
export const MAX_CONTENT_CHARS = 8_000_000;

/** How deep in a run's returned value items are looked for: 0 is the value, 1 its items or properties. */
const MAX_CONTENT_DEPTH = 2;

/** The longest URI an item may carry. */
export const MAX_URI_CHARS = 8_192;

/** The longest MIME type an item may carry. */
const MAX_MIME_TYPE_CHARS = 255;

/**
 * What code receives for an upstream result without `structuredContent`: the text when every block is
 * text (the blocks' texts joined by newlines), else every block as a {@link ContentItem}, in order.
 */
export function contentForCode(content: readonly ContentBlock[]): string | ContentItem[] {
  if (content.every((block) => block.type === "text")) return content.map((block) => block.text).join("\n");
  return content.map(toContentItem);
}

function toContentItem(block: ContentBlock): ContentItem {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "image":
    case "audio":
      return { type: block.type, mimeType: block.mimeType, data: block.data };
    case "resource": {
      const { uri, mimeType } = block.resource;
      const body =
        "text" in block.resource && typeof block.resource.text === "string"
          ? { text: block.resource.text }
          : { blob: String((block.resource as { blob?: unknown }).blob ?? "") };
      return {
        type: "resource",
        resource: { uri, ...(mimeType === undefined ? {} : { mimeType }), ...body },
      };
    }
    case "resource_link": {
      return resourceLink(block);
    }
    default:
      // The SDK's client only lets the five types above through; a newer type is named, not lost silently.
      return { type: "text", text: `[content of type ${String((block as { type?: unknown }).type)}]` };
  }
}

const STRING: JsonSchema = { type: "string" };

function objectSchema(properties: Record<string, JsonSchema>, required: string[]): JsonSchema {
  return { type: "object", properties, required };
}

/**
 * The declared result of an upstream tool without an `outputSchema`: what {@link contentForCode} gives
 * (a string, or an array of content items whose `data` and `blob` are base64), or the server's
 * `structuredContent` (an object) when it sends one anyway.
 */
export const UNSTRUCTURED_RESULT_SCHEMA: JsonSchema = {
  // Declared once as `type McpToolResult` when several tools return it (see toolDeclarations).
  title: "McpToolResult",
  anyOf: [
    STRING,
    {
      type: "array",
      items: {
        anyOf: [
          objectSchema({ type: { const: "text" }, text: STRING }, ["type", "text"]),
          objectSchema({ type: { enum: ["image", "audio"] }, mimeType: STRING, data: STRING }, [
            "type",
            "mimeType",
            "data",
          ]),
          objectSchema(
            {
              type: { const: "resource" },
              resource: objectSchema({ uri: STRING, mimeType: STRING, text: STRING, blob: STRING }, ["uri"]),
            },
            ["type", "resource"],
          ),
          objectSchema({ type: { const: "resource_link" }, uri: STRING, name: STRING, mimeType: STRING }, [
            "type",
            "uri",
            "name",
          ]),
        ],
      },
    },
    { type: "object", additionalProperties: true },
  ],
};

/** A run's returned value with its content items taken out, and those items as MCP content blocks. */
export interface ExtractedContent {
  /**
   * The value, each item sent as a block replaced by a short string saying so (see {@link itemMarker}),
   * each item refused by the content policy by the note saying why.
   */
  value: unknown;
  /** The blocks to send beside the report, in the order they were found: a refused item's note is a text block. */
  blocks: ContentBlock[];
}

/**
 * Finds the image, audio, resource and resource-link items in a run's returned value: the value itself,
 * the elements of an array or the property values of an object, down to {@link MAX_CONTENT_DEPTH}
 * (so `return { chart: await tools.media__chart({}) }` is found). Only valid items are taken, at most
 * {@link MAX_CONTENT_ITEMS} carrying at most {@link MAX_CONTENT_CHARS}; anything else (text items too)
 * stays in the value as it is. A valid item is then held to `policy` (see `judgeContent`): a refused one
 * becomes a text block and a note in the value, both saying what was not sent and why. Never throws.
 */
export function extractContent(value: unknown, policy: ContentPolicy = {}): ExtractedContent {
  const blocks: ContentBlock[] = [];
  let chars = 0;
  const visit = (node: unknown, depth: number): unknown => {
    const found = toContentBlock(node);
    if (found !== undefined) {
      const verdict = judgeContent(found, policy);
      const block: ContentBlock =
        "block" in verdict ? verdict.block : { type: "text", text: verdict.refused };
      const size = blockChars(block);
      if (blocks.length >= MAX_CONTENT_ITEMS || chars + size > MAX_CONTENT_CHARS) return node;
      blocks.push(block);
      chars += size;
      return "block" in verdict ? itemMarker(block) : verdict.refused;
    }
    if (depth >= MAX_CONTENT_DEPTH || typeof node !== "object" || node === null) return node;
    if (Array.isArray(node)) return node.map((item) => visit(item, depth + 1));
    const out: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(node)) out[key] = visit((node as Record<string, unknown>)[key], depth + 1);
    return out;
  };
  try {
    const stripped = visit(value, 0);
    return blocks.length === 0 ? { value, blocks } : { value: stripped, blocks };
  } catch {
    return { value, blocks: [] };
  }
}

/** What stands in the report for an item sent as a content block. */
function itemMarker(block: ContentBlock): string {
  switch (block.type) {
    case "image":
    case "audio":
      return `[${block.type} ${block.mimeType}, ${groupDigits(base64Bytes(block.data))} bytes: sent as MCP content]`;
    case "resource":
      return `[resource ${block.resource.uri}: sent as MCP content]`;
    case "resource_link":
      return `[resource link ${block.uri}: sent as MCP content]`;
    default:
      return "[sent as MCP content]";
  }
}

/** A resource link with only the fields it has (checked already), `_meta` and annotations left behind. */
function resourceLink(link: {
  uri: string;
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  mimeType?: string | undefined;
  size?: number | undefined;
}): Extract<ContentItem, { type: "resource_link" }> {
  const { uri, name, title, description, mimeType, size } = link;
  return {
    type: "resource_link",
    uri,
    name,
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
    ...(mimeType === undefined ? {} : { mimeType }),
    ...(size === undefined ? {} : { size }),
  };
}

/**
 * A valid MCP content block made of `item`, or undefined when it is not one: an image or audio item
 * needs a MIME type (`type/subtype`) and non-empty base64 data; a resource a URI and either text or a
 * base64 blob; a resource link a URI and a name. Only these fields are copied. Text items are not taken
 * (they are already in the report).
 */
export function toContentBlock(item: unknown): ContentBlock | undefined {
  if (!isRecord(item)) return undefined;
  switch (item.type) {
    case "image":
    case "audio": {
      const { mimeType, data } = item;
      if (!isMimeType(mimeType) || !isBase64(data) || data === "") return undefined;
      return { type: item.type, mimeType, data };
    }
    case "resource": {
      const resource = item.resource;
      if (!isRecord(resource) || !isUri(resource.uri)) return undefined;
      const { uri, mimeType, text, blob } = resource;
      if (mimeType !== undefined && !isMimeType(mimeType)) return undefined;
      const typed = mimeType === undefined ? {} : { mimeType };
      if (typeof text === "string" && blob === undefined)
        return { type: "resource", resource: { uri, ...typed, text } };
      if (isBase64(blob) && text === undefined)
        return { type: "resource", resource: { uri, ...typed, blob } };
      return undefined;
    }
    case "resource_link": {
      const { uri, name, title, description, mimeType, size } = item;
      if (!isUri(uri) || typeof name !== "string" || name === "") return undefined;
      if (title !== undefined && typeof title !== "string") return undefined;
      if (description !== undefined && typeof description !== "string") return undefined;
      if (mimeType !== undefined && !isMimeType(mimeType)) return undefined;
      if (size !== undefined && !(Number.isSafeInteger(size) && (size as number) >= 0)) return undefined;
      return resourceLink({ uri, name, title, description, mimeType, size: size as number | undefined });
    }
    default:
      return undefined;
  }
}

/** Characters a block carries, counted against {@link MAX_CONTENT_CHARS}. */
function blockChars(block: ContentBlock): number {
  switch (block.type) {
    case "image":
    case "audio":
      return block.data.length + block.mimeType.length;
    case "resource": {
      const body = "text" in block.resource ? block.resource.text : block.resource.blob;
      return block.resource.uri.length + String(body ?? "").length;
    }
    case "resource_link":
      return (
        block.uri.length + block.name.length + (block.title?.length ?? 0) + (block.description?.length ?? 0)
      );
    case "text":
      return block.text.length;
    default:
      return 0;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// RFC 6838 names for type and subtype, then optional parameters (`; charset=utf-8`) in printable ASCII.
const MIME_TYPE = /^[A-Za-z0-9][\w!#$&^.+-]*\/[A-Za-z0-9][\w!#$&^.+-]*(?: *;[ -~]*)?$/;

function isMimeType(value: unknown): value is string {
  return typeof value === "string" && value.length <= MAX_MIME_TYPE_CHARS && MIME_TYPE.test(value);
}

// A flat character class and a length check, not a repeated group: linear on megabytes of data.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Whether `value` is standard base64 with padding (empty allowed). */
export function isBase64(value: unknown): value is string {
  return typeof value === "string" && value.length % 4 === 0 && BASE64.test(value);
}

function isUri(value: unknown): value is string {
  return (
    typeof value === "string" &&
    value.length <= MAX_URI_CHARS &&
    // No whitespace or control characters: URL parsing would quietly strip or encode them.
    !/[\s\p{Cc}]/u.test(value) &&
    URL.canParse(value)
  );
}

function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return (data.length / 4) * 3 - padding;
}
