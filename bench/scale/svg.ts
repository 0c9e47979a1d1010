// SVG charts drawn by hand from series (no dependency, no service): a line chart with axes, labelled
// ticks (log scale on x when the sizes grow by multiples, ticked at the sizes measured), a legend and an optional marked bend, and a bar chart
// of named figures in panels. Colours come from a style sheet that follows the reader's colour scheme, so
// the charts read in GitHub's light and dark themes alike (the background stays transparent).

/** One point of a series. */
export interface Point {
  x: number;
  y: number;
}

/** A named line of a chart. */
export interface Series {
  name: string;
  points: readonly Point[];
  /** The palette colour to draw it in (default: its place in the chart), to pair series. */
  colour?: number;
  /** Drawn dashed (e.g. the p99 beside a p50 of the same colour). */
  dashed?: boolean;
}

/** What a line chart shows. */
export interface LineChartSpec {
  title: string;
  xLabel: string;
  yLabel: string;
  series: readonly Series[];
  /** Log scale on x (for sizes that grow by powers of 2 or 10), ticks at the sizes measured. Default: linear. */
  logX?: boolean;
  /** Log scale on y (for costs that span decades). Default: linear from 0. */
  logY?: boolean;
  /** Vertical dashed lines at given x, each labelled (where a curve bends). */
  marks?: readonly { x: number; label: string }[];
}

/** One bar of a bar chart's panel. */
export interface Bar {
  name: string;
  value: number;
}

/** A panel of a bar chart: one figure, measured for each of several subjects. */
export interface BarPanel {
  title: string;
  unit: string;
  /** Which way is better, said under the panel's title. */
  better: "lower" | "higher";
  bars: readonly Bar[];
}

/** What a bar chart shows: panels stacked, one colour per subject across all panels. */
export interface BarChartSpec {
  title: string;
  panels: readonly BarPanel[];
}

const WIDTH = 720;
const HEIGHT = 400;
const PLOT = { left: 78, right: 40, top: 46, bottom: 100 };
/** Colours that keep their contrast on a white and on a near-black page. */
const PALETTE = ["#3b82f6", "#f97316", "#10b981", "#e11d48", "#a855f7", "#ca8a04", "#0891b2", "#db2777"];
const STYLE = `<style>
text { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; font-size: 12px; fill: #57606a; }
.title { font-size: 15px; font-weight: 600; fill: #1f2328; }
.axis { stroke: #57606a; stroke-width: 1; }
.grid { stroke: #8c959f; stroke-opacity: 0.25; stroke-width: 1; }
.mark { stroke: #cf222e; stroke-width: 1.5; stroke-dasharray: 5 4; }
text.mark-label { fill: #cf222e; }
@media (prefers-color-scheme: dark) {
  text { fill: #9198a1; }
  .title { fill: #f0f6fc; }
  .axis { stroke: #9198a1; }
  .mark { stroke: #ff7b72; }
  text.mark-label { fill: #ff7b72; }
}
</style>`;

/** Escapes text for an SVG text node or attribute. */
export function escapeXml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");
}

/** A tick's label: 1,000 as 1k, 1,500,000 as 1.5M, fractions to two significant digits. */
export function tickLabel(value: number): string {
  const abs = Math.abs(value);
  const trim = (n: number) => String(Number(n.toPrecision(3)));
  if (abs >= 1e6) return `${trim(value / 1e6)}M`;
  if (abs >= 1e3) return `${trim(value / 1e3)}k`;
  if (abs === 0) return "0";
  return abs >= 1 ? trim(value) : String(Number(value.toPrecision(2)));
}

/** A bar's figure as a reader reads it in a table: 1,031 in full, small ones to three significant digits. */
const barLabel = (value: number) =>
  value >= 1_000 ? Math.round(value).toLocaleString("en-US") : String(Number(value.toPrecision(3)));

/** Ticks for a linear axis from 0 (or below, when data is negative) to a round number above `max`. */
export function linearTicks(min: number, max: number, count = 5): number[] {
  const low = Math.min(0, min);
  const span = max - low || Math.abs(max) || 1;
  const raw = span / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((f) => f * magnitude).find((s) => s >= raw)!;
  const ticks: number[] = [];
  for (let v = Math.floor(low / step) * step; v < max + step - step * 1e-9; v += step) {
    ticks.push(Number(v.toPrecision(12)));
  }
  return ticks;
}

/** Ticks for a log axis: the powers of 10 around [min, max], or the powers of 2 when that is under two decades. */
export function logTicks(min: number, max: number): number[] {
  const base = max / min >= 100 ? 10 : 2;
  const ticks: number[] = [];
  let v = base ** Math.floor(Math.log(min) / Math.log(base) + 1e-9);
  ticks.push(v);
  while (v < max * (1 - 1e-9)) {
    v *= base;
    ticks.push(v);
  }
  return ticks;
}

interface Scale {
  at(value: number): number;
  ticks: number[];
}

/** A scale over `values` onto [from, to]; a log scale's ticks are `at` when given (the sizes measured). */
function scaleOf(values: number[], log: boolean, from: number, to: number, at?: number[]): Scale {
  const positive = values.filter((v) => v > 0);
  if (log && positive.length > 0) {
    const ticks = at ?? logTicks(Math.min(...positive), Math.max(...positive));
    const lo = Math.log(Math.min(ticks[0]!, ...positive));
    const hi = Math.log(Math.max(ticks.at(-1)!, ...positive));
    const place = (v: number) =>
      from + ((Math.log(Math.max(v, Math.exp(lo))) - lo) / (hi - lo || 1)) * (to - from);
    return { at: place, ticks };
  }
  const ticks = linearTicks(Math.min(...values), Math.max(...values));
  const [lo, hi] = [ticks[0]!, ticks.at(-1)!];
  return { at: (v: number) => from + ((v - lo) / (hi - lo || 1)) * (to - from), ticks };
}

/** The sizes measured, as a log x axis's ticks, when they are few enough to label each. */
function measuredSizes(xs: number[]): number[] | undefined {
  const distinct = [...new Set(xs.filter((x) => x > 0))].sort((a, b) => a - b);
  return distinct.length <= 12 ? distinct : undefined;
}

const round = (n: number) => Math.round(n * 10) / 10;
const text = (x: number, y: number, body: string, attrs = "") =>
  `<text x="${round(x)}" y="${round(y)}"${attrs ? ` ${attrs}` : ""}>${escapeXml(body)}</text>`;

function legend(
  series: readonly { name: string; colour: number; dashed?: boolean }[],
  top: number,
): string[] {
  const out: string[] = [];
  const columns = 3;
  const width = (WIDTH - PLOT.left - PLOT.right) / columns;
  series.forEach(({ name, colour: c, dashed }, i) => {
    const x = PLOT.left + (i % columns) * width;
    const y = top + Math.floor(i / columns) * 18;
    out.push(
      `<line x1="${round(x)}" x2="${round(x + 16)}" y1="${round(y - 4)}" y2="${round(y - 4)}" stroke="${colour(c)}" stroke-width="3"${dashed ? ' stroke-dasharray="4 3"' : ""}/>`,
    );
    out.push(text(x + 22, y, name));
  });
  return out;
}

const colour = (i: number) => PALETTE[i % PALETTE.length]!;

/** A line chart of `spec` as a standalone SVG document. */
export function lineChart(spec: LineChartSpec): string {
  const points = spec.series.flatMap((s) => s.points);
  if (points.length === 0) throw new Error(`lineChart "${spec.title}": no points to draw`);
  const rows = Math.ceil(spec.series.length / 3);
  const height = HEIGHT + (rows - 1) * 18;
  const bottom = height - PLOT.bottom;
  const xs = points.map((p) => p.x);
  const x = scaleOf(xs, spec.logX ?? false, PLOT.left, WIDTH - PLOT.right, measuredSizes(xs));
  const y = scaleOf(
    points.map((p) => p.y),
    spec.logY ?? false,
    bottom,
    PLOT.top,
  );
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" role="img" aria-label="${escapeXml(spec.title)}">`,
    STYLE,
    text(PLOT.left, 26, spec.title, 'class="title"'),
  ];
  for (const tick of y.ticks) {
    const at = round(y.at(tick));
    out.push(`<line class="grid" x1="${PLOT.left}" x2="${WIDTH - PLOT.right}" y1="${at}" y2="${at}"/>`);
    out.push(text(PLOT.left - 8, at + 4, tickLabel(tick), 'text-anchor="end" class="tick"'));
  }
  for (const tick of x.ticks) {
    const at = round(x.at(tick));
    out.push(`<line class="grid" x1="${at}" x2="${at}" y1="${PLOT.top}" y2="${bottom}"/>`);
    out.push(text(at, bottom + 18, tickLabel(tick), 'text-anchor="middle" class="tick"'));
  }
  out.push(`<line class="axis" x1="${PLOT.left}" x2="${WIDTH - PLOT.right}" y1="${bottom}" y2="${bottom}"/>`);
  out.push(`<line class="axis" x1="${PLOT.left}" x2="${PLOT.left}" y1="${PLOT.top}" y2="${bottom}"/>`);
  out.push(text((PLOT.left + WIDTH - PLOT.right) / 2, bottom + 38, spec.xLabel, 'text-anchor="middle"'));
  const yMid = (PLOT.top + bottom) / 2;
  out.push(text(18, yMid, spec.yLabel, `text-anchor="middle" transform="rotate(-90 18 ${round(yMid)})"`));
  for (const mark of spec.marks ?? []) {
    const at = round(x.at(mark.x));
    out.push(`<line class="mark" x1="${at}" x2="${at}" y1="${PLOT.top}" y2="${bottom}"/>`);
    const anchor = at > (PLOT.left + WIDTH) / 2 ? "end" : "start";
    out.push(
      text(
        at + (anchor === "end" ? -6 : 6),
        PLOT.top + 12,
        mark.label,
        `text-anchor="${anchor}" class="mark-label"`,
      ),
    );
  }
  // A log axis has no place for 0 or less: such points are left out of the line (the table has them).
  const shown = (p: Point) => (!spec.logX || p.x > 0) && (!spec.logY || p.y > 0);
  const styled = spec.series.map((series, i) => ({
    ...series,
    points: series.points.filter(shown),
    colour: series.colour ?? i,
  }));
  for (const series of styled) {
    const path = series.points.map((p) => `${round(x.at(p.x))},${round(y.at(p.y))}`).join(" ");
    const dash = series.dashed ? ' stroke-dasharray="6 4"' : "";
    out.push(
      `<polyline fill="none" stroke="${colour(series.colour)}" stroke-width="2"${dash} points="${path}"/>`,
    );
    for (const p of series.points) {
      out.push(
        `<circle class="point" cx="${round(x.at(p.x))}" cy="${round(y.at(p.y))}" r="3" fill="${colour(series.colour)}"/>`,
      );
    }
  }
  out.push(...legend(styled, bottom + 62));
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}

const BAR_HEIGHT = 16;
const BAR_GAP = 6;
const PANEL_HEAD = 40;
const BAR_LEFT = 250;

/** A bar chart of `spec` (horizontal bars, one panel per figure) as a standalone SVG document. */
export function barChart(spec: BarChartSpec): string {
  if (spec.panels.length === 0) throw new Error(`barChart "${spec.title}": no panels to draw`);
  const names = [...new Set(spec.panels.flatMap((p) => p.bars.map((b) => b.name)))];
  const panelHeight = (p: BarPanel) => PANEL_HEAD + p.bars.length * (BAR_HEIGHT + BAR_GAP) + 10;
  const height = 50 + spec.panels.reduce((sum, p) => sum + panelHeight(p), 0);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" role="img" aria-label="${escapeXml(spec.title)}">`,
    STYLE,
    text(24, 26, spec.title, 'class="title"'),
  ];
  let top = 50;
  for (const panel of spec.panels) {
    out.push(text(24, top + 14, panel.title, 'font-weight="600"'));
    out.push(text(24, top + 30, `${panel.unit}, ${panel.better} is better`));
    const max = Math.max(...panel.bars.map((b) => b.value)) || 1;
    const room = WIDTH - BAR_LEFT - 90;
    panel.bars.forEach((bar, i) => {
      const y = top + PANEL_HEAD + i * (BAR_HEIGHT + BAR_GAP);
      const w = Math.max(1, (bar.value / max) * room);
      out.push(text(BAR_LEFT - 8, y + 12, bar.name, 'text-anchor="end"'));
      out.push(
        `<rect class="bar" x="${BAR_LEFT}" y="${y}" width="${round(w)}" height="${BAR_HEIGHT}" rx="2" fill="${colour(names.indexOf(bar.name))}"/>`,
      );
      out.push(text(BAR_LEFT + w + 6, y + 12, `${barLabel(bar.value)} ${panel.unit}`));
    });
    top += panelHeight(panel);
  }
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}
