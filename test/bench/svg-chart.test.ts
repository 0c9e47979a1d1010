// The charts of make bench-scale and make bench-peers: standalone SVG documents, well-formed, with one
// marker per point, one label per tick, a legend entry per series and a bar per figure.
import { describe, expect, it } from "vitest";
import { barChart, linearTicks, lineChart, logTicks, tickLabel } from "../../bench/scale/svg.js";
import { checkWellFormedXml } from "./well-formed-xml.js";

const spec = {
  title: "Runs per second against runs at once <&>",
  xLabel: "runs at once",
  yLabel: "runs/s",
  logX: true,
  series: [
    { name: "in-process", points: [1, 4, 16, 64, 256].map((x) => ({ x, y: 100 * Math.min(x, 4) })) },
    { name: "default", points: [1, 4, 16, 64, 256].map((x) => ({ x, y: 50 * Math.min(x, 2) })) },
  ],
  marks: [{ x: 4, label: "bends at 4" }],
};

describe("lineChart", () => {
  it("draws a well-formed SVG document with a circle per point and a polyline per series", () => {
    const elements = checkWellFormedXml(lineChart(spec));
    expect(elements[0]!.name).toBe("svg");
    expect(elements[0]!.attributes.xmlns).toBe("http://www.w3.org/2000/svg");
    expect(elements.filter((e) => e.name === "circle")).toHaveLength(10);
    const lines = elements.filter((e) => e.name === "polyline");
    expect(lines.map((l) => l.attributes.points!.split(" ").length)).toEqual([5, 5]);
  });

  it("labels the log x axis at each size measured, and names each series in the legend", () => {
    const texts = checkWellFormedXml(lineChart(spec))
      .filter((e) => e.name === "text")
      .map((e) => e.text);
    for (const tick of ["1", "4", "16", "64", "256"]) expect(texts).toContain(tick);
    expect(texts).not.toContain("8");
    expect(texts).toEqual(
      expect.arrayContaining(["in-process", "default", "runs at once", "runs/s", "bends at 4"]),
    );
    expect(texts).toContain("Runs per second against runs at once <&>");
  });

  it("keeps its colours readable in a dark theme: a prefers-color-scheme rule, no background", () => {
    const svg = lineChart(spec);
    expect(svg).toContain("@media (prefers-color-scheme: dark)");
    expect(checkWellFormedXml(svg).some((e) => e.name === "rect" && e.attributes.width === "720")).toBe(
      false,
    );
  });

  it("draws a series in the colour it names, dashed when asked, and shows it so in the legend", () => {
    const [first, second] = spec.series;
    const elements = checkWellFormedXml(
      lineChart({ ...spec, series: [first!, { ...second!, colour: 0, dashed: true }] }),
    );
    const [solid, dashed] = elements.filter((e) => e.name === "polyline");
    expect(dashed!.attributes.stroke).toBe(solid!.attributes.stroke);
    expect(dashed!.attributes["stroke-dasharray"]).toBeDefined();
    expect(solid!.attributes["stroke-dasharray"]).toBeUndefined();
    const legend = elements.filter((e) => e.name === "line" && e.attributes["stroke-width"] === "3");
    expect(legend.map((l) => l.attributes["stroke-dasharray"] !== undefined)).toEqual([false, true]);
  });

  it("leaves out of a log-scale line the points at 0, which it cannot place", () => {
    const elements = checkWellFormedXml(
      lineChart({
        ...spec,
        logY: true,
        series: [
          {
            name: "search",
            points: [
              { x: 1, y: 2 },
              { x: 10, y: 0 },
              { x: 100, y: 3 },
            ],
          },
        ],
      }),
    );
    expect(elements.filter((e) => e.name === "circle")).toHaveLength(2);
  });

  it("refuses a chart with no points, saying which", () => {
    expect(() => lineChart({ ...spec, series: [] })).toThrow(/lineChart "Runs per second.*no points/);
  });
});

describe("barChart", () => {
  it("draws a bar and a value label per figure, panel by panel", () => {
    const elements = checkWellFormedXml(
      barChart({
        title: "cordon beside the peers",
        panels: [
          {
            title: "trivial run",
            unit: "ms",
            better: "lower",
            bars: [
              { name: "cordon", value: 1.2 },
              { name: "peer", value: 3 },
            ],
          },
          {
            title: "runs, 4 at once",
            unit: "runs/s",
            better: "higher",
            bars: [
              { name: "cordon", value: 900 },
              { name: "peer", value: 1_031 },
            ],
          },
        ],
      }),
    );
    expect(elements.filter((e) => e.name === "rect" && e.attributes.class === "bar")).toHaveLength(4);
    const texts = elements.filter((e) => e.name === "text").map((e) => e.text);
    expect(texts).toEqual(
      expect.arrayContaining(["1.2 ms", "3 ms", "900 runs/s", "1,031 runs/s", "ms, lower is better"]),
    );
  });
});

describe("axis ticks", () => {
  it("log ticks are the powers of 10 over two decades and more, else the powers of 2", () => {
    expect(logTicks(10, 10_000)).toEqual([10, 100, 1_000, 10_000]);
    expect(logTicks(1, 16)).toEqual([1, 2, 4, 8, 16]);
    expect(logTicks(0.7, 189)).toEqual([0.1, 1, 10, 100, 1_000]);
  });

  it("linear ticks start at 0 and end on a round number at or above the maximum", () => {
    expect(linearTicks(3, 847)).toEqual([0, 200, 400, 600, 800, 1_000]);
  });

  it("tick labels shorten thousands and millions", () => {
    expect([tickLabel(1_000), tickLabel(2_500_000), tickLabel(0.25), tickLabel(64)]).toEqual([
      "1k",
      "2.5M",
      "0.25",
      "64",
    ]);
  });
});
