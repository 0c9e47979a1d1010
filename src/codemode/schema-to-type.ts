/**
 * JSON Schema → TypeScript type expression, for the declarations code mode shows the model.
 *
 * Own converter rather than json-schema-to-typescript: that library is async (`compile` returns a
 * Promise because it dereferences with $RefParser and formats with prettier), pulls in prettier, lodash
 * and a ref parser, emits named `export interface` declarations rather than an inline type expression, and
 * throws on schemas it cannot handle. Here we need a small synchronous function that yields one compact
 * expression, controls the JSDoc exactly and degrades a bad schema to `unknown` without throwing.
 */

import type { JsonSchema } from "../tools/types.js";

/** Options for {@link schemaToType}. */
export interface SchemaToTypeOptions {
  /** How many levels of schemas are rendered before the rest is cut to `unknown`. Default 20. */
  maxDepth?: number;
  /** How many schema nodes one conversion may visit before it gives up (guards $ref blow-ups). Default 5000. */
  maxNodes?: number;
  /** The indentation of the line the type starts on; nested lines are indented from it. Default "". */
  indent?: string;
  /** Told why, when the schema cannot be expressed and the whole result degrades to `unknown`. */
  onError?: (message: string) => void;
}

/** The schema cannot be expressed as a type (malformed, or a $ref that does not resolve). */
class Inexpressible extends Error {
  override name = "Inexpressible";
}

/** A rendered type and how tightly it binds, so that callers know when it needs parentheses. */
interface Rendered {
  code: string;
  kind: "atom" | "union" | "intersection";
}

interface Context {
  root: unknown;
  maxDepth: number;
  maxNodes: number;
  nodes: number;
  /** The $refs being expanded right now: meeting one again is a cycle. */
  refStack: string[];
}

const UNKNOWN: Rendered = { code: "unknown", kind: "atom" };
const NEVER: Rendered = { code: "never", kind: "atom" };
const INLINE_LIMIT = 80;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const OBJECT_KEYWORDS = ["properties", "additionalProperties", "patternProperties", "required"];
const ARRAY_KEYWORDS = ["items", "prefixItems", "additionalItems"];

/**
 * Converts a JSON Schema to a TypeScript type expression. Never throws: a schema that cannot be expressed
 * (malformed, or an unresolvable `$ref`) gives `unknown`, and `onError` is told why. Recursive `$ref`s
 * become `unknown` where they cycle, and nesting beyond `maxDepth` is cut to `unknown`.
 */
export function schemaToType(schema: JsonSchema | boolean, options: SchemaToTypeOptions = {}): string {
  const ctx: Context = {
    root: schema,
    maxDepth: options.maxDepth ?? 20,
    maxNodes: options.maxNodes ?? 5000,
    nodes: 0,
    refStack: [],
  };
  try {
    return render(schema, ctx, 0, options.indent ?? "").code;
  } catch (error) {
    options.onError?.(error instanceof Error ? error.message : String(error));
    return "unknown";
  }
}

/**
 * Quotes a property name unless it is a plain identifier, as a string literal that is safe to put before
 * a model (see {@link stringLiteral}).
 */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : stringLiteral(name);
}

/**
 * Characters that must not reach a prompt raw: controls (C0, DEL, C1), line and paragraph separators,
 * bidirectional and other format characters, invisible ones, private-use and unassigned ones, and spaces
 * other than the plain space.
 */
const HIDDEN_IN_LITERAL =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Default_Ignorable_Code_Point}]|(?! )\p{Zs}/gu;

/**
 * `text` as a double-quoted TypeScript string literal with the same value, whose every character a reader
 * sees: what could break a line, reorder or hide text (U+2028, U+202E, ESC...) is an escape, and `*\/`
 * is written `*\\/`, so that the literal can end no comment it is placed in.
 */
function stringLiteral(text: string): string {
  return JSON.stringify(text)
    .replace(HIDDEN_IN_LITERAL, (char) => {
      const code = char.codePointAt(0)!;
      return code > 0xffff
        ? `\\u{${code.toString(16).toUpperCase()}}`
        : `\\u${code.toString(16).toUpperCase().padStart(4, "0")}`;
    })
    .replaceAll("*/", "*\\/");
}

/**
 * A JSDoc comment from lines of text at the given indentation, or "" when there are none. `*\/` inside the
 * text is escaped so it cannot end the comment early.
 */
export function jsDoc(lines: readonly string[], indent: string): string {
  const safe = lines.map((line) => line.replaceAll("*/", "*\\/").trimEnd());
  if (safe.length === 0) return "";
  if (safe.length === 1) return `${indent}/** ${safe[0]} */`;
  return [
    `${indent}/**`,
    ...safe.map((line) => (line ? `${indent} * ${line}` : `${indent} *`)),
    `${indent} */`,
  ].join("\n");
}

/**
 * The JSDoc lines describing a schema: its description, then its constraints in parentheses (`integer,
 * minimum 1, maximum 10`), kept apart so that they never read as part of the description, and the tags
 * `@format`, `@default` and `@deprecated`. A format is named, never spelled out as its regex, and bounds
 * that only restate the safe-integer range are left out. A direct `$ref`'s target fills in what the
 * schema itself leaves out.
 */
function docLines(schema: unknown, root: unknown = schema): string[] {
  if (!isObject(schema)) return [];
  let source: Record<string, unknown> = schema;
  if (typeof schema.$ref === "string") {
    try {
      const target = resolveRef(root, schema.$ref);
      if (isObject(target)) source = { ...target, ...schema };
    } catch {
      // An unresolvable $ref is reported by the type conversion; the docs just go without.
    }
  }
  const description =
    typeof source.description === "string" && source.description.trim() !== ""
      ? source.description.trim().split(/\r?\n/)
      : [];
  const bounds = boundsOf(source);
  const constraints =
    bounds.length === 0 ? [] : [description.length > 0 ? `(${bounds.join(", ")})` : bounds.join(", ")];
  const tags: string[] = [];
  if (typeof source.format === "string") tags.push(`@format ${source.format}`);
  if (source.default !== undefined) tags.push(`@default ${safeJson(source.default)}`);
  if (source.deprecated === true) tags.push("@deprecated");
  // A one-line description and its notes share one line when they fit, to keep the declarations short.
  const joined = [...description, ...constraints, ...tags].join(" ");
  if (description.length <= 1 && joined.length <= INLINE_LIMIT) return joined === "" ? [] : [joined];
  return [...description, ...constraints, ...tags];
}

function boundsOf(schema: Record<string, unknown>): string[] {
  const out: string[] = [];
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes("integer") && !types.includes("number")) out.push("integer");
  const numeric: [string, string][] = [
    ["minimum", "minimum"],
    ["exclusiveMinimum", "exclusive minimum"],
    ["maximum", "maximum"],
    ["exclusiveMaximum", "exclusive maximum"],
    ["multipleOf", "multiple of"],
    ["minLength", "min length"],
    ["maxLength", "max length"],
    ["minItems", "min items"],
    ["maxItems", "max items"],
  ];
  // A tuple type already says how many items there are.
  const tuple = schema.prefixItems !== undefined || Array.isArray(schema.items);
  for (const [key, label] of numeric) {
    if (tuple && (key === "minItems" || key === "maxItems")) continue;
    const value = schema[key];
    if (typeof value !== "number") continue;
    // zod's .int() bounds every integer by the safe-integer range: that says nothing to a model.
    if (Math.abs(value) === Number.MAX_SAFE_INTEGER && (key === "minimum" || key === "maximum")) continue;
    out.push(`${label} ${value}`);
  }
  // Draft-04 spelled exclusive bounds as booleans next to minimum/maximum.
  if (schema.exclusiveMinimum === true) out.push("minimum is exclusive");
  if (schema.exclusiveMaximum === true) out.push("maximum is exclusive");
  // A format is named by its @format tag; its regex (zod writes one for each format) is noise.
  if (typeof schema.pattern === "string" && typeof schema.format !== "string") {
    out.push(`pattern ${schema.pattern}`);
  }
  if (schema.uniqueItems === true) out.push("unique items");
  return out;
}

function render(schema: unknown, ctx: Context, depth: number, indent: string): Rendered {
  if (schema === true) return UNKNOWN;
  if (schema === false) return NEVER;
  if (!isObject(schema))
    throw new Inexpressible(`a schema must be an object or a boolean, got ${safeJson(schema)}`);
  if (++ctx.nodes > ctx.maxNodes)
    throw new Inexpressible(`the schema expands to more than ${ctx.maxNodes} nodes`);
  if (depth >= ctx.maxDepth) return UNKNOWN;

  const parts: Rendered[] = [];
  if (schema.$ref !== undefined) parts.push(renderRef(schema.$ref, ctx, depth, indent));
  if (schema.const !== undefined) parts.push(literal(schema.const, indent));
  else if (schema.enum !== undefined) parts.push(renderEnum(schema.enum, indent));
  else {
    const typed = renderTyped(schema, ctx, depth, indent);
    if (typed) parts.push(typed);
  }
  if (schema.allOf !== undefined) {
    for (const member of listOf(schema.allOf, "allOf")) parts.push(render(member, ctx, depth + 1, indent));
  }
  for (const key of ["anyOf", "oneOf"] as const) {
    if (schema[key] === undefined) continue;
    parts.push(union(listOf(schema[key], key).map((member) => render(member, ctx, depth + 1, indent))));
  }
  let result = intersection(parts);
  if (schema.nullable === true && result.code !== "unknown")
    result = union([result, { code: "null", kind: "atom" }]);
  return result;
}

function renderRef(ref: unknown, ctx: Context, depth: number, indent: string): Rendered {
  if (typeof ref !== "string") throw new Inexpressible(`$ref must be a string, got ${safeJson(ref)}`);
  if (ctx.refStack.includes(ref)) return UNKNOWN; // a cycle: cut it here
  const target = resolveRef(ctx.root, ref);
  ctx.refStack.push(ref);
  try {
    return render(target, ctx, depth + 1, indent);
  } finally {
    ctx.refStack.pop();
  }
}

/** Resolves a local `$ref` (`#`, `#/$defs/x`, `#/definitions/x`, any JSON pointer into the root). */
function resolveRef(root: unknown, ref: string): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#/"))
    throw new Inexpressible(`cannot resolve $ref ${JSON.stringify(ref)}: only local refs are supported`);
  let current = root;
  for (const raw of ref.slice(2).split("/")) {
    let token: string;
    try {
      token = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    } catch {
      throw new Inexpressible(`cannot resolve $ref ${JSON.stringify(ref)}: bad escape`);
    }
    if (isObject(current) && Object.hasOwn(current, token)) current = current[token];
    else if (Array.isArray(current) && /^\d+$/.test(token) && Number(token) < current.length)
      current = current[Number(token)];
    else throw new Inexpressible(`cannot resolve $ref ${JSON.stringify(ref)}`);
  }
  return current;
}

function renderEnum(values: unknown, indent: string): Rendered {
  if (!Array.isArray(values)) throw new Inexpressible(`enum must be an array, got ${safeJson(values)}`);
  return union(values.map((value) => literal(value, indent)));
}

function renderTyped(
  schema: Record<string, unknown>,
  ctx: Context,
  depth: number,
  indent: string,
): Rendered | undefined {
  const types = typesOf(schema);
  if (types.length === 0) return undefined;
  return union(types.map((type) => renderType(type, schema, ctx, depth, indent)));
}

/** The `type` keyword as a list; inferred from object or array keywords when absent. */
function typesOf(schema: Record<string, unknown>): string[] {
  const type = schema.type;
  if (type === undefined) {
    if (OBJECT_KEYWORDS.some((key) => schema[key] !== undefined)) return ["object"];
    if (ARRAY_KEYWORDS.some((key) => schema[key] !== undefined)) return ["array"];
    return [];
  }
  const list = Array.isArray(type) ? type : [type];
  for (const entry of list) {
    if (typeof entry !== "string")
      throw new Inexpressible(`type must be a string or a list of strings, got ${safeJson(type)}`);
  }
  return list as string[];
}

function renderType(
  type: string,
  schema: Record<string, unknown>,
  ctx: Context,
  depth: number,
  indent: string,
): Rendered {
  switch (type) {
    case "string":
    case "boolean":
    case "null":
      return { code: type, kind: "atom" };
    case "number":
    case "integer":
      return { code: "number", kind: "atom" };
    case "array":
      return renderArray(schema, ctx, depth, indent);
    case "object":
      return renderObject(schema, ctx, depth, indent);
    default:
      throw new Inexpressible(`unknown type ${JSON.stringify(type)}`);
  }
}

function renderArray(schema: Record<string, unknown>, ctx: Context, depth: number, indent: string): Rendered {
  // Draft 2020-12 spells tuples as prefixItems (+ items for the rest); draft-07 as an items array
  // (+ additionalItems for the rest).
  const prefix = schema.prefixItems ?? (Array.isArray(schema.items) ? schema.items : undefined);
  const rest =
    schema.prefixItems !== undefined
      ? schema.items
      : Array.isArray(schema.items)
        ? schema.additionalItems
        : schema.items;
  if (prefix === undefined) {
    const item = rest === undefined ? UNKNOWN : render(rest, ctx, depth + 1, indent);
    return { code: `${paren(item)}[]`, kind: "atom" };
  }
  const members = listOf(prefix, "prefixItems");
  const minItems = typeof schema.minItems === "number" ? schema.minItems : 0;
  const closed = rest === false || (typeof schema.maxItems === "number" && schema.maxItems <= members.length);
  const elements = members.map((member, index) => {
    const element = render(member, ctx, depth + 1, indent);
    return index < minItems ? element.code : `${paren(element)}?`;
  });
  if (!closed) {
    const restType = rest === undefined || rest === true ? UNKNOWN : render(rest, ctx, depth + 1, indent);
    elements.push(`...${paren(restType)}[]`);
  }
  return { code: `[${elements.join(", ")}]`, kind: "atom" };
}

interface Member {
  doc: string[];
  text: string;
}

function renderObject(
  schema: Record<string, unknown>,
  ctx: Context,
  depth: number,
  indent: string,
): Rendered {
  const inner = `${indent}  `;
  const properties = schema.properties ?? {};
  if (!isObject(properties))
    throw new Inexpressible(`properties must be an object, got ${safeJson(properties)}`);
  const required = Array.isArray(schema.required) ? schema.required : [];
  const members: Member[] = [];
  const propertyTypes: Rendered[] = [];
  let anyOptional = false;
  for (const [name, propertySchema] of Object.entries(properties)) {
    const optional = !required.includes(name);
    anyOptional ||= optional;
    const type = render(propertySchema, ctx, depth + 1, inner);
    propertyTypes.push(type);
    members.push({
      doc: docLines(propertySchema, ctx.root),
      text: `${propertyKey(name)}${optional ? "?" : ""}: ${type.code}`,
    });
  }

  const extra: Rendered[] = [];
  const additional = schema.additionalProperties;
  if (additional !== undefined && additional !== false) extra.push(render(additional, ctx, depth + 1, inner));
  if (schema.patternProperties !== undefined) {
    if (!isObject(schema.patternProperties)) throw new Inexpressible("patternProperties must be an object");
    for (const patternSchema of Object.values(schema.patternProperties)) {
      extra.push(render(patternSchema, ctx, depth + 1, inner));
    }
  }
  if (extra.length === 0 && members.length === 0) {
    // A bare `{ type: "object" }` is any object; declared-but-empty properties or a closed object take none.
    const open = schema.properties === undefined && additional !== false;
    return { code: open ? "{ [key: string]: unknown }" : "Record<string, never>", kind: "atom" };
  }
  if (extra.length > 0) {
    // Every declared property must fit the index signature too, so widen it to cover them.
    const covering = [...extra, ...propertyTypes];
    if (anyOptional) covering.push({ code: "undefined", kind: "atom" });
    const index = members.length > 0 ? union(covering) : union(extra);
    members.push({ doc: [], text: `[key: string]: ${index.code}` });
  }
  return { code: layout(members, indent), kind: "atom" };
}

/** One line `{ a: string; b?: number }` when short and undocumented, one member per line otherwise. */
function layout(members: Member[], indent: string): string {
  const inline = `{ ${members.map((member) => member.text).join("; ")} }`;
  const fitsInline = members.every((member) => member.doc.length === 0 && !member.text.includes("\n"));
  if (fitsInline && inline.length <= INLINE_LIMIT) return inline;
  const inner = `${indent}  `;
  const lines = members.map((member) => {
    const doc = jsDoc(member.doc, inner);
    return `${doc ? `${doc}\n` : ""}${inner}${member.text};`;
  });
  return `{\n${lines.join("\n")}\n${indent}}`;
}

/** A JSON value as a TypeScript literal type. */
function literal(value: unknown, indent: string): Rendered {
  if (value === null) return { code: "null", kind: "atom" };
  switch (typeof value) {
    case "string":
      return { code: JSON.stringify(value), kind: "atom" };
    case "boolean":
      return { code: String(value), kind: "atom" };
    case "number":
      if (!Number.isFinite(value)) throw new Inexpressible(`${value} is not a JSON number`);
      // A negative literal needs parentheses before `[]`, so it is marked as not an atom.
      return { code: String(value), kind: value < 0 ? "union" : "atom" };
    case "object":
      break;
    default:
      throw new Inexpressible(`${safeJson(value)} is not a JSON value`);
  }
  if (Array.isArray(value)) {
    return { code: `[${value.map((item) => literal(item, indent).code).join(", ")}]`, kind: "atom" };
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return { code: "Record<string, never>", kind: "atom" };
  const members = entries.map(([key, item]) => ({
    doc: [],
    text: `${propertyKey(key)}: ${literal(item, `${indent}  `).code}`,
  }));
  return { code: layout(members, indent), kind: "atom" };
}

function union(members: Rendered[]): Rendered {
  const kept = dedupe(members.filter((member) => member.code !== "never"));
  if (kept.some((member) => member.code === "unknown")) return UNKNOWN;
  if (kept.length === 0) return NEVER;
  if (kept.length === 1) return kept[0];
  const code = kept
    .map((member) => (member.kind === "intersection" ? `(${member.code})` : member.code))
    .join(" | ");
  return { code, kind: "union" };
}

function intersection(members: Rendered[]): Rendered {
  const kept = dedupe(members.filter((member) => member.code !== "unknown"));
  if (kept.some((member) => member.code === "never")) return NEVER;
  if (kept.length === 0) return UNKNOWN;
  if (kept.length === 1) return kept[0];
  return {
    code: kept.map((member) => (member.kind === "atom" ? member.code : `(${member.code})`)).join(" & "),
    kind: "intersection",
  };
}

function dedupe(members: Rendered[]): Rendered[] {
  const seen = new Set<string>();
  return members.filter((member) => !seen.has(member.code) && seen.add(member.code));
}

function paren(type: Rendered): string {
  return type.kind === "atom" ? type.code : `(${type.code})`;
}

function listOf(value: unknown, keyword: string): unknown[] {
  if (!Array.isArray(value)) throw new Inexpressible(`${keyword} must be an array, got ${safeJson(value)}`);
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
