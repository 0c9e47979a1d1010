// `tools.$search` against the catalog's size: a code mode with discovery "search" over N tools (the test
// catalog's 340 repeated under renamed namespaces, as bench/discovery.ts), on the in-process isolate. The
// code runs one `$search` and returns the best match's name, checked against the index searched directly
// (cordon/discovery, same tools); the search's time is the run's less a run that returns at once, both
// timed in alternation (the run without a search is a series of its own: what a catalog costs every
// run), and the host's side alone, the index searched directly. The first run (which builds the index)
// is timed apart.

import { type AnyTool, codeMode } from "cordon";
import { createToolIndex } from "cordon/discovery";
import { isolateEnvironment } from "cordon/in-process";
import { namespaceTools } from "../../../test/codemode/discovery/catalog/define.js";
import { CATALOG_NAMESPACES } from "../../../test/codemode/discovery/catalog/index.js";
import { CATALOG_QUERIES } from "../../../test/codemode/discovery/catalog/queries.js";
import { expectRun } from "../../check.js";
import { median } from "../../stats.js";
import { findBend } from "../bend.js";
import { describeBend } from "../cause.js";
import { type Curve, cell, type Sample, sizes } from "../curve.js";
import { startProbe } from "../probe.js";

const ROUNDS = 10;
const QUERIES = CATALOG_QUERIES.slice(0, 8).map((q) => q.query);

function catalog(size: number): AnyTool[] {
  const tools: AnyTool[] = [];
  for (let copy = 1; tools.length < size; copy++) {
    for (const [namespace, rows] of CATALOG_NAMESPACES) {
      tools.push(...namespaceTools(copy === 1 ? namespace : `${namespace}${copy}`, rows));
    }
  }
  return tools.slice(0, size);
}

const searchCode = (query: string) =>
  `return (await tools.$search(${JSON.stringify(query)}, { limit: 5 }))[0]?.name ?? null`;

/** The search curve: one `$search` from code against the catalog's size. */
export async function searchCurve(): Promise<Curve> {
  const levels = sizes("search", [10, 100, 1_000, 10_000], [10, 100, 1_000]);
  const samples: Sample[] = [];
  const bases: Sample[] = [];
  const firsts: Sample[] = [];
  const hostSearches: Sample[] = [];
  const rows: string[][] = [];
  for (const size of levels) {
    process.stderr.write(`bench-scale: $search over ${size} tools\n`);
    const tools = catalog(size);
    const index = createToolIndex(tools);
    const expected = QUERIES.map((q) => index.search(q, { limit: 5 })[0]?.name ?? null);
    // The host's side of a $search alone: the index searched directly, each query's top match checked.
    const hostTimes: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, query] of QUERIES.entries()) {
        const started = performance.now();
        const top = index.search(query, { limit: 5 })[0]?.name ?? null;
        hostTimes.push(performance.now() - started);
        if (top !== expected[i])
          throw new Error(
            `benchmark "$search over ${size} tools": the index answered ${top} for ${query}, then ${expected[i]}`,
          );
      }
    }
    const cm = codeMode({ tools, environment: isolateEnvironment(), discovery: "search" });
    try {
      const firstStart = performance.now();
      expectRun(await cm.run(searchCode(QUERIES[0]!)), expected[0], `$search over ${size} tools, first run`);
      const first = performance.now() - firstStart;
      const probe = startProbe();
      const withSearch: number[] = [];
      const without: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        for (const [i, query] of QUERIES.entries()) {
          let started = performance.now();
          expectRun(
            await cm.run(searchCode(query)),
            expected[i],
            `$search ${JSON.stringify(query)} over ${size} tools`,
          );
          withSearch.push(performance.now() - started);
          started = performance.now();
          expectRun(await cm.run("return null"), null, `a run without $search, ${size} tools`);
          without.push(performance.now() - started);
        }
      }
      const signals = probe.stop();
      const search = Math.max(0, median(withSearch) - median(without));
      samples.push({ x: size, y: search, signals });
      bases.push({ x: size, y: median(without), signals });
      hostSearches.push({ x: size, y: median(hostTimes), signals });
      firsts.push({ x: size, y: first, signals });
      rows.push([
        size.toLocaleString("en-US"),
        cell(search, 3),
        cell(median(hostTimes), 3),
        cell(median(without), 3),
        cell(first, 1),
      ]);
    } finally {
      await cm.close();
    }
  }
  const signalsAt = (x: number) => samples.find((s) => s.x === x)?.signals;
  const bends = [
    `$search: ${describeBend(findBend(samples), { per: "tools", cost: (v) => `${(v * 1e6).toFixed(2)} ns` }, signalsAt, { from: levels[0]!, to: levels.at(-1)! })}`,
    `the index searched on the host: ${describeBend(findBend(hostSearches), { per: "tools", cost: (v) => `${(v * 1e6).toFixed(2)} ns` }, signalsAt, { from: levels[0]!, to: levels.at(-1)! })}`,
    `a run without $search: ${describeBend(findBend(bases), { per: "tools", cost: (v) => `${(v * 1000).toFixed(1)} µs` }, signalsAt, { from: levels[0]!, to: levels.at(-1)! })}`,
    `first run (builds the index): ${describeBend(findBend(firsts), { per: "tools", cost: (v) => `${(v * 1000).toFixed(1)} µs` }, signalsAt, { from: levels[0]!, to: levels.at(-1)! })}`,
  ];
  return {
    id: "search",
    title: "tools.$search from code against the catalog's size (in-process)",
    series: {
      "$search ms": samples,
      "index search ms": hostSearches,
      "run without $search ms": bases,
      "first run ms (index built)": firsts,
    },
    charts: [
      {
        file: "scale-search.svg",
        spec: {
          title: "tools.$search against the catalog's size (in-process)",
          xLabel: "tools in the catalog",
          yLabel: "ms",
          logX: true,
          logY: true,
          series: [
            { name: "one $search from code", points: samples },
            { name: "the index searched on the host", points: hostSearches },
            { name: "a run without $search", points: bases },
            { name: "first run (index built)", points: firsts },
          ],
        },
      },
    ],
    table: {
      columns: [
        "tools",
        "$search ms (from code)",
        "index search ms (host)",
        "run without ms",
        "first run ms",
      ],
      rows,
    },
    bends,
  };
}
