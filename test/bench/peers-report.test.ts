// The bench-peers report read back into bar-chart panels (make bench-peers draws docs/charts/peers.svg).
import { describe, expect, it } from "vitest";
import { parsePeersReport, peerPanels } from "../../bench/scale/peers-report.js";

const REPORT = `code-mode executors in one v22.12.0 process, median of 5 rounds [range over the rounds] (ratios: against TanStack, same run)
  cordon, in-process isolate
    trivial run:                 0.96 ms (0.37x) [0.90-1.10]
    one sequential tool call:    48 µs (0.70x) [45-52]
    trivial runs, 4 at once:     1,244 runs/s (2.45x) [1,100-1,300]
  TanStack ai-code-mode (isolated-vm)
    trivial run:                 2.52 ms (1.00x) [2.40-2.60]
    one sequential tool call:    66 µs (1.00x) [60-70]
    trivial runs, 4 at once:     505 runs/s (1.00x) [480-530]
  for reference: one JSON line to a child Node process over pipes and back (no sandbox, no tool): 30 µs (0.45x TanStack's sequential call) [28-35]
bench-peers: report complete
`;

describe("parsePeersReport", () => {
  it("reads each executor's figures with their units, thousands separators removed", () => {
    const executors = parsePeersReport(REPORT);
    expect(executors.map((e) => e.name)).toEqual([
      "cordon, in-process isolate",
      "TanStack ai-code-mode (isolated-vm)",
    ]);
    expect(executors[0]!.figures).toEqual({
      "trivial run": { value: 0.96, unit: "ms" },
      "one sequential tool call": { value: 48, unit: "µs" },
      "trivial runs, 4 at once": { value: 1_244, unit: "runs/s" },
    });
  });

  it("refuses a report without figures, saying what it looked for", () => {
    expect(() => parsePeersReport("bench-peers: report complete\n")).toThrow(
      /no executor with figures found/,
    );
  });
});

describe("peerPanels", () => {
  it("makes a panel per figure with a bar per executor; rates are better higher, times lower", () => {
    const panels = peerPanels(parsePeersReport(REPORT));
    expect(panels.map((p) => [p.title, p.unit, p.better, p.bars.length])).toEqual([
      ["trivial run", "ms", "lower", 2],
      ["one sequential tool call", "µs", "lower", 2],
      ["trivial runs, 4 at once", "runs/s", "higher", 2],
    ]);
  });
});
