// Writes what cordon's checker checks in bench/typecheck.ts, as files, for bench/ts7/ts7.mjs: the lib
// (TypeScript 5's, as sandboxLibFiles gives it), the sandbox's globals, the 20 tools' declarations, the
// faulty 30-line program wrapped as checkedSource wraps it, and the compiler options. Both compilers
// then read the same text. Run by scripts/bench-ts7.sh with this checkout's Node and typescript 5:
//   node --import tsx bench/ts7/write-inputs.ts <dir>

import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import ts from "typescript";
import { toolDeclarations } from "../../src/codemode/declarations.js";
import { declaredToolsOf } from "../../src/codemode/declared-tools.js";
import { prepareCode } from "../../src/codemode/transpile.js";
import { checkedSource } from "../../src/codemode/typecheck/checked-source.js";
import { compilerOptions } from "../../src/codemode/typecheck/compiler-settings.js";
import { DEFAULT_TYPECHECK_MEMORY_MB } from "../../src/codemode/typecheck/limits.js";
import { SANDBOX_GLOBALS, sandboxLibFiles } from "../../src/codemode/typecheck/sandbox-lib.js";
import { CHECKER_YOUNG_GENERATION_MB } from "../../src/codemode/typecheck/type-checker.js";
import { CLEAN, FAULTY, FAULTY_LINE, toolset } from "../typecheck-program.js";

/** Stands for a number in the program's last comment: each timed check checks a different text. */
const VARIANT = "__VARIANT__";

const dir = process.argv[2];
if (dir === undefined) throw new Error("usage: write-inputs.ts <dir>");
mkdirSync(dir, { recursive: true });

const typescriptPath = createRequire(import.meta.url).resolve("typescript");
const files = new Map(sandboxLibFiles(dirname(typescriptPath)));
files.set("sandbox-globals.d.ts", SANDBOX_GLOBALS);
const { declared } = declaredToolsOf(toolset);
files.set("tools.d.ts", toolDeclarations(declared, { forChecking: true }));
for (const [name, text] of files) writeFileSync(join(dir, name), text);

/** The program as run_code prepares it and the checker wraps it (no aliases, no session names). */
async function wrapped(code: string): Promise<{ text: string; codeLines: number }> {
  const prepared = await prepareCode(code);
  if ("error" in prepared)
    throw new Error(`the benchmark's program does not compile: ${prepared.error.message}`);
  return checkedSource(prepared.source, [], { values: [], types: [] });
}
const faulty = await wrapped(`${FAULTY}\n// ${VARIANT}`);
const clean = await wrapped(CLEAN);
writeFileSync(join(dir, "code.ts"), faulty.text.replace(VARIANT, "0"));

// The options as cordon gives them to typescript 5, and as a tsconfig.json says them (enum names).
const options = compilerOptions(ts);
const tsconfigOptions: Record<string, unknown> = {};
for (const [key, value] of Object.entries(options)) {
  if (key === "target") tsconfigOptions[key] = ts.ScriptTarget[value as ts.ScriptTarget].toLowerCase();
  else if (key === "module") tsconfigOptions[key] = ts.ModuleKind[value as ts.ModuleKind].toLowerCase();
  else tsconfigOptions[key] = value;
}
const rootNames = [...files.keys(), "code.ts"];
writeFileSync(
  join(dir, "tsconfig.json"),
  `${JSON.stringify({ compilerOptions: tsconfigOptions, files: rootNames }, null, 2)}\n`,
);
writeFileSync(
  join(dir, "inputs.json"),
  `${JSON.stringify(
    {
      typescript5: typescriptPath,
      typescript5Version: ts.version,
      compilerOptions: options,
      // The worker threads of the harness get the limits cordon's checker thread gets.
      resourceLimits: {
        maxOldGenerationSizeMb: DEFAULT_TYPECHECK_MEMORY_MB,
        maxYoungGenerationSizeMb: CHECKER_YOUNG_GENERATION_MB,
      },
      rootNames,
      codeFile: "code.ts",
      variantMarker: VARIANT,
      faulty: faulty.text,
      clean: clean.text,
      // Line 1 of the model's code is line 2 of the checked text (checkedSource's one-line prefix).
      expectedLine: FAULTY_LINE,
      codeLines: faulty.codeLines,
    },
    null,
    2,
  )}\n`,
);
console.log(
  `bench-ts7: wrote ${rootNames.length} files and inputs.json to ${dir} (typescript ${ts.version})`,
);
