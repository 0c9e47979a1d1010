/**
 * Tavily as a web_search backend: `POST /search` with a bearer key, results read from the documented
 * JSON answer (`results[]` of `title`, `url`, `content`).
 */
import { ToolError, UserError } from "../../../common/errors.js";
import type { Tool } from "../../tools/types.js";
import { DEFAULT_SEARCH_TIMEOUT_MS } from "./duckduckgo.js";
import { ServiceClient } from "./service-http.js";
import {
  type SearchOptions,
  type SearchResult,
  timeRangeWord,
  type WebSearch,
  type WebSearchArgs,
  type WebSearchResult,
  webSearch,
} from "./web-search.js";

/** Tavily's API origin. */
const TAVILY_URL = "https://api.tavily.com";

/** Options of {@link TavilyBackend} and {@link tavilySearch}. */
export interface TavilyOptions {
  /** The API key; default: the `TAVILY_API_KEY` environment variable. */
  apiKey?: string;
  /** The API origin (for a proxy, or a local server in tests). Default {@link TAVILY_URL}. */
  baseUrl?: string;
  /** Milliseconds one search may take. Default 15,000. */
  timeout?: number;
  /** Tavily's search depth. Default `basic`. */
  searchDepth?: "basic" | "advanced";
  /** Tavily's topic. Default `general`. */
  topic?: "general" | "news";
  /** The tool's name. Default `web_search`. */
  name?: string;
}

/** Searches with Tavily's API. Safe under concurrent calls: it keeps no state but a connection pool. */
export class TavilyBackend implements WebSearch {
  readonly description = "Results come from Tavily.";
  readonly #client: ServiceClient;
  readonly #key: string;
  readonly #depth: string;
  readonly #topic: string;

  /** Throws `UserError` at once when no API key is given or set, rather than halfway through a run. */
  constructor(options: TavilyOptions = {}) {
    const key = options.apiKey ?? process.env.TAVILY_API_KEY;
    if (typeof key !== "string" || key.trim() === "") {
      throw new UserError(
        "tavilySearch() needs a Tavily API key: set the TAVILY_API_KEY environment variable or pass tavilySearch({ apiKey }).",
      );
    }
    this.#key = key.trim();
    this.#client = new ServiceClient(
      "Tavily",
      options.baseUrl ?? TAVILY_URL,
      options.timeout ?? DEFAULT_SEARCH_TIMEOUT_MS,
    );
    this.#depth = options.searchDepth ?? "basic";
    this.#topic = options.topic ?? "general";
  }

  async search(query: string, options: SearchOptions): Promise<SearchResult[]> {
    const body = {
      query,
      max_results: options.maxResults,
      search_depth: this.#depth,
      topic: this.#topic,
      include_answer: false,
      include_raw_content: false,
      include_images: false,
      ...(options.timeRange ? { time_range: timeRangeWord(options.timeRange) } : {}),
    };
    const response = await this.#client.post(
      "search",
      JSON.stringify(body),
      { "content-type": "application/json", authorization: `Bearer ${this.#key}` },
      options.signal,
    );
    if (response.status !== 200) throw failure(response.status, response.text);
    let parsed: unknown;
    try {
      parsed = JSON.parse(response.text);
    } catch {
      throw new ToolError("Tavily sent an answer that is not JSON.");
    }
    const results = (parsed as { results?: unknown }).results;
    if (!Array.isArray(results)) throw new ToolError("Tavily's answer has no results list.");
    return results
      .filter(
        (r): r is Record<string, unknown> => typeof r === "object" && r !== null && typeof r.url === "string",
      )
      .map((r) => ({
        title: typeof r.title === "string" ? r.title : "",
        url: r.url as string,
        snippet: typeof r.content === "string" ? r.content : "",
      }));
  }

  /** Closes the connections. */
  close(): Promise<void> {
    return this.#client.close();
  }
}

function detailOf(text: string): string {
  try {
    const detail = (JSON.parse(text) as { detail?: unknown }).detail;
    if (typeof detail === "string") return detail;
    const error = (detail as { error?: unknown } | undefined)?.error;
    return typeof error === "string" ? error : "";
  } catch {
    return "";
  }
}

function failure(status: number, text: string): ToolError {
  const detail = detailOf(text).slice(0, 300);
  const suffix = detail ? `: ${detail}` : ".";
  if (status === 401) {
    return new ToolError(`Tavily refused the API key (HTTP 401)${suffix}`, {
      hint: "Web search is unavailable until the host fixes its Tavily key; do not retry.",
    });
  }
  if (status === 429) {
    return new ToolError(`Tavily's rate limit was reached (HTTP 429)${suffix}`, {
      hint: "Wait before searching again.",
    });
  }
  if (status === 403 || status === 432 || status === 433) {
    return new ToolError(
      `Tavily refused the search: the account's plan or usage limit (HTTP ${status})${suffix}`,
    );
  }
  if (status === 400) return new ToolError(`Tavily refused the query (HTTP 400)${suffix}`);
  return new ToolError(`Tavily answered HTTP ${status}${suffix}`);
}

/**
 * The web_search tool on Tavily. Needs an API key (`TAVILY_API_KEY` or `apiKey`); without one it throws
 * `UserError` here, when the tool is built.
 */
export function tavilySearch(options: TavilyOptions = {}): Tool<WebSearchArgs, WebSearchResult> {
  return webSearch(new TavilyBackend(options), options.name === undefined ? {} : { name: options.name });
}
