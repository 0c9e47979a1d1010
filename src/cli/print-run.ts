/**
 * How `cordon run` and `cordon resume` show a run to a person: the console output, each tool call the
 * code made with its status and time, the result, and a closing status line (a paused run's waiting
 * calls follow, see print-pause.ts). (`--json` prints the CodeRunResult instead.)
 *
 * Everything that came from the sandbox or a tool is text the model's code chose: its control
 * characters (terminal escapes that clear the screen or hide lines) and bidirectional or invisible ones
 * are written out, and every line of a console entry or an error stays indented under its heading, so
 * that no output can pass for cordon's own report.
 */

import type { CodeRunResult } from "../codemode/result.js";
import { visibleText } from "../dispatch/preview.js";
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
      out.push(`  ${tag}${indentLines(shown(entry.text), "    ")}`);
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
        call.status === "ok"
          ? style.green(call.status.padEnd(17))
          : call.status === "paused" || call.status === "planned"
            ? style.yellow(call.status.padEnd(17))
            : style.red(call.status.padEnd(17));
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
    const from = tool === undefined ? "" : ` [${shown(tool)}]`;
    out.push(
      `${style.red(style.bold(shown(name)))}${from}: ${indentLines(shown(message), "  ")}${style.dim(where)}`,
    );
    out.push("");
  }
  const status =
    result.status === "ok"
      ? style.green("ok")
      : result.status === "paused" || result.status === "planned"
        ? style.yellow(result.status)
        : style.red(result.status);
  out.push(`${status} ${style.dim(`in ${result.durationMs} ms`)}`);
  return `${out.join("\n")}\n`;
}

function indentJson(value: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    json = String(value);
  }
  return visibleText(json, { keepNewlines: true, keepSpaces: true });
}

/** Text from the sandbox, with the characters that could hide or repaint output written out. */
function shown(text: string): string {
  return visibleText(text, { keepNewlines: true, keepSpaces: true });
}

/** Every line after the first indented by `indent`, so that a multi-line text stays under its heading. */
function indentLines(text: string, indent: string): string {
  return text.replace(/\n/g, `\n${indent}`);
}
