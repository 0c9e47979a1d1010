/**
 * The web_fetch tool: one URL, read by a {@link PageReader}, sliced to a character budget with an
 * offset to continue, the page's own text fenced.
 */
import { z } from "zod";
import { ToolError, UserError } from "../../../common/errors.js";
import { groupDigits } from "../../../common/numbers.js";
import { tool } from "../../tools/tool.js";
import type { Tool } from "../../tools/types.js";
import { FENCE_NOTE, fence, neutralize, neutralizedFailure } from "../fence.js";
import { HttpReader, parseTarget } from "./http-reader.js";
import type { Page, PageImage, PageReader } from "./page.js";
import { formatBytes } from "./util.js";

/** Characters of page text one web_fetch call returns by default. */
export const DEFAULT_WEB_FETCH_MAX_CHARS = 20_000;
/** Characters of an error page (HTTP 4xx/5xx) the model sees. */
export const ERROR_PAGE_CHARS = 500;
/** Images listed at most when the model asks for them. */
const MAX_LISTED_IMAGES = 50;
/** A cut is moved back to a line break when one lies in the last fifth of the budget. */
const LINE_BREAK_WINDOW = 0.2;
const MAX_TITLE_CHARS = 300;
const MAX_IMAGE_URL_CHARS = 500;
const MAX_ALT_CHARS = 150;

/** Options of {@link webFetch}. */
export interface WebFetchOptions {
  /** Characters of page text per call (the rest is reached with `offset`). Default 20,000. */
  maxChars?: number;
  /** The tool's name. Default `web_fetch`. */
  name?: string;
}

/** The arguments the model sends. */
export interface WebFetchArgs {
  url: string;
  images: boolean;
  offset: number;
}

/** What web_fetch returns: the page's slice, fenced, and cordon's own facts about it. */
export interface WebFetchResult {
  /** The final URL, after redirects. */
  url: string;
  /** The URL asked for, when redirects led elsewhere. */
  redirected_from?: string;
  status: number;
  content_type: string;
  /** The page's text from `offset`, between the external-content markers (empty for binary content). */
  content: string;
  offset: number;
  /** Where the next call should continue, or null at the end. */
  next_offset: number | null;
  /** Characters of the whole page text. */
  total_chars: number;
  /** The download stopped at the reader's byte cap: the rest was never downloaded. */
  size_capped: boolean;
  /** The body is binary: only its type and size are known. */
  binary: boolean;
  /** Bytes downloaded (or announced, for binary content). */
  size_bytes?: number;
  /** The page's images, when asked for. */
  images?: PageImage[];
  /** cordon's own remarks: truncation, caps, empty pages. */
  notes: string[];
}

const outputSchema = z.object({
  url: z.string(),
  redirected_from: z.string().optional(),
  status: z.number(),
  content_type: z.string(),
  content: z.string().describe("The page text, between the external-content markers"),
  offset: z.number(),
  next_offset: z.number().nullable().describe("Pass as offset to read on; null at the end"),
  total_chars: z.number(),
  size_capped: z.boolean(),
  binary: z.boolean(),
  size_bytes: z.number().optional(),
  images: z.array(z.object({ url: z.string(), alt: z.string().optional() })).optional(),
  notes: z.array(z.string()),
});

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

function isReader(value: unknown): value is PageReader {
  return typeof value === "object" && value !== null && typeof (value as PageReader).read === "function";
}

/**
 * The web_fetch tool. The model sees three parameters: `url` (absolute http/https), `images` (also list
 * the page's images) and `offset` (continue a long page). Timeouts, the download cap, caching and TLS
 * belong to the reader (default: a new {@link HttpReader} with its SSRF guard on, one per tool), never
 * to the schema.
 *
 * @example
 * tools.add(webFetch());                                          // defaults
 * tools.add(webFetch(new HttpReader({ timeout: 10_000, cacheTtl: 60 }), { maxChars: 40_000 }));
 */
export function webFetch(reader?: PageReader, options?: WebFetchOptions): Tool<WebFetchArgs, WebFetchResult>;
export function webFetch(options?: WebFetchOptions): Tool<WebFetchArgs, WebFetchResult>;
export function webFetch(
  readerOrOptions?: PageReader | WebFetchOptions,
  maybeOptions: WebFetchOptions = {},
): Tool<WebFetchArgs, WebFetchResult> {
  const givenReader = isReader(readerOrOptions) ? readerOrOptions : undefined;
  if (readerOrOptions !== undefined && givenReader === undefined && typeof readerOrOptions !== "object") {
    throw new UserError(
      "webFetch(reader?, options?) takes a PageReader (an object with read(url)) and options.",
    );
  }
  const options = givenReader ? maybeOptions : ((readerOrOptions as WebFetchOptions | undefined) ?? {});
  const maxChars = options.maxChars ?? DEFAULT_WEB_FETCH_MAX_CHARS;
  if (!Number.isInteger(maxChars) || maxChars < 1_000) {
    throw new UserError(`webFetch: maxChars must be a whole number >= 1000, got ${String(maxChars)}.`);
  }
  const reader = givenReader ?? new HttpReader();
  const description = [
    "Fetch one web page or file with a GET request and read it as text: HTML as Markdown (headings, lists, tables, code, links), JSON compacted, plain text as is; binary files (images, PDFs, archives) only by type and size.",
    `Returns at most ${groupDigits(maxChars)} characters of the page's text per call; for a longer page the result gives the offset to continue from.`,
    "Set images to true to also list the page's image URLs. It does not run JavaScript, so a page built in the browser may come back empty.",
    reader.description ?? "",
    FENCE_NOTE,
  ]
    .filter((s) => s !== "")
    .join(" ");

  return tool({
    name: options.name ?? "web_fetch",
    description,
    input: z.object({
      url: z
        .string()
        .describe("Absolute http:// or https:// URL, e.g. https://example.com/docs/page")
        .refine(isHttpUrl, "must be an absolute http:// or https:// URL, e.g. https://example.com/page"),
      images: z
        .boolean()
        .default(false)
        .describe("Also list the page's images (absolute URLs). Default false."),
      offset: z
        .number()
        .int()
        .min(0)
        .default(0)
        .describe("Character offset to continue a long page from, as the previous result said. Default 0."),
    }),
    output: outputSchema,
    readOnly: true,
    // Someone else wrote what it returns: a code mode's flows can keep it away from tools with effects.
    labels: ["untrusted"],
    // Headroom over the text budget for cordon's lines, the title and the image list.
    maxOutputChars: maxChars + 2_000 + MAX_LISTED_IMAGES * (MAX_IMAGE_URL_CHARS + MAX_ALT_CHARS + 10),
    render: (value) => renderWebFetch(value as WebFetchResult),
    run: async ({ url, images, offset }, ctx) => {
      let page: Page;
      try {
        page = await reader.read(url, { images, signal: ctx.signal });
      } catch (error) {
        // A failure quotes the server (a redirect's Location, a header) outside the fence.
        throw ctx.signal.aborted ? error : neutralizedFailure(error);
      }
      checkPage(page);
      return pageResult(page, { requested: url, offset, images, maxChars });
    },
  });
}

// A continuation of a cached page (the same Page object) skips neutralising its whole text again.
const neutralized = new WeakMap<Page, { source: string; text: string }>();

function neutralizedText(page: Page, source: string): string {
  const known = neutralized.get(page);
  if (known?.source === source) return known.text;
  const text = neutralize(source);
  neutralized.set(page, { source, text });
  return text;
}

function checkPage(page: unknown): asserts page is Page {
  const p = page as Partial<Page> | null;
  if (
    p === null ||
    typeof p !== "object" ||
    typeof p.url !== "string" ||
    typeof p.status !== "number" ||
    (p.text !== undefined && typeof p.text !== "string")
  ) {
    throw new Error(
      "the page reader returned something that is not a Page ({ url, status, mediaType, text })",
    );
  }
}

function safeMediaType(mediaType: string | undefined): string {
  return mediaType && /^[\w.+-]+\/[\w.+-]+$/.test(mediaType) ? mediaType : "unknown";
}

/** Cuts `text` at `offset` to at most `maxChars`, preferring a line break near the end. */
function sliceText(text: string, offset: number, maxChars: number): { slice: string; next: number | null } {
  let end = Math.min(text.length, offset + maxChars);
  if (end < text.length) {
    const lineBreak = text.lastIndexOf("\n", end - 1);
    if (lineBreak >= offset + maxChars * (1 - LINE_BREAK_WINDOW)) end = lineBreak + 1;
    else if (/[\uD800-\uDBFF]/.test(text[end - 1] ?? "")) end -= 1;
  }
  return { slice: text.slice(offset, end), next: end < text.length ? end : null };
}

function imageLines(images: readonly PageImage[]): string {
  const shown = images.slice(0, MAX_LISTED_IMAGES).map((image, i) => {
    const url =
      image.url.length > MAX_IMAGE_URL_CHARS ? `${image.url.slice(0, MAX_IMAGE_URL_CHARS)}…` : image.url;
    const alt = image.alt ? ` — ${image.alt.slice(0, MAX_ALT_CHARS)}` : "";
    return `${i + 1}. ${url}${alt}`;
  });
  const more = images.length > MAX_LISTED_IMAGES ? [`(and ${images.length - MAX_LISTED_IMAGES} more)`] : [];
  return [`Images (${images.length}):`, ...shown, ...more].join("\n");
}

function pageResult(
  page: Page,
  request: { requested: string; offset: number; images: boolean; maxChars: number },
): WebFetchResult {
  const { offset, maxChars } = request;
  const requested = parseTarget(request.requested).href;
  const result: WebFetchResult = {
    url: page.url,
    ...(page.url !== requested ? { redirected_from: requested } : {}),
    status: page.status,
    content_type: safeMediaType(page.mediaType),
    content: "",
    offset,
    next_offset: null,
    total_chars: 0,
    size_capped: page.sizeCapped === true,
    binary: page.text === undefined,
    ...(page.size === undefined ? {} : { size_bytes: page.size }),
    notes: [],
  };
  if (page.text === undefined) {
    const size =
      page.size === undefined ? "" : `, ${formatBytes(page.size)}${page.sizeCapped ? " or more" : ""}`;
    result.notes.push(
      `Binary content (${result.content_type}${size}): not shown; web_fetch returns text only.`,
    );
    return result;
  }
  const text = neutralizedText(page, page.text);
  result.total_chars = text.length;
  if (page.status >= 400) {
    result.offset = 0;
    result.content = fence(text.slice(0, ERROR_PAGE_CHARS));
    result.notes.push(
      `The server answered HTTP ${page.status}.${text.length > ERROR_PAGE_CHARS ? ` Only the first ${ERROR_PAGE_CHARS} characters of its error page are shown.` : ""}`,
    );
    return result;
  }
  if (offset > 0 && offset >= text.length) {
    throw new ToolError(
      `offset ${offset} is past the end of this page: its text has ${text.length} characters.`,
      {
        hint: `Use an offset below ${text.length}, or 0 to read from the start.`,
      },
    );
  }
  const { slice, next } = sliceText(text, offset, maxChars);
  result.next_offset = next;
  const parts: string[] = [];
  if (page.title) parts.push(`Title: ${page.title.slice(0, MAX_TITLE_CHARS)}`, "");
  parts.push(slice);
  if (request.images && page.images && page.images.length > 0) parts.push("", imageLines(page.images));
  if (page.images && request.images) result.images = page.images.slice(0, MAX_LISTED_IMAGES);
  const body = parts.join("\n");
  result.content = body.trim() === "" ? "" : fence(body);
  if (text.trim() === "") {
    result.notes.push(
      "The page has no readable text. If it is built by JavaScript in the browser, web_fetch cannot see it.",
    );
  }
  if (next !== null) result.notes.push(`[... truncated. Continue with offset=${next}.]`);
  if (page.sizeCapped) {
    const cap =
      page.maxBytes === undefined ? "the download cap" : `the ${formatBytes(page.maxBytes)} download cap`;
    result.notes.push(
      `The download stopped at ${cap}: the rest of the page was never downloaded, so no offset can reach it.`,
    );
  }
  return result;
}

/** The text the model reads: cordon's lines outside the fence, the page inside it. */
function renderWebFetch(result: WebFetchResult): string {
  const lines = [`URL: ${result.url}`];
  if (result.redirected_from) lines.push(`Redirected from: ${result.redirected_from}`);
  lines.push(`HTTP ${result.status} · ${result.content_type}`);
  if (result.offset > 0 || result.next_offset !== null) {
    const end = result.next_offset ?? result.total_chars;
    lines.push(`Characters ${result.offset}–${end} of ${result.total_chars}`);
  }
  const out = [lines.join("\n")];
  if (result.content !== "") out.push(result.content);
  if (result.notes.length > 0) out.push(result.notes.join("\n"));
  return out.join("\n\n");
}
