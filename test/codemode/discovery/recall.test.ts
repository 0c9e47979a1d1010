/** Recall@5 of tool search on the 340-tool test catalog, for the queries written for it. */

import { describe, expect, it } from "vitest";
import { createToolIndex, type ToolIndex } from "../../../src/codemode/discovery/tool-index.js";
import { catalogTools } from "./catalog/index.js";
import { CATALOG_QUERIES } from "./catalog/queries.js";

/** The share of the expected tools found in the first `k` matches, averaged over the queries. */
function recallAt(index: ToolIndex, k: number): { recall: number; misses: string[] } {
  let sum = 0;
  const misses: string[] = [];
  for (const { query, expected } of CATALOG_QUERIES) {
    const found = index.search(query, { limit: k }).map((match) => match.name);
    const hits = expected.filter((name) => found.includes(name));
    sum += hits.length / expected.length;
    if (hits.length < expected.length) {
      const missing = expected.filter((name) => !hits.includes(name));
      misses.push(`"${query}": wanted ${missing.join(", ")}; got ${found.join(", ") || "nothing"}`);
    }
  }
  return { recall: sum / CATALOG_QUERIES.length, misses };
}

describe("tool search on the test catalog", () => {
  const tools = catalogTools();

  it("has at least 300 tools and 60 queries, every expected tool in the catalog", () => {
    const names = new Set(tools.map((t) => t.name));
    expect(tools.length).toBeGreaterThanOrEqual(300);
    expect(CATALOG_QUERIES.length).toBeGreaterThanOrEqual(60);
    const unknown = CATALOG_QUERIES.flatMap((q) => q.expected).filter((name) => !names.has(name));
    expect(unknown).toEqual([]);
  });

  it("finds the expected tools in the first five for at least 90% of what the queries need", () => {
    const { recall, misses } = recallAt(createToolIndex(tools), 5);
    const plain = recallAt(createToolIndex(tools, { expandQueries: false }), 5);
    console.log(
      `recall@5 = ${recall.toFixed(3)} over ${CATALOG_QUERIES.length} queries and ${tools.length} tools ` +
        `(plain BM25F without related words: ${plain.recall.toFixed(3)}); misses:\n  ${misses.join("\n  ") || "none"}`,
    );
    expect(recall).toBeGreaterThanOrEqual(0.9);
  });
});
