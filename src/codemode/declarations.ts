/**
 * The TypeScript declarations of `tools` that code mode shows the model, and the mapping from tool names
 * to the identifiers the model's code uses.
 *
 * Schemas are converted by our own `schemaToType` rather than json-schema-to-typescript: that library is
 * async, depends on prettier, emits named interfaces rather than inline expressions and throws on bad
 * schemas, while declarations must be synchronous, compact, and degrade one bad schema to `unknown`.
 */

import { UserError } from "../../common/errors.js";
import type { JsonSchema } from "../tools/types.js";
import { jsDoc, propertyKey, schemaToType } from "./schema-to-type.js";

export { schemaToType } from "./schema-to-type.js";

/** One tool as code mode declares it. */
export interface DeclaredTool {
  /** The JS identifier used in code: `tools.<name>(args)`. */
  name: string;
  /** Shown to the model as the method's JSDoc; may span several lines. */
  description: string;
  /** The JSON Schema of the arguments object. */
  parameters: JsonSchema;
  /** The JSON Schema of the raw result, when known; the method returns `Promise<unknown>` otherwise. */
  outputSchema?: JsonSchema | undefined;
  /** The tool changes nothing outside the session; its JSDoc says so. */
  readOnly?: boolean | undefined;
}

/** The JSDoc line that marks a read-only tool in the declarations. */
export const READ_ONLY_NOTE = "(Read-only: changes nothing outside this session.)";

/** Options for {@link toolDeclarations}. */
export interface ToolDeclarationsOptions {
  /** How deep schemas may nest before the rest is cut to `unknown`. */
  maxDepth?: number;
  /** Told when a tool's schema cannot be expressed and degrades to `unknown`. */
  onSchemaError?: (tool: string, part: "parameters" | "output", message: string) => void;
  /**
   * The declarations the type check reads rather than the model: a tool without an output schema returns
   * `Promise<any>` (only declared shapes are enforced), and `tools` is declared through
   * `interface Tools`, so that the check can add the names the dispatcher repairs. Default false.
   */
  forChecking?: boolean;
}

/** The interface `tools` is declared with for the type check (see `forChecking`). */
export const CHECKED_TOOLS_INTERFACE = "Tools";

/**
 * Valid TypeScript declaring `declare const tools: { ... }`, one method per tool with its description as
 * JSDoc: `name(args: Params): Promise<Output>`. The argument is optional when the parameters require
 * nothing. A schema that cannot be expressed degrades to `unknown` for that tool only. An output schema
 * that several tools share, titled with a type name (`"title": "McpToolResult"`), is declared once before
 * the tools (`type McpToolResult = ...;`) and named in their signatures, so it is paid for once.
 */
export function toolDeclarations(
  tools: readonly DeclaredTool[],
  options: ToolDeclarationsOptions = {},
): string {
  const checking = options.forChecking === true;
  const declareTools = (body: string) =>
    checking
      ? `interface ${CHECKED_TOOLS_INTERFACE} ${body}\ndeclare const tools: ${CHECKED_TOOLS_INTERFACE};`
      : `declare const tools: ${body};`;
  if (tools.length === 0) return declareTools("{}");
  const indent = "  ";
  const shared = sharedOutputTypes(tools, checking ? [CHECKED_TOOLS_INTERFACE] : []);
  const aliases: string[] = [];
  const methods = tools.map((tool) => {
    const convert = (schema: JsonSchema, part: "parameters" | "output") =>
      schemaToType(schema, {
        indent,
        maxDepth: options.maxDepth,
        onError: (message) => options.onSchemaError?.(tool.name, part, message),
      });
    const params = convert(tool.parameters, "parameters");
    const alias = tool.outputSchema === undefined ? undefined : shared.get(tool.outputSchema);
    if (alias !== undefined && !aliases.some((line) => line.startsWith(`type ${alias} =`))) {
      aliases.push(`type ${alias} = ${convert(tool.outputSchema!, "output")};`);
    }
    const output =
      alias ??
      (tool.outputSchema === undefined
        ? checking
          ? "any"
          : "unknown"
        : convert(tool.outputSchema, "output"));
    const optional = params !== "unknown" && !requiresArguments(tool.parameters);
    const lines = descriptionLines(tool.description);
    if (tool.readOnly === true) lines.push(READ_ONLY_NOTE);
    const doc = jsDoc(lines, indent);
    const signature = `${indent}${propertyKey(tool.name)}(args${optional ? "?" : ""}: ${params}): Promise<${output}>;`;
    return doc ? `${doc}\n${signature}` : signature;
  });
  const declared = declareTools(`{\n${methods.join("\n")}\n}`);
  return aliases.length === 0 ? declared : `${aliases.join("\n")}\n\n${declared}`;
}

/** A title that may name a shared output type: a capitalised identifier that no built-in type has. */
const TYPE_NAME = /^[A-Z][A-Za-z0-9]{2,63}$/;

/**
 * The output schemas worth declaring once: titled with a type name, used by at least two tools, and the
 * same schema (by its JSON) wherever that title appears; a title two different schemas share names none.
 */
function sharedOutputTypes(
  tools: readonly DeclaredTool[],
  /** Type names taken already. */
  reserved: readonly string[],
): Map<JsonSchema, string> {
  const byTitle = new Map<string, { json: string; schemas: JsonSchema[] } | "conflict">();
  for (const { outputSchema } of tools) {
    const title = outputSchema?.title;
    if (outputSchema === undefined || typeof title !== "string" || !TYPE_NAME.test(title)) continue;
    if (BUILT_IN_TYPE_NAMES.has(title) || reserved.includes(title)) continue;
    const json = JSON.stringify(outputSchema);
    const seen = byTitle.get(title);
    if (seen === undefined) byTitle.set(title, { json, schemas: [outputSchema] });
    else if (seen !== "conflict" && seen.json === json) seen.schemas.push(outputSchema);
    else byTitle.set(title, "conflict");
  }
  const shared = new Map<JsonSchema, string>();
  for (const [title, seen] of byTitle) {
    if (seen === "conflict" || seen.schemas.length < 2) continue;
    for (const schema of seen.schemas) shared.set(schema, title);
  }
  return shared;
}

/** Type names the model's code may mean as the built-in ones (ES lib types and the sandbox's globals). */
const BUILT_IN_TYPE_NAMES = new Set(
  (
    "Array ArrayBuffer BigInt Boolean DataView Date Error EvalError Function Generator Iterable Iterator " +
    "JSON Map Math Number Object Partial Pick Omit Promise PromiseLike Proxy RangeError ReadonlyArray " +
    "Readonly Record ReferenceError RegExp Required Set String Symbol SyntaxError TypeError URIError " +
    "WeakMap WeakSet Exclude Extract NonNullable ReturnType Awaited Parameters InstanceType Uint8Array " +
    "Int8Array Uint16Array Int16Array Uint32Array Int32Array Float32Array Float64Array Console " +
    "TextEncoder TextDecoder URL URLSearchParams AbortController AbortSignal Intl"
  ).split(" "),
);

/** Whether the parameters schema (or the local $ref it points at) lists any required property. */
function requiresArguments(schema: JsonSchema): boolean {
  let target: unknown = schema;
  if (typeof schema.$ref === "string" && schema.$ref.startsWith("#/")) {
    for (const token of schema.$ref.slice(2).split("/")) {
      target = isRecord(target) ? target[token.replaceAll("~1", "/").replaceAll("~0", "~")] : undefined;
    }
  }
  if (isRecord(target) && Array.isArray(target.required) && target.required.length > 0) return true;
  return Array.isArray(schema.required) && schema.required.length > 0;
}

function descriptionLines(description: string): string[] {
  const trimmed = description.trim();
  return trimmed === "" ? [] : trimmed.split(/\r?\n/);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const RESERVED = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends false finally " +
    "for function if import in instanceof new null return super switch this throw true try typeof var void " +
    "while with implements interface let package private protected public static yield await arguments eval " +
    "undefined NaN Infinity __proto__"
  ).split(" "),
);

/**
 * A valid JS identifier for a tool name (`^[a-zA-Z0-9_.-]{1,64}$`): `-`, `.` and any other character that
 * cannot appear in an identifier become `_`, a leading digit gets a `_` prefix, and a reserved word gets a
 * `_` suffix.
 */
export function sanitizeToolName(name: string): string {
  let identifier = name.replace(/[^A-Za-z0-9_$]/g, "_");
  if (identifier === "") identifier = "_";
  if (/^[0-9]/.test(identifier)) identifier = `_${identifier}`;
  if (RESERVED.has(identifier)) identifier = `${identifier}_`;
  return identifier;
}

/**
 * Maps each tool's code identifier to its real name. Throws a {@link UserError} naming both tools when two
 * names map to the same identifier (or the same name is given twice).
 */
export function toolIdentifiers(names: readonly string[]): Record<string, string> {
  const byIdentifier = new Map<string, string>();
  for (const name of names) {
    const identifier = sanitizeToolName(name);
    const existing = byIdentifier.get(identifier);
    if (existing !== undefined) {
      const what =
        existing === name
          ? `The tool "${name}" is listed twice`
          : `The tools "${existing}" and "${name}" both become the identifier "${identifier}" in code mode`;
      throw new UserError(`${what}; rename one of them so that each tool has its own name in code.`);
    }
    byIdentifier.set(identifier, name);
  }
  return Object.fromEntries(byIdentifier);
}
