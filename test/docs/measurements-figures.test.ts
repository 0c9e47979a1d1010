// docs/measurements.json keeps the figures of record of docs/measurements.md's table in a form make
// bench-check can read: each must be a figure of the table's row it names, so that the two never part.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const doc = readFileSync(resolve(root, "docs/measurements.md"), "utf8");
const recorded = JSON.parse(readFileSync(resolve(root, "docs/measurements.json"), "utf8")) as {
  figures: Record<string, { value: number; unit: string; better: string; row: string }>;
};

/** The numbers in a table row's cells after the first ("1,042" read as 1042). */
function figuresOfRow(row: string): number[] {
  const line = doc.split("\n").find((l) => l.startsWith(`| ${row}`));
  if (!line) throw new Error(`docs/measurements.md has no table row starting "| ${row}"`);
  const cells = line.split(" | ").slice(1).join(" | ");
  return [...cells.matchAll(/\d[\d,]*(?:\.\d+)?/g)].map((m) => Number(m[0].replaceAll(",", "")));
}

describe("docs/measurements.json, the figures make bench-check compares with", () => {
  it("has figures, each with a unit and which way is better", () => {
    const figures = Object.values(recorded.figures);
    expect(figures.length).toBeGreaterThan(0);
    for (const f of figures) {
      expect(f.unit).not.toBe("");
      expect(["lower", "higher"]).toContain(f.better);
    }
  });

  for (const [id, figure] of Object.entries(recorded.figures)) {
    it(`${id} is a figure of the table row "${figure.row}"`, () => {
      expect(figuresOfRow(figure.row)).toContain(figure.value);
    });
  }
});
