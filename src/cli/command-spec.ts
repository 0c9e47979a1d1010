/** What a `cordon` command declares: its usage and options (for parsing and `--help`), and its code. */

import { UsageError } from "../../common/errors.js";

/** One `--option`. */
export interface OptionSpec {
  name: string;
  type: "string" | "boolean";
  /** May be given more than once (values collect in an array). */
  multiple?: boolean;
  /** How the value is shown in the help, e.g. `<module>`. */
  placeholder?: string;
  description: string;
}

/** The parsed command line of one command. */
export interface ParsedCommand {
  values: Readonly<Record<string, string | boolean | string[] | undefined>>;
  positionals: readonly string[];
}

/** A command's implementation: returns the process exit code. */
type CommandRun = (input: ParsedCommand) => Promise<number>;

/** One command of the table. */
export interface CommandSpec {
  /** The words that name it: `run`, or `image build`. */
  name: string;
  /** One line for the command list. */
  summary: string;
  /** The usage line(s), without the leading `cordon `. */
  usage: string[];
  /** Paragraphs of explanation for `--help`. */
  details: string[];
  options: OptionSpec[];
  /** How many positional arguments it takes. */
  positionals: { min: number; max: number };
  /** Examples for `--help`. */
  examples: string[];
  /** Loads the implementation (lazily, so one command does not load another's dependencies). */
  load(): Promise<{ run: CommandRun }>;
}

/** The value of a string option, if given. */
export function stringOption(input: ParsedCommand, name: string): string | undefined {
  const value = input.values[name];
  return typeof value === "string" ? value : undefined;
}

/** The values of a repeatable string option. */
export function stringsOption(input: ParsedCommand, name: string): string[] {
  const value = input.values[name];
  return Array.isArray(value) ? value : typeof value === "string" ? [value] : [];
}

/** Whether a boolean option was given. */
export function flagOption(input: ParsedCommand, name: string): boolean {
  return input.values[name] === true;
}

/** A whole number option within [min, max]; a {@link UsageError} when it is not one. */
export function integerOption(
  input: ParsedCommand,
  name: string,
  range: { min: number; max: number },
): number | undefined {
  const text = stringOption(input, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < range.min || value > range.max) {
    throw new UsageError(`--${name} ${text}: expected a whole number from ${range.min} to ${range.max}.`);
  }
  return value;
}

/** One of `choices`, or the first choice when the option is absent. */
export function choiceOption<T extends string>(input: ParsedCommand, name: string, choices: readonly T[]): T {
  const text = stringOption(input, name);
  if (text === undefined) return choices[0]!;
  if (!(choices as readonly string[]).includes(text)) {
    throw new UsageError(`--${name} ${text}: expected one of ${choices.join(", ")}.`);
  }
  return text as T;
}

/** A string option that must be given. */
export function requiredOption(input: ParsedCommand, name: string, what: string): string {
  const value = stringOption(input, name);
  if (value === undefined || value === "") throw new UsageError(`--${name} is required: ${what}.`);
  return value;
}
