/**
 * The corpus of model-written programs for the type check of code mode (issue 27), as data: each program
 * with its catalog, its code exactly as a model would send it, and what it should do. For the corpus test
 * (test/codemode/typecheck-corpus.test.ts) and for benchmarks.
 *
 * A program is a file `programs/<catalog>/<name>.ts` whose first lines are `// key: value` headers:
 *   // task: what the user asked for (one line, for people reading the corpus)
 *   // expect: ok            (correct code; it must run `ok` and no checker may flag it)
 *   // returns: <JSON>       (optional, with expect: ok: the value the run returns)
 *   // expect: error         (code with a mistake that a type checker sees)
 *   // mistake: <kind>       (with expect: error: one of MISTAKE_KINDS)
 * and a faulty program ends the line of its mistake with the marker `// <- error`: the line where a checker
 * should report it. The whole file is the code sent (its lines are the lines diagnostics name).
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CatalogName } from "./catalogs/catalog.js";

/** The kinds of mistakes the faulty programs make. */
export const MISTAKE_KINDS = [
  "wrong-argument-name",
  "wrong-argument-type",
  "missing-argument",
  "misspelt-property",
  "unknown-tool",
  "missing-tools-prefix",
  "missing-await",
  "wrong-enum",
  "wrong-argument-count",
  "unknown-method",
  "wrong-assignment",
] as const;

/** One kind of mistake. */
type MistakeKind = (typeof MISTAKE_KINDS)[number];

/** The marker that ends the line of a faulty program's mistake. */
const ERROR_MARKER = "// <- error";

/** What one program of the corpus is and should do. */
export type CorpusProgram = {
  /** `<catalog>/<file name without .ts>`, e.g. `shop/ok-refund-late-orders`. */
  id: string;
  catalog: CatalogName;
  /** The path of the file. */
  file: string;
  /** The code as the model sends it: the whole file. */
  code: string;
  /** What the user asked for. */
  task: string;
} & (
  | {
      expect: "ok" /** Present when the header states the value the run returns. */;
      returns?: { value: unknown };
    }
  | {
      expect: "error";
      mistake: MistakeKind /** The 1-based line that ends with {@link ERROR_MARKER}. */;
      line: number;
    }
);

const PROGRAMS = fileURLToPath(new URL("./programs/", import.meta.url));
const CATALOGS: readonly CatalogName[] = ["shop", "workspace"];
const HEADER = /^\/\/ (task|expect|returns|mistake): (.*)$/;

/** Every program of the corpus, by catalog and then file name. Throws naming the file of a malformed one. */
export function loadCorpus(): CorpusProgram[] {
  return CATALOGS.flatMap((catalog) =>
    readdirSync(join(PROGRAMS, catalog))
      .filter((name) => name.endsWith(".ts"))
      .sort()
      .map((name) => parseProgram(catalog, join(PROGRAMS, catalog, name))),
  );
}

/** Reads one program file and its headers. */
function parseProgram(catalog: CatalogName, file: string): CorpusProgram {
  const code = readFileSync(file, "utf8");
  const fail = (what: string): never => {
    throw new Error(`Corpus program ${file}: ${what}`);
  };
  const headers = new Map<string, string>();
  for (const line of code.split("\n")) {
    const match = HEADER.exec(line);
    if (!match) break;
    if (headers.has(match[1])) fail(`the header "${match[1]}" is given twice.`);
    headers.set(match[1], match[2].trim());
  }
  const task = headers.get("task") ?? fail('it needs a "// task: ..." header.');
  const id = `${catalog}/${file.split(/[\\/]/).pop()!.replace(/\.ts$/, "")}`;
  const marked = code
    .split("\n")
    .map((line, index) => (line.trimEnd().endsWith(ERROR_MARKER) ? index + 1 : 0))
    .filter((line) => line > 0);
  const base = { id, catalog, file, code, task };
  const expect = headers.get("expect");
  if (expect === "ok") {
    if (marked.length > 0) fail(`a correct program has no "${ERROR_MARKER}" marker (line ${marked[0]}).`);
    if (headers.has("mistake")) fail('a correct program has no "mistake" header.');
    const returns = headers.get("returns");
    if (returns === undefined) return { ...base, expect };
    try {
      return { ...base, expect, returns: { value: JSON.parse(returns) } };
    } catch {
      return fail(`its "returns" header is not JSON: ${returns}`);
    }
  }
  if (expect === "error") {
    if (headers.has("returns")) fail('a faulty program has no "returns" header.');
    const mistake = headers.get("mistake");
    if (!MISTAKE_KINDS.includes(mistake as MistakeKind)) {
      fail(`its "mistake" header must be one of ${MISTAKE_KINDS.join(", ")}; got ${mistake ?? "none"}.`);
    }
    if (marked.length !== 1) {
      fail(`a faulty program marks exactly one line with "${ERROR_MARKER}"; found ${marked.length}.`);
    }
    return { ...base, expect, mistake: mistake as MistakeKind, line: marked[0] };
  }
  return fail(`its "expect" header must be ok or error; got ${expect ?? "none"}.`);
}
