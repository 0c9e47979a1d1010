// Draws the bench-peers comparison as an SVG bar chart (docs/charts/peers.svg): one panel per figure,
// one bar per executor, from the report `make bench-peers` printed (.bench-peers/report.txt, or the
// file named as the first argument). Run: make bench-peers (it draws the chart after the report).

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parsePeersReport, peerPanels } from "./peers-report.js";
import { barChart } from "./svg.js";

const report = process.argv[2] ?? ".bench-peers/report.txt";
const out = process.env.CORDON_SCALE_OUT ?? "docs/charts";
const header = readFileSync(report, "utf8");
const executors = parsePeersReport(header);
const node = /one (v[\d.]+) process/.exec(header)?.[1] ?? "Node";
const file = join(out, "peers.svg");
writeFileSync(
  file,
  barChart({
    title: `cordon beside the code-mode peers (one ${node} process, medians)`,
    panels: peerPanels(executors),
  }),
);
console.log(`bench-peers: chart of ${executors.length} executors written to ${file}`);
