/**
 * How `cordon run` shows a run to a person: the console output, each tool call the code made with its
 * status and time, the result, and a closing status line. (`--json` prints the CodeRunResult instead.)
 */

import type { CodeRunResult } from "../codemode/result.js";
import type { Style } from "./style.js";

/** The text for a finished run, ending with a newline. */
export function formatRun(result: CodeRunResult, style: Style): string {
  const out: string[] = [];
  if (result.logs.length > 0) {
    out.push(style.dim("console"));
    for (const entry of result.logs) {
      const tag =
        entry.level === "error"
          ? style.red("error ")
          : entry.level === "warn"
            ? style.yellow("warn  ")
            : entry.level === "log"
              ? ""
              : style.dim(`${entry.level.padEnd(6)}`);
      out.push(`  ${tag}${entry.text}`);
    }
    if (result.logsDropped)
      out.push(style.dim(`  … ${result.logsDropped} more console entries were dropped`));
    out.push("");
  }
  if (result.calls.length > 0) {
    out.push(style.dim(`tool calls (${result.calls.length})`));
    const width = Math.max(...result.calls.map((call) => call.tool.length));
    for (const call of result.calls) {
      const status =
        call.status === "ok" ? style.green(call.status.padEnd(17)) : style.red(call.status.padEnd(17));
      out.push(`  ${status} ${call.tool.padEnd(width)}  ${style.dim(`${call.durationMs} ms`)}`);
    }
    out.push("");
  }
  if (result.status === "ok") {
    out.push(style.dim("result"));
    out.push(result.value === undefined ? style.dim("(no value)") : indentJson(result.value));
    out.push("");
  } else if (result.error) {
    const { name, message, line, column, tool } = result.error;
    const where =
      line === undefined ? "" : ` (line ${line}${column === undefined ? "" : `, column ${column}`})`;
    const from = tool === undefined ? "" : ` [${tool}]`;
    out.push(`${style.red(style.bold(name))}${from}: ${message}${style.dim(where)}`);
    out.push("");
  }
  const status = result.status === "ok" ? style.green("ok") : style.red(result.status);
  out.push(`${status} ${style.dim(`in ${result.durationMs} ms`)}`);
  return `${out.join("\n")}\n`;
}

function indentJson(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
