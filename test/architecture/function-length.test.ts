// No function in sandbox/ is over MAX_FUNCTION_LINES lines: the far side of the boundary is read by people
// checking that nothing of the host's leaks, and a function that long hides what it touches. Functions are
// found with TypeScript's parser (declarations, expressions, arrows, methods, accessors, constructors),
// measured from their first line to their last, nested ones inside their parent's count.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");

/** The most lines a function in sandbox/ may span. */
const MAX_FUNCTION_LINES = 300;

/** Each function of a TypeScript source over `max` lines, as `file:line name (N lines)`. */
function longFunctions(file: string, text: string, max: number): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > max) {
        const name = node.name?.getText(source) ?? ts.SyntaxKind[node.kind];
        found.push(`${file}:${first + 1} ${name} (${lines} lines)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A function of `lines` lines (its signature and closing brace included), as `kind` writes it. */
function functionOf(kind: "declaration" | "arrow" | "method", lines: number): string {
  const body = Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i};`).join("\n");
  if (kind === "declaration") return `function long() {\n${body}\n}\n`;
  if (kind === "arrow") return `const long = () => {\n${body}\n};\n`;
  return `class Holder {\n  long() {\n${body}\n  }\n}\n`;
}

describe("the function-length checker", () => {
  it("sees a declaration, an arrow function and a method one line over the cap, and not one at it", () => {
    for (const kind of ["declaration", "arrow", "method"] as const) {
      expect(longFunctions("a.ts", functionOf(kind, 11), 10), kind).toHaveLength(1);
      expect(longFunctions("a.ts", functionOf(kind, 10), 10), kind).toEqual([]);
    }
  });
});

describe("sandbox/", () => {
  it(`has no function over ${MAX_FUNCTION_LINES} lines, the guest prelude's modules included`, () => {
    const files = readdirSync(join(root, "sandbox"), { recursive: true })
      .map(String)
      .filter((file) => file.endsWith(".ts"))
      .map((file) => relative(root, join(root, "sandbox", file)));
    expect(files).toContain("sandbox/guest/prelude/index.ts");
    const long = files.flatMap((file) =>
      longFunctions(file, readFileSync(join(root, file), "utf8"), MAX_FUNCTION_LINES),
    );
    expect(long).toEqual([]);
  });
});
