/**
 * `HttpReader`: the default page reader of web_fetch. A GET with undici, redirects followed by hand (each
 * hop checked by the SSRF guard), a byte cap, decompression, conversion to text, and a per-URL cache.
 */
import type { LookupFunction } from "node:net";
import type { ConnectionOptions } from "node:tls";
import type { Agent } from "undici";
import { untilAborted } from "../../../common/abort.js";
import { ToolError, UserError } from "../../../common/errors.js";
import { formatDuration } from "../../dispatch/failures.js";
import { discard, readCapped } from "../body.js";
import { createAgent } from "../undici-agent.js";
import { charsetOf, compactJson, decodeBody, kindOfMediaType, mediaTypeOf, sniffKind } from "./content.js";
import { convertHtml } from "./html.js";
import type { Page, PageReader, ReadOptions } from "./page.js";
import { TtlCache } from "./page-cache.js";
import { BlockedAddressError, HostGuard } from "./ssrf-guard.js";
import { formatBytes } from "./util.js";

/** Default time for one whole read (every redirect hop and the body), in milliseconds. */
const DEFAULT_FETCH_TIMEOUT_MS = 15_000;
/** Default download cap, in bytes (of the decoded body). */
export const DEFAULT_MAX_BYTES = 1_000_000;
/** Default time a response stays cached, in seconds. */
const DEFAULT_CACHE_TTL_S = 300;
/** Default number of cached responses. */
const DEFAULT_CACHE_SIZE = 100;
/** Default number of redirects followed. */
const DEFAULT_MAX_REDIRECTS = 5;
/** How much of an error page (4xx/5xx) is downloaded; web_fetch shows its first 500 characters. */
const ERROR_BODY_MAX_BYTES = 64 * 1024;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const ACCEPT = "text/html,application/xhtml+xml,application/json;q=0.9,text/*;q=0.8,*/*;q=0.5";

/** Options of {@link HttpReader}. */
export interface HttpReaderOptions {
  /** Time for one whole read, redirects and body included, in milliseconds. Default 15,000. */
  timeout?: number;
  /** Download cap in bytes of the decoded body. Default 1,000,000. */
  maxBytes?: number;
  /** Seconds a response stays cached, so offset continuations read the same version. Default 300; 0 turns caching off. */
  cacheTtl?: number;
  /** Responses kept in the cache at most (least recently used dropped first). Default 100. */
  cacheSize?: number;
  /** Redirects followed at most. Default 5. */
  maxRedirects?: number;
  /** Hosts the SSRF guard lets through whatever they resolve to: names or IPs; `*.corp.example` for subdomains. */
  allowHosts?: readonly string[];
  /** Turns the SSRF guard off: private, loopback and link-local addresses may be fetched (intranet use). */
  allowPrivate?: boolean;
  /** The User-Agent header. */
  userAgent?: string;
  /** Extra request headers, sent with every request (never chosen by the model). */
  headers?: Record<string, string>;
  /** TLS settings for https: extra CA certificates, client certificates, `rejectUnauthorized`... */
  tls?: Pick<
    ConnectionOptions,
    "ca" | "cert" | "key" | "pfx" | "passphrase" | "rejectUnauthorized" | "minVersion"
  >;
  /** The DNS lookup, for split-horizon DNS or tests. Default `dns.lookup`. The guard checks what it returns. */
  lookup?: LookupFunction;
}

interface Settings {
  timeout: number;
  maxBytes: number;
  maxRedirects: number;
  headers: Record<string, string>;
}

/**
 * Reads a URL over HTTP(S): HTML becomes Markdown (main content, headings, lists, tables, code, links),
 * JSON is compacted, text is kept as is, binary content is described by its type and size. It does not
 * run JavaScript: a page built in the browser may come back empty.
 *
 * **SSRF guard, on by default**: a URL whose host is, or resolves to, a loopback, private, link-local,
 * CGNAT, multicast or otherwise non-public address is refused (every redirect hop too), and the socket
 * connects to the very address that was checked. `allowHosts` and `allowPrivate` opt out.
 *
 * Responses (below 500) are cached per URL for `cacheTtl` seconds; concurrent reads of one URL share one
 * download. Call `close()` to release its connections.
 */
export class HttpReader implements PageReader {
  readonly #settings: Settings;
  readonly #guard: HostGuard;
  readonly #agent: Agent;
  readonly #cache: TtlCache<Page>;
  readonly #cacheTtl: number;
  // One object per cached page and variant, so a caller can remember work done on it (web_fetch's fence).
  readonly #withoutImages = new WeakMap<Page, Page>();

  constructor(options: HttpReaderOptions = {}) {
    if (options === null || typeof options !== "object") {
      throw new UserError("new HttpReader(options) takes an options object, e.g. { timeout: 15_000 }.");
    }
    const timeout = positive(options.timeout, "timeout", "milliseconds") ?? DEFAULT_FETCH_TIMEOUT_MS;
    const maxBytes = positiveInteger(options.maxBytes, "maxBytes") ?? DEFAULT_MAX_BYTES;
    this.#cacheTtl = nonNegative(options.cacheTtl, "cacheTtl") ?? DEFAULT_CACHE_TTL_S;
    const cacheSize = nonNegative(options.cacheSize, "cacheSize") ?? DEFAULT_CACHE_SIZE;
    const maxRedirects = nonNegative(options.maxRedirects, "maxRedirects") ?? DEFAULT_MAX_REDIRECTS;
    if (options.allowHosts !== undefined && !Array.isArray(options.allowHosts)) {
      throw new UserError(
        'HttpReader: allowHosts must be an array of host names, e.g. ["intranet.example"].',
      );
    }
    this.#settings = {
      timeout,
      maxBytes,
      maxRedirects,
      headers: {
        accept: ACCEPT,
        "accept-encoding": "gzip, deflate, br",
        "user-agent": options.userAgent ?? "cordon-web-fetch/0.1",
        ...lowerCaseKeys(options.headers ?? {}),
      },
    };
    this.#guard = new HostGuard({
      ...(options.allowHosts ? { allowHosts: options.allowHosts } : {}),
      allowPrivate: options.allowPrivate === true,
    });
    this.#agent = createAgent({
      connect: {
        ...options.tls,
        timeout: Math.min(timeout, 10_000),
        lookup: this.#guard.lookup(options.lookup),
      },
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
    this.#cache = new TtlCache<Page>({
      ttlMs: this.#cacheTtl * 1000,
      maxEntries: cacheSize,
      // A 5xx is usually transient: the next call should try again.
      keep: (page) => page.status < 500,
    });
  }

  /** What the model should know about this reader: the cap, the cache, the guard. */
  get description(): string {
    const parts = [
      `Downloads stop at ${formatBytes(this.#settings.maxBytes)}.`,
      this.#cacheTtl > 0
        ? `A page is cached for ${formatDuration(this.#cacheTtl * 1000)}, so continuing with offset reads the same version.`
        : "",
      this.#guard.allowPrivate
        ? ""
        : "Addresses on private networks, loopback, link-local (cloud metadata) and other non-public addresses are refused.",
    ];
    return parts.filter((p) => p !== "").join(" ");
  }

  /** Reads a URL (from the cache when fresh). Throws `ToolError` with a message for the model on failure. */
  async read(url: string, options: ReadOptions = {}): Promise<Page> {
    const target = parseTarget(url);
    // A cancelled caller stops waiting; the shared download runs on (within `timeout`) for the others.
    const download = this.#cache.get(target.href, () => this.#download(target));
    const { value } = await (options.signal ? untilAborted(download, options.signal) : download);
    if (options.images) return value;
    let withoutImages = this.#withoutImages.get(value);
    if (withoutImages === undefined) {
      const { images: _images, ...rest } = value;
      withoutImages = rest;
      this.#withoutImages.set(value, withoutImages);
    }
    return withoutImages;
  }

  /** Forgets every cached response. */
  clearCache(): void {
    this.#cache.clear();
  }

  /** Closes the reader's connections. */
  async close(): Promise<void> {
    await this.#agent.close();
  }

  async #download(start: URL): Promise<Page> {
    const { timeout, maxRedirects } = this.#settings;
    const deadline = AbortSignal.timeout(timeout);
    let current = start;
    const visited = new Set([current.href]);
    for (let redirects = 0; ; redirects++) {
      let response: Awaited<ReturnType<Agent["request"]>>;
      try {
        this.#guard.checkUrlHost(current);
        response = await this.#get(current, deadline);
      } catch (error) {
        throw fetchError(error, current, deadline, timeout);
      }
      const location = header(response.headers, "location");
      if (!REDIRECTS.has(response.statusCode) || location === undefined) {
        try {
          return await this.#toPage(current, response);
        } catch (error) {
          throw fetchError(error, current, deadline, timeout);
        }
      }
      discard(response.body);
      const next = redirectTarget(location, current);
      if (visited.has(next.href)) {
        throw new ToolError(`Redirect loop: ${current.href} redirects back to ${next.href}.`);
      }
      if (redirects >= maxRedirects) {
        throw new ToolError(`Too many redirects: ${start.href} redirected more than ${maxRedirects} times.`);
      }
      visited.add(next.href);
      current = next;
    }
  }

  /**
   * One GET. A connection the server closed before any response came is tried once more: a kept-alive
   * connection can be closed by the server just as a request goes out on it, and a GET that got no
   * response is safe to send again.
   */
  async #get(url: URL, deadline: AbortSignal): Promise<Awaited<ReturnType<Agent["request"]>>> {
    const send = () =>
      this.#agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: "GET",
        headers: this.#settings.headers,
        signal: deadline,
      });
    try {
      return await send();
    } catch (error) {
      if (deadline.aborted || !closedBeforeResponse(error)) throw error;
      return await send();
    }
  }

  async #toPage(url: URL, response: Awaited<ReturnType<Agent["request"]>>): Promise<Page> {
    const status = response.statusCode;
    const contentType = header(response.headers, "content-type");
    const mediaType = mediaTypeOf(contentType);
    const declared = kindOfMediaType(mediaType);
    const length = Number(header(response.headers, "content-length"));
    const base: Page = { url: url.href, status, mediaType };
    if (declared === "binary" && Number.isFinite(length)) {
      // The type and the announced size are all that is shown: nothing to download.
      discard(response.body);
      return { ...base, size: length };
    }
    const cap =
      status >= 400 ? Math.min(ERROR_BODY_MAX_BYTES, this.#settings.maxBytes) : this.#settings.maxBytes;
    const { bytes, capped } = await readCapped(
      response.body,
      header(response.headers, "content-encoding"),
      cap,
    );
    const kind = declared ?? (bytes.length === 0 ? "text" : sniffKind(bytes));
    const sized: Page = {
      ...base,
      size: bytes.length,
      ...(capped && status < 400 ? { sizeCapped: true, maxBytes: cap } : {}),
    };
    if (kind === "binary") return sized;
    const text = decodeBody(bytes, kind, charsetOf(contentType));
    if (kind === "json") return { ...sized, text: compactJson(text) };
    if (kind === "text") return { ...sized, text };
    const converted = convertHtml(text, url.href);
    return {
      ...sized,
      ...(converted.title ? { title: converted.title } : {}),
      text: converted.markdown,
      images: converted.images,
    };
  }
}

/** The URL to read, or a `ToolError` saying what a valid one looks like. */
export function parseTarget(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ToolError(`Not an absolute URL: ${JSON.stringify(url)}.`, {
      hint: "Pass a full URL such as https://example.com/page.",
    });
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new ToolError(`Only http:// and https:// URLs can be fetched, not ${parsed.protocol}//.`);
  }
  parsed.hash = "";
  return parsed;
}

function redirectTarget(location: string, from: URL): URL {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new ToolError(
      `${from.href} redirects to an invalid URL (${JSON.stringify(location.slice(0, 200))}).`,
    );
  }
  if (next.protocol !== "http:" && next.protocol !== "https:") {
    throw new ToolError(`${from.href} redirects to a ${next.protocol} URL, which web_fetch does not follow.`);
  }
  next.hash = "";
  return next;
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

/** The connection was closed or reset (no response had come: `request` resolves once headers arrive). */
function closedBeforeResponse(error: unknown): boolean {
  const code = findCause(error, (e) => typeof e.code === "string")?.code;
  return code === "ECONNRESET" || code === "UND_ERR_SOCKET" || code === "EPIPE";
}

/** The error the model reads for a failed request. */
function fetchError(error: unknown, url: URL, deadline: AbortSignal, timeout: number): unknown {
  if (error instanceof ToolError) return error;
  const blocked = findCause(error, (e) => e instanceof BlockedAddressError) as
    | BlockedAddressError
    | undefined;
  if (blocked) {
    return new ToolError(`Refused to fetch ${url.href}: ${blocked.message}`, {
      hint: "Other spellings of the same address are refused too. Tell the user if this page matters.",
    });
  }
  if (deadline.aborted)
    return new ToolError(`Fetching ${url.href} timed out after ${formatDuration(timeout)}.`);
  const code = String(
    findCause(error, (e) => typeof (e as { code?: unknown }).code === "string")?.code ?? "",
  );
  const host = url.host;
  const message = error instanceof Error ? error.message : String(error);
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") {
    return new ToolError(`The host ${url.hostname} was not found (the DNS lookup failed).`);
  }
  if (code === "ECONNREFUSED") return new ToolError(`${host} refused the connection.`);
  if (code === "UND_ERR_CONNECT_TIMEOUT") return new ToolError(`Connecting to ${host} timed out.`);
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET" || code === "EPIPE") {
    return new ToolError(`The connection to ${host} was closed before the response was complete.`);
  }
  if (/CERT|SSL|TLS|SELF_SIGNED/i.test(code)) {
    return new ToolError(`The TLS connection to ${host} failed: ${message}`);
  }
  return new ToolError(`Fetching ${url.href} failed: ${message}`);
}

function findCause(
  error: unknown,
  test: (e: Error & { code?: unknown }) => boolean,
): (Error & { code?: unknown }) | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (test(current)) return current;
    current = current.cause;
  }
  return undefined;
}

function positive(value: number | undefined, name: string, unit: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !(value > 0) || !Number.isFinite(value)) {
    throw new UserError(`HttpReader: ${name} must be a number of ${unit} > 0, got ${String(value)}.`);
  }
  return value;
}

function positiveInteger(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value <= 0) {
    throw new UserError(`HttpReader: ${name} must be a whole number > 0, got ${String(value)}.`);
  }
  return value;
}

function nonNegative(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !(value >= 0) || !Number.isFinite(value)) {
    throw new UserError(`HttpReader: ${name} must be a number >= 0, got ${String(value)}.`);
  }
  return value;
}
