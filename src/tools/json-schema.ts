/**
 * Pure transforms over JSON Schema objects: walking sub-schemas, inlining `$ref`s, making a schema
 * OpenAI-strict, and small questions like "does this schema accept null?". Nothing here validates data.
 */
import { UserError } from "../../common/errors.js";
import type { JsonSchema } from "./types.js";

/** Keywords whose value is one sub-schema. */
const SCHEMA_KEYWORDS = [
  "additionalProperties",
  "items",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems",
  "additionalItems",
] as const;

/** Keywords whose value is a map from names to sub-schemas. */
const SCHEMA_MAP_KEYWORDS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

/** Keywords whose value is a list of sub-schemas. */
const SCHEMA_LIST_KEYWORDS = ["anyOf", "oneOf", "allOf", "prefixItems", "items"];

/** A plain object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Returns a copy of `schema` in which every sub-schema (found through the schema keywords, never through
 * data keywords like `enum`, `const` or `default`) was replaced by `fn(sub, key)`. Not recursive by itself:
 * `fn` recurses when it wants to.
 */
function mapSubschemas(schema: JsonSchema, fn: (sub: JsonSchema, key: string) => JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if ((SCHEMA_KEYWORDS as readonly string[]).includes(key) && isObject(value)) {
      out[key] = fn(value, key);
    } else if (SCHEMA_MAP_KEYWORDS.includes(key) && isObject(value)) {
      const mapped: JsonSchema = {};
      for (const [name, sub] of Object.entries(value)) mapped[name] = isObject(sub) ? fn(sub, key) : sub;
      out[key] = mapped;
    } else if (SCHEMA_LIST_KEYWORDS.includes(key) && Array.isArray(value)) {
      out[key] = value.map((sub) => (isObject(sub) ? fn(sub, key) : sub));
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** The JSON types a schema's `type` keyword names (empty when it names none). */
export function typesOf(schema: JsonSchema): string[] {
  const { type } = schema;
  if (typeof type === "string") return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === "string");
  return [];
}

/**
 * Whether a schema explicitly accepts `null`: by type, const, enum or one of its union branches. An empty
 * schema (`{}`) accepts anything, but does not count: nothing in it says that null is meaningful.
 */
export function acceptsNull(schema: JsonSchema): boolean {
  if (typesOf(schema).includes("null")) return true;
  if ("const" in schema && schema.const === null) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  for (const key of ["anyOf", "oneOf"]) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.some((b) => isObject(b) && acceptsNull(b))) return true;
  }
  return false;
}

/** Whether a schema describes an object (by type or by object-only keywords). */
export function describesObject(schema: JsonSchema): boolean {
  const types = typesOf(schema);
  if (types.length > 0) return types.includes("object");
  return isObject(schema.properties) || "additionalProperties" in schema;
}

function decodePointerSegment(segment: string): string {
  return decodeURIComponent(segment).replace(/~1/g, "/").replace(/~0/g, "~");
}

/** The segments of a local JSON pointer `#/a/b`; `UserError` when a `%` escape in it is malformed. */
function pointerSegments(ref: string, toolName: string): string[] {
  try {
    return ref.slice(2).split("/").map(decodePointerSegment);
  } catch {
    throw new UserError(
      `Tool "${toolName}": the schema reference "${ref}" has a malformed %-escape. ` +
        'Encode "%" as "%25" in references, or rename the definition.',
    );
  }
}

function resolvePointer(root: JsonSchema, ref: string, toolName: string): JsonSchema | undefined {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const segment of pointerSegments(ref, toolName)) {
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return isObject(node) ? node : undefined;
}

/** How many schema nodes inlining may produce before it gives up (a guard against exponential blow-up). */
const MAX_INLINED_NODES = 100_000;

/**
 * Inlines every local `$ref` (`#/$defs/...`, `#/definitions/...`, any local JSON pointer) so that the
 * schema reads on its own. A reference that is genuinely recursive (it points at a schema that is already
 * being expanded) stays a `$ref`, rewritten to `#/$defs/<name>`, and only the `$defs` such references need
 * are kept. `$ref: "#"` (the whole document) is always recursive and stays as it is. Keywords next to a
 * `$ref` win over the referenced schema's. Non-local references are left alone. Throws `UserError` for a
 * local reference that resolves to nothing.
 */
export function inlineRefs(root: JsonSchema, toolName: string): JsonSchema {
  const keptNames = new Map<string, string>(); // pointer -> its name in the output $defs
  let nodes = 0;

  const keep = (pointer: string): string => {
    let name = keptNames.get(pointer);
    if (name === undefined) {
      const base = pointerSegments(pointer, toolName).pop() || "def";
      name = base;
      const taken = new Set(keptNames.values());
      for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
      keptNames.set(pointer, name);
    }
    return name;
  };

  const expand = (node: JsonSchema, stack: readonly string[]): JsonSchema => {
    if (++nodes > MAX_INLINED_NODES) {
      throw new UserError(
        `Tool "${toolName}": the schema grows too large when its references are inlined. Reuse fewer shared sub-schemas.`,
      );
    }
    const ref = node.$ref;
    if (typeof ref !== "string" || !ref.startsWith("#")) return expandChildren(node, stack);
    const { $ref: _ref, ...siblings } = node;
    if (ref === "#") return { ...expandChildren(siblings, stack), $ref: "#" };
    if (stack.includes(ref)) return { ...expandChildren(siblings, stack), $ref: `#/$defs/${keep(ref)}` };
    const target = resolvePointer(root, ref, toolName);
    if (target === undefined) {
      throw new UserError(
        `Tool "${toolName}": the schema reference "${ref}" points at nothing. Define it under $defs or fix the pointer.`,
      );
    }
    const { $schema: _s, $id: _i, ...body } = target;
    return { ...expand(body, [...stack, ref]), ...expandChildren(siblings, stack) };
  };
  const expandChildren = (node: JsonSchema, stack: readonly string[]): JsonSchema => {
    const { $defs: _d, definitions: _df, ...rest } = node;
    return mapSubschemas(rest, (sub) => expand(sub, stack));
  };

  const result = expand(root, []);
  if (keptNames.size === 0) return result;
  // Expanding a kept definition may discover more recursive ones: loop until the list stops growing.
  const defs: JsonSchema = {};
  for (let i = 0; i < keptNames.size; i++) {
    const [pointer, name] = [...keptNames.entries()][i];
    const { $schema: _s, $id: _i, ...body } = resolvePointer(root, pointer, toolName) ?? {};
    defs[name] = expand(body, [pointer]);
  }
  return { ...result, $defs: defs };
}

/** Options of {@link normalizeSchema} and {@link withoutNoise}. */
export interface NormalizeOptions {
  /**
   * Drop a `pattern` that sits next to a `format`: zod writes out its own regular expression for every
   * format (a long one for `email`), and the format's name says the same to a model in a word.
   */
  dropFormatPatterns?: boolean;
}

/**
 * Removes `$schema` and takes every property that has a `default` out of `required` (the model may omit
 * it and the default applies), at every level; and drops the noise {@link withoutNoise} drops.
 */
export function normalizeSchema(schema: JsonSchema, options: NormalizeOptions = {}): JsonSchema {
  const walk = (node: JsonSchema): JsonSchema => {
    const out = mapSubschemas(quiet(node, options), walk);
    if (Array.isArray(out.required) && isObject(out.properties)) {
      const properties = out.properties;
      out.required = out.required.filter(
        (name) => !(typeof name === "string" && isObject(properties[name]) && "default" in properties[name]),
      );
    }
    return out;
  };
  return walk(schema);
}

/**
 * Removes `$schema` and what only adds noise for a model, at every level: a `minimum` or `maximum` that
 * restates JavaScript's safe-integer range (zod's `.int()` writes ±9007199254740991), and with
 * `dropFormatPatterns` a pattern that spells out a format. Schemas the model reads are cleaned; the
 * schema arguments are validated against never is, so nothing here changes what is accepted.
 */
export function withoutNoise(schema: JsonSchema, options: NormalizeOptions = {}): JsonSchema {
  const walk = (node: JsonSchema): JsonSchema => mapSubschemas(quiet(node, options), walk);
  return walk(schema);
}

function quiet(node: JsonSchema, options: NormalizeOptions): JsonSchema {
  const { $schema: _s, ...rest } = node;
  if (rest.minimum === -Number.MAX_SAFE_INTEGER) delete rest.minimum;
  if (rest.maximum === Number.MAX_SAFE_INTEGER) delete rest.maximum;
  if (options.dropFormatPatterns && typeof rest.format === "string" && typeof rest.pattern === "string") {
    delete rest.pattern;
  }
  return rest;
}

/** Makes one schema also accept `null`, in the simplest form providers understand. */
function nullable(schema: JsonSchema): JsonSchema {
  if (acceptsNull(schema)) return schema;
  const types = typesOf(schema);
  const plain = types.length > 0 && !("const" in schema) && !schema.anyOf && !schema.oneOf && !schema.allOf;
  if (plain) {
    const out: JsonSchema = { ...schema, type: [...types, "null"] };
    if (Array.isArray(schema.enum)) out.enum = [...schema.enum, null];
    return out;
  }
  // A bare union gets one more branch rather than a union nested in a union.
  if (Array.isArray(schema.anyOf) && !("type" in schema) && !("oneOf" in schema) && !("allOf" in schema)) {
    return { ...schema, anyOf: [...schema.anyOf, { type: "null" }] };
  }
  return { anyOf: [schema, { type: "null" }] };
}

function describePath(path: string): string {
  return path === "" ? "the arguments object" : `"${path}"`;
}

/** Keywords strict mode (OpenAI structured outputs) does not support, with what to do instead. */
const STRICT_UNSUPPORTED: readonly (readonly [keyword: string, instead: string])[] = [
  ["not", "Describe the allowed values directly (an enum, or a union of what is allowed)"],
  ...["if", "then", "else"].map((k) => [k, "Use a union (z.union / anyOf) of the allowed shapes"] as const),
];

/** Keywords an object schema may have and still be merged with others out of an `allOf`. */
const MERGEABLE_OBJECT_KEYWORDS = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "description",
  "title",
]);

/**
 * Merges an `allOf` of plain object schemas (named properties, no extra keys) into one object schema, as
 * strict mode closes every object (an `allOf` of closed objects matches nothing) and does not support
 * `allOf` anyway. Returns undefined when the parts are not all plain objects or disagree on a property.
 */
function mergeAllOf(node: JsonSchema): JsonSchema | undefined {
  const { allOf, ...outer } = node;
  if (!Array.isArray(allOf) || allOf.length === 0) return undefined;
  const outerTypes = typesOf(outer);
  if (outerTypes.length > 0 && (outerTypes.length !== 1 || outerTypes[0] !== "object")) return undefined;
  const { default: fallback, examples, ...outerRest } = outer;
  const parts = [outerRest, ...allOf];
  const properties: JsonSchema = {};
  const required = new Set<string>();
  const descriptions: string[] = [];
  for (const part of parts) {
    if (!isObject(part)) return undefined;
    if (Object.keys(part).some((key) => !MERGEABLE_OBJECT_KEYWORDS.has(key))) return undefined;
    const types = typesOf(part);
    if (part !== outerRest && (types.length !== 1 || types[0] !== "object")) return undefined;
    if ("additionalProperties" in part && part.additionalProperties !== false) return undefined;
    if ("properties" in part && !isObject(part.properties)) return undefined;
    for (const [name, sub] of Object.entries(isObject(part.properties) ? part.properties : {})) {
      if (Object.hasOwn(properties, name) && JSON.stringify(properties[name]) !== JSON.stringify(sub)) {
        return undefined;
      }
      properties[name] = sub;
    }
    for (const name of Array.isArray(part.required) ? part.required : []) {
      if (typeof name === "string") required.add(name);
    }
    if (typeof part.description === "string" && !descriptions.includes(part.description)) {
      descriptions.push(part.description);
    }
  }
  const merged: JsonSchema = { type: "object", properties, required: [...required] };
  if (typeof outer.title === "string") merged.title = outer.title;
  if (descriptions.length > 0) merged.description = descriptions.join("\n");
  if ("default" in outer) merged.default = fallback;
  if ("examples" in outer) merged.examples = examples;
  return merged;
}

/**
 * The OpenAI-strict form of a (ref-inlined, normalized) schema: every object gets
 * `additionalProperties: false` and lists all its properties in `required`; properties that were optional
 * become nullable; `oneOf` becomes `anyOf` (validation still checks the original schema); an `allOf` of
 * plain objects is merged into one object. Throws `UserError` for what strict mode cannot express: a
 * record (free-form keys), any other `allOf`, `not`, and `if`/`then`/`else`.
 */
export function toStrictSchema(schema: JsonSchema, toolName: string): JsonSchema {
  const refuse = (path: string, what: string, instead: string): never => {
    throw new UserError(
      `Tool "${toolName}": strict mode cannot express ${what} at ${describePath(path)}. ${instead}, or set strict: false.`,
    );
  };
  const walk = (original: JsonSchema, path: string): JsonSchema => {
    let node = original;
    for (const [keyword, instead] of STRICT_UNSUPPORTED) {
      if (keyword in node) refuse(path, `"${keyword}"`, instead);
    }
    if ("allOf" in node) {
      node =
        mergeAllOf(node) ??
        refuse(
          path,
          'this "allOf" (an intersection)',
          "Merge the parts into one object (a single z.object or object schema with all the properties)",
        );
    }
    if ("oneOf" in node) {
      const { oneOf, ...rest } = node;
      if ("anyOf" in rest) {
        refuse(path, 'both "oneOf" and "anyOf" on one schema', "Use a single union");
      }
      // Strict mode has no oneOf. anyOf accepts at least the same values; the original still validates.
      node = { ...rest, anyOf: oneOf };
    }
    const out = mapSubschemas(node, (sub, key) => {
      if (key === "properties" || key === "$defs") return sub; // handled below, with names
      return walk(sub, key === "items" || key === "prefixItems" ? `${path}[]` : path);
    });
    if (isObject(out.$defs)) {
      const defs: JsonSchema = {};
      for (const [name, def] of Object.entries(out.$defs)) defs[name] = isObject(def) ? walk(def, path) : def;
      out.$defs = defs;
    }
    if (!describesObject(out)) return out;

    const extra = node.additionalProperties;
    if (
      (isObject(extra) || extra === true || isObject(node.patternProperties)) &&
      !isObject(node.properties)
    ) {
      throw new UserError(
        `Tool "${toolName}": strict mode cannot express the record (free-form keys) at ${describePath(path)}. ` +
          "Use an object with named properties, or an array of { key, value } objects, or set strict: false.",
      );
    }
    if (isObject(extra) || extra === true) {
      throw new UserError(
        `Tool "${toolName}": strict mode does not allow extra keys at ${describePath(path)}. ` +
          "Remove additionalProperties (or make it false), or set strict: false.",
      );
    }
    const properties = isObject(node.properties) ? node.properties : {};
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    const strictProperties: JsonSchema = {};
    for (const [name, sub] of Object.entries(properties)) {
      if (!isObject(sub)) continue;
      const inner = walk(sub, path === "" ? name : `${path}.${name}`);
      strictProperties[name] = required.has(name) ? inner : nullable(inner);
    }
    return {
      ...out,
      properties: strictProperties,
      required: Object.keys(strictProperties),
      additionalProperties: false,
    };
  };
  return walk(schema, "");
}
