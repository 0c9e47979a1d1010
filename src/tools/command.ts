/**
 * Direct commands (Bub's `command_prefix`): one typed line such as `,get_order A123 verbose=true` becomes
 * a validated call of the same tool, to run through the dispatcher like a model's call. Positional words
 * fill the required parameters in order; `key=value` words set parameters by name.
 */
import { randomUUID } from "node:crypto";
import { UsageError } from "../../common/errors.js";
import { isObject } from "./json-schema.js";
import type { AnyTool, JsonSchema } from "./types.js";

/** The default prefix that marks a line as a command. */
const DEFAULT_COMMAND_PREFIX = ",";

/** Options of `Toolset.parseCommand`. */
export interface ParseCommandOptions {
  /** What a command line starts with. Default `,`. */
  prefix?: string;
  /** The call id to give the call. Default: `cmd_` and a random suffix. */
  id?: string;
}

/** A call parsed from a command line, ready for `Dispatcher.dispatch([call])`. */
export interface CommandCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

interface Word {
  text: string;
  /** The word started with a quote: it is a value, even if it contains `=`. */
  quoted: boolean;
}

/** Splits a line into words: whitespace separates, "double" (with \\ escapes) and 'single' quotes group. */
function splitWords(line: string): Word[] {
  const words: Word[] = [];
  let current: Word | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (/\s/.test(c)) {
      if (current) words.push(current);
      current = undefined;
      continue;
    }
    current ??= { text: "", quoted: c === '"' || c === "'" };
    if (c === '"' || c === "'") {
      const close = c;
      let j = i + 1;
      for (; j < line.length && line[j] !== close; j++) {
        if (close === '"' && line[j] === "\\" && j + 1 < line.length) j++;
        current.text += line[j];
      }
      if (j >= line.length)
        throw new UsageError(`Unclosed ${close === '"' ? "double" : "single"} quote in the command.`);
      i = j;
    } else {
      current.text += c;
    }
  }
  if (current) words.push(current);
  return words;
}

function typesOf(schema: unknown): string[] {
  if (!isObject(schema)) return [];
  if (typeof schema.type === "string") return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === "string");
  const variants = [schema.anyOf, schema.oneOf].find(Array.isArray) as unknown[] | undefined;
  return variants ? variants.flatMap(typesOf) : [];
}

function describeParameter(name: string, schema: unknown, required: boolean): string {
  const types = typesOf(schema);
  const type = types.length > 0 ? types.join(" | ") : "any";
  const description =
    isObject(schema) && typeof schema.description === "string" ? `: ${schema.description}` : "";
  return `  ${name} (${type}${required ? ", required" : ""})${description}`;
}

/** `Usage: ,get_order <order_id> [key=value ...]` and one line per parameter. */
export function commandUsage(tool: AnyTool, prefix: string = DEFAULT_COMMAND_PREFIX): string {
  const { properties, required } = shape(tool.parameters);
  const positional = Object.keys(properties).filter((k) => required.includes(k));
  const named = Object.keys(properties).length > positional.length ? " [name=value ...]" : "";
  const head = `Usage: ${prefix}${tool.name}${positional.map((p) => ` <${p}>`).join("")}${named}`;
  const lines = Object.entries(properties).map(([name, schema]) =>
    describeParameter(name, schema, required.includes(name)),
  );
  return [head, ...lines].join("\n");
}

function shape(parameters: JsonSchema): { properties: Record<string, unknown>; required: string[] } {
  const properties = isObject(parameters.properties) ? parameters.properties : {};
  const required = Array.isArray(parameters.required)
    ? parameters.required.filter((r): r is string => typeof r === "string")
    : [];
  return { properties, required };
}

/** A word as a value: JSON for parameters that take arrays, objects or null; the text itself otherwise. */
function valueFor(text: string, schema: unknown): unknown {
  const types = typesOf(schema);
  const wantsJson = types.some((t) => t === "array" || t === "object" || t === "null") || types.length === 0;
  if (wantsJson && !types.includes("string") && /^\s*[[{]|^null$/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/** Sets an own property, even one named `__proto__`, without touching any prototype. */
function set(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Parses one command line against `tools`. Returns `undefined` when the line does not start with the
 * prefix (it is not a command). Throws {@link UsageError} for an unknown tool, a missing or unknown
 * parameter, a stray value, or arguments the tool's schema refuses.
 */
export async function parseCommandLine(
  line: string,
  find: (name: string) => AnyTool | undefined,
  available: () => string[],
  options: ParseCommandOptions = {},
): Promise<CommandCall | undefined> {
  const prefix = options.prefix ?? DEFAULT_COMMAND_PREFIX;
  if (typeof prefix !== "string" || prefix === "" || /\s/.test(prefix)) {
    throw new UsageError(
      `The command prefix must be a non-empty string without spaces, got ${JSON.stringify(prefix)}.`,
    );
  }
  if (typeof line !== "string") throw new UsageError("A command is one line of text, e.g. ,get_order A123.");
  const trimmed = line.trim();
  if (!trimmed.startsWith(prefix)) return undefined;
  const [head, ...rest] = splitWords(trimmed.slice(prefix.length));
  const names = available();
  const list = names.length > 0 ? names.join(", ") : "(none)";
  if (!head || head.text === "") throw new UsageError(`Name a tool after "${prefix}". Available: ${list}.`);
  const tool = find(head.text);
  if (!tool) throw new UsageError(`Unknown command "${prefix}${head.text}". Available: ${list}.`);
  const usage = commandUsage(tool, prefix);
  const fail = (problem: string) => new UsageError(`${problem}\n${usage}`, { toolName: tool.name });
  const { properties, required } = shape(tool.parameters);
  const positional = Object.keys(properties).filter((k) => required.includes(k));
  const args: Record<string, unknown> = {};
  let next = 0;
  for (const word of rest) {
    const named = word.quoted ? null : /^([A-Za-z_][\w.-]*)=([\s\S]*)$/.exec(word.text);
    if (named) {
      const [, key, value] = named as unknown as [string, string, string];
      if (!Object.hasOwn(properties, key)) throw fail(`${tool.name} has no parameter "${key}".`);
      if (Object.hasOwn(args, key)) throw fail(`${key} is given twice.`);
      set(args, key, valueFor(value, properties[key]));
      continue;
    }
    while (next < positional.length && Object.hasOwn(args, positional[next]!)) next++;
    if (next >= positional.length) {
      throw fail(
        `Too many values: "${word.text}" has no required parameter left to fill; name it (name=value).`,
      );
    }
    const key = positional[next++]!;
    set(args, key, valueFor(word.text, properties[key]));
  }
  const missing = required.filter((r) => !Object.hasOwn(args, r));
  if (missing.length > 0) throw fail(`Missing ${missing.map((m) => `<${m}>`).join(", ")}.`);
  const checked = await tool.validate(args);
  if (!checked.ok) {
    throw fail(
      `Invalid arguments:\n${checked.issues.map((i) => `- ${i.path || "(arguments)"}: ${i.message}`).join("\n")}`,
    );
  }
  return { id: options.id ?? `cmd_${randomUUID().slice(0, 8)}`, name: tool.name, arguments: args };
}
