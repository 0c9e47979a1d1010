/**
 * `cordon check <file.ts | -> --tools <module>`: the type check run_code makes with `typecheck` on,
 * without running anything: each error with its place in the file, its line of code and the fix.
 */

import { checkOnce } from "../../codemode/typecheck/check-once.js";
import { repairedNotes } from "../../codemode/typecheck/render.js";
import type { TypeDiagnostic } from "../../codemode/typecheck/types.js";
import { Toolset } from "../../tools/toolset.js";
import { EXIT } from "../cli-error.js";
import { flagOption, type ParsedCommand, requiredOption } from "../command-spec.js";
import { loadToolsShowingProgress } from "../load-tools.js";
import { progressOn } from "../progress.js";
import { readCode } from "../read-code.js";
import { styleFor } from "../style.js";

/** Runs the command; resolves with the exit code. */
export async function run(input: ParsedCommand): Promise<number> {
  const source = input.positionals[0]!;
  const toolsPath = requiredOption(input, "tools", "the module whose tools the code calls");
  const json = flagOption(input, "json");
  const code = await readCode(source, process.stdin);
  const progress = progressOn(process.stderr);
  const tools = new Toolset(await loadToolsShowingProgress(toolsPath, progress));
  progress.show(`checking ${source === "-" ? "the code from standard input" : source}`);
  let result: Awaited<ReturnType<typeof checkOnce>>;
  try {
    result = await checkOnce(tools, code);
  } finally {
    progress.clear();
  }
  const file = source === "-" ? "<stdin>" : source;
  const style = styleFor(process.stdout);
  const write = (text: string) => process.stdout.write(text);

  if (result.status !== "checked") {
    const where =
      result.status === "syntax" && result.line !== undefined
        ? `${file}:${result.line}:${result.column ?? 1} - `
        : `${file}: `;
    const what = result.status === "syntax" ? "syntax error" : "not checked";
    if (json) write(`${JSON.stringify({ ok: false, ...result }, null, 2)}\n`);
    else write(`${where}${style.red(what)}: ${result.message}\n`);
    return EXIT.codeFailed;
  }
  // With a markdown fence, lines are counted in the file, not inside the fence.
  const offset = lineOffset(code, result.source);
  const diagnostics = result.diagnostics.map((d) => ({ ...d, line: d.line + offset }));
  if (json) {
    const { errorCount, repaired } = result;
    write(`${JSON.stringify({ ok: errorCount === 0, errorCount, diagnostics, repaired }, null, 2)}\n`);
    return errorCount === 0 ? EXIT.ok : EXIT.codeFailed;
  }
  const fileLines = code.replace(/\r\n?/g, "\n").split("\n");
  for (const diagnostic of diagnostics) write(formatDiagnostic(file, diagnostic, fileLines, style.red));
  for (const note of repairedNotes(result.repaired)) write(`${style.dim(note)}\n`);
  const { errorCount } = result;
  if (errorCount > diagnostics.length) write(`…and ${errorCount - diagnostics.length} more not shown.\n`);
  write(
    errorCount === 0
      ? `${style.green("No type errors.")}\n`
      : `${style.red(errorCount === 1 ? "1 type error." : `${errorCount} type errors.`)}\n`,
  );
  return errorCount === 0 ? EXIT.ok : EXIT.codeFailed;
}

/** One diagnostic as compilers print them, with its line of code, a caret, and the fix. */
function formatDiagnostic(
  file: string,
  diagnostic: TypeDiagnostic,
  fileLines: readonly string[],
  red: (text: string) => string,
): string {
  const { line, column, code, message, fix } = diagnostic;
  const text = fileLines[line - 1] ?? "";
  const lines = [`${file}:${line}:${column} - ${red("error")} TS${code}: ${message}`];
  if (text.trim() !== "") lines.push(`    ${text}`, `    ${" ".repeat(Math.max(0, column - 1))}^`);
  if (fix !== undefined) lines.push(`  fix: ${fix}`);
  return `${lines.join("\n")}\n\n`;
}

/** How many lines of the file come before the checked code (a fenced block's opening lines). */
function lineOffset(file: string, checked: string): number {
  const text = file.replace(/\r\n?/g, "\n");
  const at = text.indexOf(checked);
  return at <= 0 ? 0 : text.slice(0, at).split("\n").length - 1;
}
