// Tool search at 1,000 tools: the time to build the index, and the time of one search (p50, p95) for the
// natural-language queries written for the test catalog. The catalog's 340 tools are repeated under
// renamed namespaces (github, github2, github3, ...) up to 1,000. Every timed search is checked to
// return matches; one that returns none stops the benchmark.
// Run: make bench (it measures the built package: "cordon" resolves to dist/).

import type { AnyTool } from "cordon";
import { createToolIndex, toolIndexText } from "cordon/discovery";
import { namespaceTools } from "../test/codemode/discovery/catalog/define.js";
import { CATALOG_NAMESPACES } from "../test/codemode/discovery/catalog/index.js";
import { CATALOG_QUERIES } from "../test/codemode/discovery/catalog/queries.js";
import { fmt, median } from "./stats.js";

const TOOLS = 1_000;
const ROUNDS = 30;

const tools: AnyTool[] = [];
for (let copy = 1; tools.length < TOOLS; copy++) {
  for (const [namespace, rows] of CATALOG_NAMESPACES) {
    tools.push(...namespaceTools(copy === 1 ? namespace : `${namespace}${copy}`, rows));
  }
}
tools.length = TOOLS;

const builds: number[] = [];
let index = createToolIndex(tools);
for (let i = 0; i < 10; i++) {
  const start = process.hrtime.bigint();
  index = createToolIndex(tools);
  builds.push(Number(process.hrtime.bigint() - start) / 1_000);
}

const search = (query: string): number => {
  const start = process.hrtime.bigint();
  const matches = index.search(query, { limit: 5 });
  const micros = Number(process.hrtime.bigint() - start) / 1_000;
  if (matches.length === 0 || !matches[0]!.declaration.includes(`${matches[0]!.name}(`)) {
    throw new Error(`benchmark "discovery": the search ${JSON.stringify(query)} returned no declared match`);
  }
  return micros;
};

// The first round renders each matched declaration once (then cached); it is timed apart.
const first = CATALOG_QUERIES.map(({ query }) => search(query));
const times: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  for (const { query } of CATALOG_QUERIES) times.push(search(query));
}
times.sort((a, b) => a - b);
const percentile = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))]!;

const textStart = process.hrtime.bigint();
const text = toolIndexText(index, { budget: 8_000 });
const textMicros = Number(process.hrtime.bigint() - textStart) / 1_000;

console.log(`tool search over ${index.size} tools, ${CATALOG_QUERIES.length} queries x ${ROUNDS} rounds`);
console.log(`  index build:            ${fmt(median(builds) / 1_000, "ms")} (median of ${builds.length})`);
console.log(`  search, p50:            ${fmt(percentile(50), "µs")}`);
console.log(`  search, p95:            ${fmt(percentile(95), "µs")}`);
console.log(`  search, max:            ${fmt(times[times.length - 1]!, "µs")}`);
console.log(`  first search per query: ${fmt(median(first), "µs")} median (renders declarations)`);
console.log(`  index text (8,000-char budget, ${text.detail}): ${fmt(textMicros / 1_000, "ms")}`);
