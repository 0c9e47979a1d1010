// The public surface, entry by entry: what each one exports (a new or removed name is a diff of
// test/exports/*.txt, reviewed like code), that every exported name says what it is (JSDoc), and that
// the lists of entries in package.json, tsconfig.json and scripts/entries.json agree.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import entries from "../scripts/entries.json" with { type: "json" };

const root = resolve(import.meta.dirname, "..");

/** One exported name of an entry: whether it is a value (it exists at run time) or only a type. */
interface ExportedName {
  name: string;
  kind: "value" | "type";
  documented: boolean;
}

let exportsOf: Map<string, ExportedName[]>;

/** The exports of each entry, read by the TypeScript compiler from the entry's source. */
function readExports(): Map<string, ExportedName[]> {
  const sources = Object.values(entries).map((source) => resolve(root, source));
  const program = ts.createProgram(sources, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ["node"],
  });
  const checker = program.getTypeChecker();
  const result = new Map<string, ExportedName[]>();
  for (const [specifier, source] of Object.entries(entries)) {
    const file = program.getSourceFile(resolve(root, source));
    const module = file && checker.getSymbolAtLocation(file);
    if (!module) throw new Error(`${specifier}: ${source} was not found or is not a module`);
    const names = checker.getExportsOfModule(module).map((symbol): ExportedName => {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      return {
        name: symbol.name,
        kind: target.flags & ts.SymbolFlags.Value ? "value" : "type",
        documented: isDocumented(target, checker),
      };
    });
    result.set(
      specifier,
      names.sort((a, b) => (a.name < b.name ? -1 : 1)),
    );
  }
  return result;
}

/** Whether every declaration of `symbol` in cordon's own sources carries a JSDoc comment with text. */
function isDocumented(symbol: ts.Symbol, checker: ts.TypeChecker): boolean {
  const own = (symbol.declarations ?? []).filter((d) => !d.getSourceFile().fileName.includes("node_modules"));
  if (own.length === 0) return true;
  return ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim() !== "";
}

beforeAll(() => {
  exportsOf = readExports();
}, 120_000);

describe("the public surface", () => {
  it.each(Object.keys(entries))(
    "%s exports the reviewed list of names (test/exports/)",
    async (specifier) => {
      const lines = exportsOf.get(specifier)!.map(({ name, kind }) => `${kind} ${name}`);
      await expect(`${lines.join("\n")}\n`).toMatchFileSnapshot(`exports/${specifier.replace("/", "-")}.txt`);
    },
  );

  it('the root entry, import "cordon", exports at most 120 names', () => {
    expect(exportsOf.get("cordon")!.length).toBeLessThanOrEqual(120);
  });

  it("every exported name of every entry has JSDoc", () => {
    const undocumented = [...exportsOf].flatMap(([specifier, names]) =>
      names.filter((name) => !name.documented).map((name) => `${specifier}: ${name.name}`),
    );
    expect(undocumented).toEqual([]);
  });

  it("package.json's exports, tsconfig.json's paths and scripts/entries.json list the same entries", () => {
    const pkg = JSON.parse(readFileSync(resolve(root, "package.json"), "utf8")) as {
      exports: Record<string, { types: string; import: string }>;
    };
    const fromPackage = Object.entries(pkg.exports).map(([path, target]) => [
      path === "." ? "cordon" : `cordon/${path.slice(2)}`,
      target.import,
    ]);
    expect(fromPackage).toEqual(
      Object.keys(entries).map((specifier) => [
        specifier,
        `./dist/${specifier === "cordon" ? "index" : specifier.slice("cordon/".length)}.js`,
      ]),
    );
    for (const target of Object.values(pkg.exports))
      expect(target.types).toBe(target.import.replace(/\.js$/, ".d.ts"));
    const config = ts.readConfigFile(resolve(root, "tsconfig.json"), ts.sys.readFile).config as {
      compilerOptions: { paths: Record<string, string[]> };
    };
    expect(config.compilerOptions.paths).toEqual(
      Object.fromEntries(Object.entries(entries).map(([specifier, source]) => [specifier, [`./${source}`]])),
    );
  });
});
