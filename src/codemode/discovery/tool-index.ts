/**
 * The search index over a tool set: built once, then each search ranks every tool by BM25F (BM25 over
 * weighted fields) with light stemming and a small table of related words. No model, no network; a search
 * over 1,000 tools takes well under a millisecond (bench/discovery.ts).
 */

import { UserError } from "../../../common/errors.js";
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from "../../../sandbox/contract/index.js";
import type { JsonSchema } from "../../tools/types.js";
import type { DeclaredTool } from "../declarations.js";
import { sanitizeToolName, toolIdentifiers } from "../declarations.js";
import { analyzedTextTerms } from "./analyze.js";
import { splitNamespace } from "./namespace.js";
import { summaryOf } from "./summary.js";
import { RELATED_WEIGHT, relatedTerms } from "./synonyms.js";
import { declareTool } from "./tool-declaration.js";
import { TOOL_FIELDS, type ToolField, toolFieldTerms } from "./tool-fields.js";

/** What the index reads of a tool: a cordon `Tool` has all of it. */
export interface IndexedTool {
  name: string;
  description: string;
  parameters: JsonSchema;
  /** For a strict tool, the schema code mode declares (optional fields left optional). */
  looseParameters?: JsonSchema | undefined;
  outputSchema?: JsonSchema | undefined;
  options?: { readOnly?: boolean | undefined } | undefined;
}

/** Options for {@link createToolIndex}. */
export interface ToolIndexOptions {
  /**
   * The observed result type of a tool (by its real name), rendered by `renderObservedType`, shown in its
   * declaration as `Returns (observed): ...` when it has no output schema. Asked at each declaration.
   */
  observedReturns?: (toolName: string) => string | undefined;
  /** Add related words to queries ("meetings" → events). Default true; false is plain BM25F. */
  expandQueries?: boolean;
}

/** One tool of the index, as listed in the index text. */
export interface ToolIndexEntry {
  /** The identifier code calls it by: `tools.<name>(args)`. */
  name: string;
  /** The tool's registered name (differs from `name` when it holds characters code cannot). */
  toolName: string;
  /** The namespace its name starts with (`github` of `github__create_issue`), if any. */
  namespace: string | undefined;
  /** The first sentence of its description. */
  summary: string;
  /** The terms of its name, for ranking tools within a namespace. */
  nameTerms: readonly string[];
}

/** A tool that matched a search. */
export interface ToolMatch {
  /** The identifier code calls it by: `tools.<name>(args)`. */
  name: string;
  /** The first sentence of its description (the whole description is in `declaration`). */
  description: string;
  /** Its TypeScript signature with the JSDoc, as code mode declares it. */
  declaration: string;
  /** How well it matched; only the order among one search's matches means anything. */
  score: number;
}

/** Options of {@link ToolIndex.search}. */
export interface ToolSearchOptions {
  /** How many matches at most; default {@link DEFAULT_MATCH_LIMIT}, at most {@link MAX_MATCH_LIMIT}. */
  limit?: number;
}

/** A search index over one tool set. */
export interface ToolIndex {
  /** How many tools it holds. */
  readonly size: number;
  /** The tools, in the order given. */
  readonly entries: readonly ToolIndexEntry[];
  /** The tools that best match the words of `query`, best first; empty when none does. */
  search(query: string, options?: ToolSearchOptions): ToolMatch[];
  /** The declaration of one tool, by its identifier in code or its real name; undefined when unknown. */
  describe(name: string): string | undefined;
  /** The real name of a tool given by its identifier in code or its real name; undefined when unknown. */
  toolName(name: string): string | undefined;
}

/** Matches one search returns unless told otherwise (the same as `tools.$search` in code). */
export const DEFAULT_MATCH_LIMIT = DEFAULT_SEARCH_LIMIT;

/** Matches one search returns at most (the same as `tools.$search` in code). */
export const MAX_MATCH_LIMIT = MAX_SEARCH_LIMIT;

/** How much a term counts in each field: the name says most what a tool does. */
const FIELD_WEIGHTS: Readonly<Record<ToolField, number>> = {
  name: 3,
  namespace: 1.5,
  description: 1,
  parameters: 0.4,
};

/** BM25's length normalisation per field (0: none; 1: full). Names are short and alike in length. */
const FIELD_LENGTH_NORMALISATION: Readonly<Record<ToolField, number>> = {
  name: 0.3,
  namespace: 0,
  description: 0.75,
  parameters: 0.75,
};

/** BM25's term-frequency saturation. */
const K1 = 1.2;

/**
 * A query word at least this long also matches the longer words it begins ("remind" → reminder,
 * "deploy" → deployment), at {@link PREFIX_WEIGHT}: derived words that stemming does not fold.
 */
const PREFIX_MIN_LENGTH = 5;

/** The weight of a word matched by its beginning only. */
const PREFIX_WEIGHT = 0.5;

/** How many longer words one query word matches by its beginning at most. */
const MAX_PREFIX_MATCHES = 8;

/**
 * The weight of "list" added to a query that names things in the plural ("open incidents", "unpaid
 * invoices"): such a query usually wants a tool that lists them. Low, so that it only orders the tools
 * that match the query's own words.
 */
const PLURAL_LIST_WEIGHT = 0.3;

const LIST_TERM = "list";

interface Postings {
  docs: number[];
  impacts: number[];
}

/**
 * Builds the search index of a tool set (a `Toolset` or any list of tools). Throws a `UserError` when two
 * tools map to the same identifier in code, as code mode does.
 */
export function createToolIndex(tools: Iterable<IndexedTool>, options: ToolIndexOptions = {}): ToolIndex {
  const list = [...tools];
  // Throws, as code mode does, when two tools would have one identifier in code.
  toolIdentifiers(list.map((tool) => tool.name));
  const byName = new Map<string, number>();
  list.forEach((tool, i) => {
    byName.set(tool.name, i);
    byName.set(sanitizeToolName(tool.name), i);
  });
  const fields = list.map(toolFieldTerms);
  const postings = buildPostings(fields);
  const entries: ToolIndexEntry[] = list.map((tool, i) => ({
    name: sanitizeToolName(tool.name),
    toolName: tool.name,
    namespace: splitNamespace(tool.name).namespace,
    summary: summaryOf(tool.description),
    nameTerms: fields[i]!.name,
  }));
  const declarations = new Map<number, { observed: string | undefined; text: string }>();
  const declaration = (i: number): string => {
    const tool = list[i]!;
    const observed = options.observedReturns?.(tool.name);
    const cached = declarations.get(i);
    if (cached && cached.observed === observed) return cached.text;
    const text = declareTool(declaredTool(tool), observed);
    declarations.set(i, { observed, text });
    return text;
  };
  const rank = ranker(list.length, postings, options.expandQueries ?? true);

  return {
    size: list.length,
    entries,
    search(query, searchOptions = {}) {
      if (typeof query !== "string") {
        throw new UserError(`search: the query must be a string of words, got ${typeOf(query)}.`);
      }
      const limit = checkLimit(searchOptions.limit);
      return rank(query, limit).map(({ doc, score }) => ({
        name: entries[doc]!.name,
        description: entries[doc]!.summary,
        declaration: declaration(doc),
        score,
      }));
    },
    describe(name) {
      const i = typeof name === "string" ? byName.get(name) : undefined;
      return i === undefined ? undefined : declaration(i);
    },
    toolName(name) {
      const i = typeof name === "string" ? byName.get(name) : undefined;
      return i === undefined ? undefined : list[i]!.name;
    },
  };
}

/** The tool as code mode declares it: by its identifier, from its loose parameters. */
function declaredTool(tool: IndexedTool): DeclaredTool {
  return {
    name: sanitizeToolName(tool.name),
    description: tool.description,
    parameters: tool.looseParameters ?? tool.parameters,
    outputSchema: tool.outputSchema,
    readOnly: tool.options?.readOnly,
  };
}

/** Each term's postings: the tools holding it, with its BM25F impact on each (idf × saturated tf). */
function buildPostings(fields: readonly Record<ToolField, string[]>[]): Map<string, Postings> {
  const count = fields.length;
  const averageLength = Object.fromEntries(
    TOOL_FIELDS.map((field) => [
      field,
      Math.max(1, fields.reduce((sum, doc) => sum + doc[field].length, 0) / Math.max(1, count)),
    ]),
  ) as Record<ToolField, number>;
  const weighted = fields.map((doc) => {
    const tf = new Map<string, number>();
    for (const field of TOOL_FIELDS) {
      const b = FIELD_LENGTH_NORMALISATION[field];
      const norm = 1 - b + (b * doc[field].length) / averageLength[field];
      for (const term of doc[field]) {
        tf.set(term, (tf.get(term) ?? 0) + FIELD_WEIGHTS[field] / norm);
      }
    }
    return tf;
  });
  const documentFrequency = new Map<string, number>();
  for (const tf of weighted) {
    for (const term of tf.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  }
  const postings = new Map<string, Postings>();
  weighted.forEach((tf, doc) => {
    for (const [term, frequency] of tf) {
      const df = documentFrequency.get(term)!;
      const idf = Math.log(1 + (count - df + 0.5) / (df + 0.5));
      const entry = postings.get(term) ?? { docs: [], impacts: [] };
      entry.docs.push(doc);
      entry.impacts.push((idf * frequency * (K1 + 1)) / (frequency + K1));
      postings.set(term, entry);
    }
  });
  return postings;
}

type QueryGroup = { term: string; weight: number }[];

/**
 * The query's terms, each with the alternatives that count for it and their weights: the term itself,
 * the longer words it begins, its related words; and "list" when the query names things in the plural.
 */
function queryGroups(query: string, vocabulary: readonly string[], expand: boolean): QueryGroup[] {
  const seen = new Set<string>();
  const groups: QueryGroup[] = [];
  let plural = false;
  for (const { term, plural: isPlural } of analyzedTextTerms(query)) {
    plural ||= isPlural;
    if (seen.has(term)) continue;
    seen.add(term);
    const group: QueryGroup = [{ term, weight: 1 }];
    if (expand) {
      for (const longer of wordsBeginningWith(vocabulary, term))
        group.push({ term: longer, weight: PREFIX_WEIGHT });
      for (const related of relatedTerms(term)) group.push({ term: related, weight: RELATED_WEIGHT });
    }
    groups.push(group);
  }
  if (expand && plural && !seen.has(LIST_TERM))
    groups.push([{ term: LIST_TERM, weight: PLURAL_LIST_WEIGHT }]);
  return groups;
}

/** The words of the sorted vocabulary that begin with `term` and are longer, when it is long enough. */
function wordsBeginningWith(vocabulary: readonly string[], term: string): string[] {
  if (term.length < PREFIX_MIN_LENGTH) return [];
  let low = 0;
  let high = vocabulary.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (vocabulary[middle]! <= term) low = middle + 1;
    else high = middle;
  }
  const words: string[] = [];
  for (let i = low; i < vocabulary.length && words.length < MAX_PREFIX_MATCHES; i++) {
    if (!vocabulary[i]!.startsWith(term)) break;
    words.push(vocabulary[i]!);
  }
  return words;
}

/**
 * The ranking function. A query term scores a tool by its best alternative there (its own word, or a
 * related one at a lower weight), so that a tool is not ranked up for holding several synonyms of one word.
 */
function ranker(
  count: number,
  postings: Map<string, Postings>,
  expand: boolean,
): (query: string, limit: number) => { doc: number; score: number }[] {
  // Scratch arrays reused by every search: a search runs to completion synchronously.
  const total = new Float64Array(count);
  const best = new Float64Array(count);
  const vocabulary = [...postings.keys()].sort();
  return (query, limit) => {
    const touched: number[] = [];
    for (const group of queryGroups(query, vocabulary, expand)) {
      const inGroup: number[] = [];
      for (const { term, weight } of group) {
        const list = postings.get(term);
        if (list === undefined) continue;
        for (let i = 0; i < list.docs.length; i++) {
          const doc = list.docs[i]!;
          const value = weight * list.impacts[i]!;
          if (best[doc] === 0) inGroup.push(doc);
          if (value > best[doc]!) best[doc] = value;
        }
      }
      for (const doc of inGroup) {
        if (total[doc] === 0) touched.push(doc);
        total[doc]! += best[doc]!;
        best[doc] = 0;
      }
    }
    const ranked = touched.map((doc) => ({ doc, score: total[doc]! }));
    for (const doc of touched) total[doc] = 0;
    ranked.sort((a, b) => b.score - a.score || a.doc - b.doc);
    return ranked.slice(0, limit);
  };
}

function checkLimit(limit: unknown): number {
  if (limit === undefined) return DEFAULT_MATCH_LIMIT;
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > MAX_MATCH_LIMIT) {
    throw new UserError(
      `search: limit must be a whole number from 1 to ${MAX_MATCH_LIMIT}, got ${typeof limit === "number" ? limit : typeOf(limit)}.`,
    );
  }
  return limit;
}

function typeOf(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
}
