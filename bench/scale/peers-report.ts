// Reads the report `make bench-peers` prints (bench/peers/peers.mjs): each executor's name on a line
// indented two spaces, then its figures indented four ("label: value unit (ratio) [range]"), and turns
// it into the panels of a bar chart, one per figure, one bar per executor.

import type { BarPanel } from "./svg.js";

/** One executor's figures from the report: label -> value and unit. */
export interface PeerFigures {
  name: string;
  figures: Record<string, { value: number; unit: string }>;
}

const EXECUTOR = /^ {2}(\S.*?)\s*$/;
const FIGURE = /^ {4}(\S[^:]*):\s+([\d,.]+) (\S+)/;

/** The executors and their figures in a bench-peers report; throws when it holds none. */
export function parsePeersReport(text: string): PeerFigures[] {
  const executors: PeerFigures[] = [];
  for (const line of text.split("\n")) {
    const figure = FIGURE.exec(line);
    if (figure && executors.length > 0) {
      const [, label, value, unit] = figure;
      executors.at(-1)!.figures[label!.trim()] = { value: Number(value!.replaceAll(",", "")), unit: unit! };
      continue;
    }
    const executor = EXECUTOR.exec(line);
    if (executor && !line.startsWith("   ") && !executor[1]!.includes(": ")) {
      executors.push({ name: executor[1]!, figures: {} });
    }
  }
  const measured = executors.filter((e) => Object.keys(e.figures).length > 0);
  if (measured.length === 0) {
    throw new Error(
      "bench-peers report: no executor with figures found (expected lines such as '    trivial run: 1.0 ms')",
    );
  }
  return measured;
}

/** Units whose larger figure is better; every other unit (time) is better lower. */
const HIGHER_IS_BETTER = /\/s$/;

/** One bar panel per figure the executors report, in the report's order. */
export function peerPanels(executors: readonly PeerFigures[]): BarPanel[] {
  const labels = [...new Set(executors.flatMap((e) => Object.keys(e.figures)))];
  return labels.map((label) => {
    const bars = executors
      .filter((e) => e.figures[label] !== undefined)
      .map((e) => ({ name: e.name, value: e.figures[label]!.value }));
    const unit = executors.find((e) => e.figures[label])!.figures[label]!.unit;
    return { title: label, unit, better: HIGHER_IS_BETTER.test(unit) ? "higher" : "lower", bars };
  });
}
