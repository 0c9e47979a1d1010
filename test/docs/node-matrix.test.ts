// The table of tested Node versions (docs/install.md) is made from scripts/node-matrix.json, the file that decides
// what scripts/node-matrix.sh runs (the script refuses to run a Node or an isolated-vm other than the
// pinned ones). Its first row is the machine's Node, which runs every suite: this run is that row.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");

interface Pin {
  node: string;
  isolatedVm: string;
  /** Why make test does not run this Node yet (scripts/node-matrix.sh leaves it out and says so). */
  pending?: string;
}

const pins = JSON.parse(readFileSync(join(root, "scripts/node-matrix.json"), "utf8")) as {
  machine: Pin;
  nodes: Pin[];
};

/** The table's lines as scripts/node-matrix.json makes them. */
function tableFromPins(): string[] {
  const matrixSuites =
    "security, conformance (every environment but Docker), packed package, the image's isolated-vm files";
  return [
    "| Node | isolated-vm | what `make test` runs on it |",
    "| --- | --- | --- |",
    `| ${pins.machine.node} (the machine's) | ${pins.machine.isolatedVm} | every suite |`,
    ...pins.nodes.map((pin) => `| ${pin.node} | ${pin.isolatedVm} | ${pin.pending ?? matrixSuites} |`),
  ];
}

/** The page that shows the table, between its node-matrix markers. */
const TABLE_PAGE = "docs/install.md";

/** The lines between the page's node-matrix markers. */
function tableOnPage(): string[] {
  const lines = readFileSync(join(root, TABLE_PAGE), "utf8").split("\n");
  const start = lines.findIndex((line) => line.startsWith("<!-- node-matrix:"));
  const end = lines.indexOf("<!-- /node-matrix -->");
  if (start < 0 || end < start) throw new Error(`${TABLE_PAGE} has no <!-- node-matrix: ... --> section`);
  return lines.slice(start + 1, end);
}

describe("the table of tested Node versions in docs/install.md", () => {
  it("is the one scripts/node-matrix.json makes", () => {
    expect(tableOnPage()).toEqual(tableFromPins());
  });

  it("names the Node and the isolated-vm this run uses as the machine's", () => {
    const installed = createRequire(join(root, "package.json"))("isolated-vm/package.json") as {
      version: string;
    };
    const declared = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      devDependencies: Record<string, string>;
    };
    expect(process.versions.node.split(".")[0]).toBe(pins.machine.node);
    expect(installed.version).toBe(pins.machine.isolatedVm);
    expect(declared.devDependencies["isolated-vm"]).toBe(pins.machine.isolatedVm);
  });

  it("pins each Node once, newer than the machine's", () => {
    const majors = pins.nodes.map((pin) => Number(pin.node.split(".")[0]));
    expect(new Set(majors).size).toBe(majors.length);
    for (const major of majors) expect(major).toBeGreaterThan(Number(pins.machine.node));
  });
});
