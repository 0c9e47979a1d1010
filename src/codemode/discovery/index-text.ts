/**
 * The compact index of a catalog that the model reads instead of every declaration: tool names with their
 * one-line summaries grouped by namespace, shortened step by step until it fits a budget.
 */

import type { ToolIndex, ToolIndexEntry } from "./tool-index.js";

/** How much of the catalog an index text lists, from most to least. */
export type IndexTextDetail = "summaries" | "names" | "namespaces";

/** Options for {@link toolIndexText}. */
export interface ToolIndexTextOptions {
  /** The most the text may measure; without it, the fullest text is returned. */
  budget?: number;
  /** How a text is measured against the budget; default its length in characters. */
  measure?: (text: string) => number;
}

/** An index text and how much of the catalog it lists. */
export interface ToolIndexText {
  text: string;
  /**
   * `summaries`: every tool with its summary; `names`: every tool's name; `namespaces`: each namespace with
   * its tool count and a few of its best-known tools (or none, when even those do not fit).
   */
  detail: IndexTextDetail;
}

/** The most best-known tools listed per namespace when only namespaces fit. */
export const MAX_BEST_KNOWN_TOOLS = 5;

/** The heading of tools whose names have no namespace. */
const NO_NAMESPACE = "other";

/**
 * The index text of a catalog within `budget`: the first of these that fits, from the fullest —
 * every tool with its summary; every tool's name; each namespace with its count and its
 * {@link MAX_BEST_KNOWN_TOOLS} best-known tools, then fewer; each namespace with its count only (returned
 * even when it does not fit, as the least there is). Namespaces keep the catalog's order.
 */
export function toolIndexText(index: ToolIndex, options: ToolIndexTextOptions = {}): ToolIndexText {
  const measure = options.measure ?? ((text: string) => text.length);
  const fits = (text: string) => options.budget === undefined || measure(text) <= options.budget;
  const groups = byNamespace(index.entries);
  const flat = groups.length === 1 && groups[0]!.namespace === undefined;

  const summaries = groups
    .map(({ namespace, entries }) => {
      const lines = entries.map((entry) => `${flat ? "" : "  "}${entry.name}: ${entry.summary}`);
      return flat ? lines.join("\n") : `${heading(namespace, entries.length)}:\n${lines.join("\n")}`;
    })
    .join("\n");
  if (fits(summaries)) return { text: summaries, detail: "summaries" };

  const names = groups
    .map(({ namespace, entries }) => {
      const list = entries.map((entry) => entry.name).join(", ");
      return flat ? list : `${heading(namespace, entries.length)}: ${list}`;
    })
    .join("\n");
  if (fits(names)) return { text: names, detail: "names" };

  let namespaces = "";
  for (let shown = MAX_BEST_KNOWN_TOOLS; shown >= 0; shown--) {
    namespaces = groups
      .map(({ namespace, entries }) => {
        const best = bestKnown(entries, shown).map((entry) => entry.name);
        const count = heading(namespace, entries.length);
        return best.length === 0 ? count : `${count}, e.g. ${best.join(", ")}`;
      })
      .join("\n");
    if (fits(namespaces)) break;
  }
  return { text: namespaces, detail: "namespaces" };
}

function heading(namespace: string | undefined, count: number): string {
  return `${namespace ?? NO_NAMESPACE} (${count} tool${count === 1 ? "" : "s"})`;
}

function byNamespace(
  entries: readonly ToolIndexEntry[],
): { namespace: string | undefined; entries: ToolIndexEntry[] }[] {
  const groups = new Map<string | undefined, ToolIndexEntry[]>();
  for (const entry of entries) {
    const group = groups.get(entry.namespace) ?? [];
    group.push(entry);
    groups.set(entry.namespace, group);
  }
  return [...groups].map(([namespace, list]) => ({ namespace, entries: list }));
}

/**
 * The namespace's `count` most representative tools: those whose name words recur most among the
 * namespace's tools (`list_issues` in a namespace of issue tools), fewer words first, then in catalog
 * order. Cheap, and it picks the tools that name what the namespace is about.
 */
export function bestKnown(entries: readonly ToolIndexEntry[], count: number): ToolIndexEntry[] {
  if (count <= 0) return [];
  const frequency = new Map<string, number>();
  for (const entry of entries) {
    for (const term of new Set(entry.nameTerms)) frequency.set(term, (frequency.get(term) ?? 0) + 1);
  }
  const centrality = (entry: ToolIndexEntry) =>
    entry.nameTerms.length === 0
      ? 0
      : entry.nameTerms.reduce((sum, term) => sum + frequency.get(term)!, 0) / entry.nameTerms.length;
  return entries
    .map((entry, order) => ({ entry, order, centrality: centrality(entry) }))
    .sort(
      (a, b) =>
        b.centrality - a.centrality ||
        a.entry.nameTerms.length - b.entry.nameTerms.length ||
        a.order - b.order,
    )
    .slice(0, count)
    .map(({ entry }) => entry);
}
