/**
 * DuckDuckGo as a web_search backend, without a key. DuckDuckGo has no official JSON search API (its
 * Instant Answer API returns knowledge-graph answers, not web results), so this posts the query to the
 * HTML endpoint (`html.duckduckgo.com/html/`, the page its no-JavaScript site serves) and reads the
 * documented page format: `div.result` blocks with an `a.result__a` title link and an
 * `a.result__snippet`; ads (`result--ad`) are skipped and DuckDuckGo's redirect links (`/l/?uddg=`) are
 * unwrapped. The endpoint rate-limits automated use; production agents should prefer a keyed backend.
 */
import type { AnyNode, Element } from "domhandler";
import { ToolError } from "../../../common/errors.js";
import type { Tool } from "../../tools/types.js";
import { hasChildren, isTag, isText } from "../dom-nodes.js";
import { htmlParser } from "../html-parser.js";
import { ServiceClient } from "./service-http.js";
import {
  type SearchOptions,
  type SearchResult,
  type WebSearch,
  type WebSearchArgs,
  type WebSearchResult,
  webSearch,
} from "./web-search.js";

/** Where the HTML endpoint lives. */
const DUCKDUCKGO_URL = "https://html.duckduckgo.com";
/** Time one search may take, in milliseconds, unless `timeout` says otherwise. */
export const DEFAULT_SEARCH_TIMEOUT_MS = 15_000;

/** Options of {@link DuckDuckGoBackend} and {@link duckDuckGoSearch}. */
export interface DuckDuckGoOptions {
  /** The endpoint's origin (for a proxy, or a local server in tests). Default {@link DUCKDUCKGO_URL}. */
  baseUrl?: string;
  /** DuckDuckGo's region code (`kl`), e.g. `us-en`, `de-de`. Default `wt-wt` (no region). */
  region?: string;
  /** Milliseconds one search may take. Default 15,000. */
  timeout?: number;
  /** The User-Agent header. */
  userAgent?: string;
  /** The tool's name. Default `web_search`. */
  name?: string;
}

const CHALLENGE = /anomaly-modal|challenge-form|bots use DuckDuckGo too/i;

/** Searches DuckDuckGo's HTML endpoint. Safe under concurrent calls: it keeps no state but a connection pool. */
export class DuckDuckGoBackend implements WebSearch {
  readonly description = "Results come from DuckDuckGo.";
  readonly #client: ServiceClient;
  readonly #region: string;
  readonly #userAgent: string;

  constructor(options: DuckDuckGoOptions = {}) {
    this.#client = new ServiceClient(
      "DuckDuckGo",
      options.baseUrl ?? DUCKDUCKGO_URL,
      options.timeout ?? DEFAULT_SEARCH_TIMEOUT_MS,
    );
    this.#region = options.region ?? "wt-wt";
    this.#userAgent = options.userAgent ?? "Mozilla/5.0 (compatible; cordon-web-search/0.1)";
  }

  async search(query: string, options: SearchOptions): Promise<SearchResult[]> {
    const form = new URLSearchParams({ q: query, b: "", kl: this.#region });
    if (options.timeRange) form.set("df", options.timeRange);
    const response = await this.#client.post(
      "html/",
      form.toString(),
      {
        "content-type": "application/x-www-form-urlencoded",
        accept: "text/html",
        "user-agent": this.#userAgent,
      },
      options.signal,
    );
    if (
      response.status === 202 ||
      response.status === 403 ||
      response.status === 429 ||
      CHALLENGE.test(response.text)
    ) {
      throw new ToolError(
        `DuckDuckGo refused the search (HTTP ${response.status}): it limits automated queries and asked for a human check.`,
        { hint: "Wait a while before searching again, or answer from what you already have." },
      );
    }
    if (response.status !== 200) throw new ToolError(`DuckDuckGo answered HTTP ${response.status}.`);
    return parseDuckDuckGo(response.text).slice(0, options.maxResults);
  }

  /** Closes the connections. */
  close(): Promise<void> {
    return this.#client.close();
  }
}

function classes(element: Element): string[] {
  return (element.attribs.class ?? "").split(/\s+/);
}

/** Elements under `root` (iteratively) for which `test` holds, in document order. */
function findAll(root: AnyNode, test: (element: Element) => boolean): Element[] {
  const found: Element[] = [];
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isTag(node) && test(node)) found.push(node);
    if (hasChildren(node)) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return found;
}

function text(root: AnyNode): string {
  const out: string[] = [];
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isText(node)) out.push(node.data);
    else if (hasChildren(node))
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return out.join("").replace(/\s+/g, " ").trim();
}

/** The target of a result link: DuckDuckGo's `/l/?uddg=` redirect unwrapped; `undefined` for its own pages. */
function targetOf(href: string | undefined): string | undefined {
  if (!href) return undefined;
  let url: URL;
  try {
    url = new URL(href, "https://duckduckgo.com/");
  } catch {
    return undefined;
  }
  const wrapped = url.searchParams.get("uddg");
  if (wrapped) return targetOf(wrapped);
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  if (url.hostname === "duckduckgo.com" || url.hostname.endsWith(".duckduckgo.com")) return undefined;
  return url.href;
}

/** Reads the results of DuckDuckGo's HTML result page, ads left out. */
export function parseDuckDuckGo(html: string): SearchResult[] {
  const document = htmlParser().parseDocument(html, { lowerCaseTags: true, decodeEntities: true });
  const results: SearchResult[] = [];
  const seen = new Set<string>();
  for (const block of findAll(
    document,
    (e) => classes(e).includes("result") && !classes(e).includes("result--ad"),
  )) {
    const [link] = findAll(block, (e) => e.name === "a" && classes(e).includes("result__a"));
    if (!link) continue;
    const url = targetOf(link.attribs.href);
    if (url === undefined || seen.has(url)) continue;
    seen.add(url);
    const [snippet] = findAll(block, (e) => classes(e).includes("result__snippet"));
    results.push({ title: text(link), url, snippet: snippet ? text(snippet) : "" });
  }
  return results;
}

/**
 * The web_search tool on DuckDuckGo: no API key and no extra package (the page is parsed with
 * htmlparser2, which cordon already uses). See {@link DuckDuckGoBackend} for what it reads.
 */
export function duckDuckGoSearch(options: DuckDuckGoOptions = {}): Tool<WebSearchArgs, WebSearchResult> {
  return webSearch(new DuckDuckGoBackend(options), options.name === undefined ? {} : { name: options.name });
}
