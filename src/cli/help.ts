/** The `--help` texts, made from the command table so they always match what is parsed. */

import type { CommandSpec } from "./command-spec.js";
import { COMMANDS } from "./commands.js";
import type { Style } from "./style.js";

const WIDTH = 100;

/** `cordon --help`: what cordon is and its commands. */
export function globalHelp(style: Style, version: string): string {
  const nameWidth = Math.max(...COMMANDS.map((command) => command.name.length));
  return [
    `${style.bold("cordon")} ${version}: put a model's code to work against your tools, in a sandbox.`,
    "",
    style.bold("Usage"),
    "  cordon <command> [options]",
    "",
    style.bold("Commands"),
    ...COMMANDS.map((command) => `  ${command.name.padEnd(nameWidth)}  ${command.summary}`),
    "",
    "Run cordon <command> --help for a command's options.",
    "",
  ].join("\n");
}

/** `cordon <command> --help`. */
export function commandHelp(spec: CommandSpec, style: Style): string {
  const options = [
    ...spec.options.map((option) => ({
      flag: `--${option.name}${option.type === "string" ? ` ${option.placeholder ?? "<value>"}` : ""}`,
      description: option.description,
    })),
    { flag: "-h, --help", description: "Show this help." },
  ];
  const flagWidth = Math.min(28, Math.max(...options.map((option) => option.flag.length)));
  const lines = [
    `${style.bold(`cordon ${spec.name}`)}: ${spec.summary}`,
    "",
    style.bold("Usage"),
    ...spec.usage.map((usage) => `  cordon ${usage}`),
    "",
    ...spec.details.flatMap((paragraph) => [...wrap(paragraph, WIDTH), ""]),
    style.bold("Options"),
  ];
  for (const option of options) {
    const pad = " ".repeat(flagWidth + 4);
    const [first, ...rest] = wrap(option.description, WIDTH - flagWidth - 4);
    const flag = option.flag.length > flagWidth ? `${option.flag}\n${pad}` : option.flag.padEnd(flagWidth);
    lines.push(`  ${flag}  ${first ?? ""}`, ...rest.map((line) => `${pad}${line}`));
  }
  if (spec.examples.length > 0) {
    lines.push("", style.bold("Examples"), ...spec.examples.map((example) => `  ${example}`));
  }
  return `${lines.join("\n")}\n`;
}

/** Breaks `text` into lines of at most `width` characters (a longer word gets a line of its own). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  if (line !== "") lines.push(line);
  return lines;
}
