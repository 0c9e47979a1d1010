/**
 * `cordon/builtins`: ready tools to add to a toolset: `web_fetch` and `web_search` (DuckDuckGo or Tavily),
 * `now` and `current_date`, `ask_human` with the channel that carries its questions, and `fence`, which
 * marks text from outside (a page, a search result) as data for the model, not instructions.
 */

export { type AskHumanArgs, type AskHumanOptions, askHuman } from "../builtins/ask-human.js";
export { FENCE_BEGIN, FENCE_END, FENCE_NOTE, fence, neutralize } from "../builtins/fence.js";
export {
  type AskOptions,
  HumanChannel,
  type HumanQuestion,
  type QuestionInput,
  type QuestionOption,
} from "../builtins/human-channel.js";
export { currentDate, now } from "../builtins/time.js";
export { HttpReader, type HttpReaderOptions } from "../builtins/web-fetch/http-reader.js";
export type { Page, PageImage, PageReader, ReadOptions } from "../builtins/web-fetch/page.js";
export {
  type WebFetchArgs,
  type WebFetchOptions,
  type WebFetchResult,
  webFetch,
} from "../builtins/web-fetch/web-fetch.js";
export {
  DuckDuckGoBackend,
  type DuckDuckGoOptions,
  duckDuckGoSearch,
} from "../builtins/web-search/duckduckgo.js";
export { TavilyBackend, type TavilyOptions, tavilySearch } from "../builtins/web-search/tavily.js";
export {
  type SearchOptions,
  type SearchResult,
  type TimeRange,
  type WebSearch,
  type WebSearchArgs,
  type WebSearchOptions,
  type WebSearchResult,
  webSearch,
} from "../builtins/web-search/web-search.js";
