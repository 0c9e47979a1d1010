// The guest prelude is written as modules (sandbox/guest/prelude/) and reaches each isolate as one
// bundled function (sandbox/guest/prelude.generated.ts). These tests hold what makes that safe: the
// checked-in bundle is the bundle of the modules as they are, and it names nothing outside itself but the
// language's own built-ins, so nothing of the host's can be needed (or reached) from inside the guest.
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { preludeSource } from "../../sandbox/guest/prelude.js";

const root = resolve(import.meta.dirname, "../..");

/**
 * The names `source` (a script) uses that it does not declare and that ECMAScript's standard library
 * (TypeScript's `es2023` lib: no DOM, no Node) does not declare either, found by TypeScript's checker.
 */
function freeNames(source: string): string[] {
  // Checked as TypeScript, not JavaScript: in a .js file the checker takes `require` and `module` for
  // CommonJS and reports neither. Type errors are many and beside the point; only missing names count.
  const fileName = resolve(root, "prelude-under-check.ts");
  const options: ts.CompilerOptions = {
    noEmit: true,
    lib: ["lib.es2023.d.ts"],
    types: [],
    target: ts.ScriptTarget.ES2022,
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language) =>
    name === fileName ? ts.createSourceFile(name, source, language) : getSourceFile(name, language);
  const program = ts.createProgram([fileName], options, host);
  const names = new Set<string>();
  for (const diagnostic of program.getSemanticDiagnostics(program.getSourceFile(fileName))) {
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
    const missing = /^Cannot find name '([^']+)'/.exec(text);
    if (missing) names.add(missing[1]!);
  }
  return [...names].sort();
}

describe("the free-name check", () => {
  it("sees the host's globals and undeclared names, and accepts what the script or the language declares", () => {
    const source = `(function (send) {
      "use strict";
      const local = [Math.max(1, 2), JSON.stringify({}), new Map(), Atomics, Intl.DateTimeFormat];
      if (typeof window !== "undefined") process.exit(1);
      setTimeout(() => send(local), 1);
      console.log(require("node:fs"), Buffer.from(""), structuredClone({}), undeclaredHelper);
    })`;
    expect(freeNames(source)).toEqual([
      "Buffer",
      "console",
      "process",
      "require",
      "setTimeout",
      "structuredClone",
      "undeclaredHelper",
      "window",
    ]);
  });
});

describe("the guest prelude's bundle", () => {
  it("is the bundle of sandbox/guest/prelude/ as it is now (node scripts/bundle-prelude.mjs writes it)", () => {
    // Exits with 1, saying what to run, when the checked-in file differs from a fresh bundle.
    expect(() =>
      execFileSync(process.execPath, ["scripts/bundle-prelude.mjs", "--check"], { cwd: root, stdio: "pipe" }),
    ).not.toThrow();
  });

  it("names nothing outside itself but the language's own built-ins", () => {
    expect(freeNames(preludeSource())).toEqual([]);
  });
});
