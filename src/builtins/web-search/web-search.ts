/**
 * The web_search tool over a pluggable {@link WebSearch} backend: the model reads titles, URLs and
 * snippets as fenced text, code gets them as data.
 */
import { z } from "zod";
import { UserError } from "../../../common/errors.js";
import { tool } from "../../tools/tool.js";
import type { Tool } from "../../tools/types.js";
import { FENCE_NOTE, fence, neutralize, neutralizedFailure } from "../fence.js";

/** One search hit. */
export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

/** A time filter: past day, week, month or year. */
export type TimeRange = "d" | "w" | "m" | "y";

/** Options of one {@link WebSearch.search}. */
export interface SearchOptions {
  /** At most this many results (1 to {@link MAX_SEARCH_RESULTS}). */
  maxResults: number;
  /** Only results from the past day, week, month or year. */
  timeRange?: TimeRange;
  /** Fires when the call is cancelled or times out. */
  signal?: AbortSignal;
}

/**
 * A search backend. It must be safe under concurrent calls (the model may search several times in one
 * turn). Throw `ToolError` for failures the model should read (rate limits, a refused key).
 */
export interface WebSearch {
  search(query: string, options: SearchOptions): Promise<SearchResult[]>;
  /** A sentence for the tool description, e.g. which engine answers. */
  readonly description?: string;
}

/** The most results one call may ask for. */
const MAX_SEARCH_RESULTS = 20;
/** Results per call when the model does not say. */
const DEFAULT_SEARCH_RESULTS = 5;
const MAX_TITLE_CHARS = 300;
const MAX_SNIPPET_CHARS = 1_000;
const MAX_URL_CHARS = 2_000;

/** Options of {@link webSearch}. */
export interface WebSearchOptions {
  /** The tool's name. Default `web_search`. */
  name?: string;
}

/** The arguments the model sends. */
export interface WebSearchArgs {
  query: string;
  max_results: number;
  time_range?: TimeRange | undefined;
}

/** What web_search returns: the query and its results, every text field neutralised (see `neutralize`). */
export interface WebSearchResult {
  query: string;
  results: SearchResult[];
}

const TIME_RANGE_WORDS: Record<TimeRange, string> = { d: "day", w: "week", m: "month", y: "year" };

function clip(text: unknown, max: number): string {
  const s = neutralize(typeof text === "string" ? text : String(text ?? ""))
    .replace(/\s+/g, " ")
    .trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/**
 * The web_search tool over `backend`. Parameters: `query`, `max_results` (1–20, default 5) and an
 * optional `time_range` (`d`, `w`, `m`, `y`). Results reach the model as numbered title, URL and
 * snippet lines between the external-content markers.
 *
 * @example
 * tools.add(webSearch(myBackend));   // or duckDuckGoSearch(), tavilySearch()
 */
export function webSearch(
  backend: WebSearch,
  options: WebSearchOptions = {},
): Tool<WebSearchArgs, WebSearchResult> {
  if (backend === null || typeof backend !== "object" || typeof backend.search !== "function") {
    throw new UserError(
      "webSearch(backend) needs a backend with search(query, { maxResults, timeRange }): use duckDuckGoSearch(), tavilySearch(), or your own WebSearch.",
    );
  }
  const description = [
    "Search the web. Returns numbered results, each a title, a URL and a snippet; fetch a URL to read the page itself.",
    `max_results is 1 to ${MAX_SEARCH_RESULTS} (default ${DEFAULT_SEARCH_RESULTS}); time_range keeps results from the past day (d), week (w), month (m) or year (y).`,
    backend.description ?? "",
    FENCE_NOTE,
  ]
    .filter((s) => s !== "")
    .join(" ");
  return tool({
    name: options.name ?? "web_search",
    description,
    input: z.object({
      query: z
        .string()
        .trim()
        .min(1)
        .max(500)
        .describe("What to search for, as you would type it into a search engine"),
      max_results: z
        .number()
        .int()
        .min(1)
        .max(MAX_SEARCH_RESULTS)
        .default(DEFAULT_SEARCH_RESULTS)
        .describe(`How many results, 1 to ${MAX_SEARCH_RESULTS}. Default ${DEFAULT_SEARCH_RESULTS}.`),
      time_range: z
        .enum(["d", "w", "m", "y"])
        .optional()
        .describe("Only results from the past day (d), week (w), month (m) or year (y)."),
    }),
    output: z.object({
      query: z.string(),
      results: z.array(z.object({ title: z.string(), url: z.string(), snippet: z.string() })),
    }),
    readOnly: true,
    // Someone else wrote what it returns: a code mode's flows can keep it away from tools with effects.
    labels: ["untrusted"],
    render: (value) => renderSearch(value as WebSearchResult),
    run: async ({ query, max_results, time_range }, ctx) => {
      let found: SearchResult[];
      try {
        found = await backend.search(query, {
          maxResults: max_results,
          ...(time_range ? { timeRange: time_range } : {}),
          signal: ctx.signal,
        });
      } catch (error) {
        // A failure may quote the search service's own answer, outside the fence.
        throw ctx.signal.aborted ? error : neutralizedFailure(error);
      }
      if (!Array.isArray(found))
        throw new Error("the search backend returned something that is not a list of results");
      const results = found.slice(0, max_results).map((r) => ({
        title: clip(r?.title, MAX_TITLE_CHARS),
        url: clip(r?.url, MAX_URL_CHARS),
        snippet: clip(r?.snippet, MAX_SNIPPET_CHARS),
      }));
      return { query, results };
    },
  });
}

/** The text the model reads: a count line outside the fence, the results inside it. */
function renderSearch(value: WebSearchResult): string {
  if (value.results.length === 0) return `No results for ${JSON.stringify(value.query)}.`;
  const count = `${value.results.length} result${value.results.length === 1 ? "" : "s"}`;
  const body = value.results
    .map((r, i) =>
      [`${i + 1}. ${r.title || "(no title)"}`, `   ${r.url}`, ...(r.snippet ? [`   ${r.snippet}`] : [])].join(
        "\n",
      ),
    )
    .join("\n\n");
  return `Search results for ${JSON.stringify(value.query)} (${count}):\n\n${fence(body)}`;
}

/** `day`, `week`... for backends whose API spells time ranges out. */
export function timeRangeWord(range: TimeRange): string {
  return TIME_RANGE_WORDS[range];
}
