/**
 * Prepares raw arguments for validation, guided by the tool's (ref-inlined) JSON Schema: numeric and
 * boolean strings become numbers and booleans where the schema wants them, and, for strict tools, nulls
 * sent for optional properties are removed. Nothing else is guessed. The input is never mutated: changed
 * objects and arrays are copied on write.
 */
import { acceptsNull, describesObject, isObject, typesOf } from "./json-schema.js";
import type { JsonSchema } from "./types.js";

/** What {@link prepareArguments} should do besides coercion. */
export interface PrepareOptions {
  /** Remove `null` sent for a property that is optional and does not itself accept null (strict mode). */
  stripOptionalNulls: boolean;
}

const NUMERIC = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

// How many `$ref` hops may be followed without reaching a real schema (a guard against `$ref` loops).
const MAX_REF_HOPS = 32;

/**
 * Returns `value` with coercions applied (the same reference when nothing changed). `root` is the document
 * that `$ref`s left in `schema` (recursive ones, `#` or `#/$defs/...`) resolve against.
 */
export function prepareArguments(
  value: unknown,
  schema: JsonSchema,
  options: PrepareOptions,
  root: JsonSchema = schema,
): unknown {
  const resolve = (node: JsonSchema): JsonSchema => {
    let current = node;
    for (let hops = 0; typeof current.$ref === "string" && hops < MAX_REF_HOPS; hops++) {
      const ref = current.$ref;
      const defs = isObject(root.$defs) ? root.$defs : {};
      const target = ref === "#" ? root : ref.startsWith("#/$defs/") ? defs[ref.slice(8)] : undefined;
      if (!isObject(target)) return {};
      const { $ref: _ref, ...siblings } = current;
      current = { ...target, ...siblings };
    }
    return current;
  };

  const visit = (data: unknown, node: JsonSchema): unknown => {
    const schema = resolve(node);
    if (typeof data === "string") return coerceString(data, schema);
    if (Array.isArray(data)) return visitArray(data, schema);
    if (isObject(data)) return visitObject(data, schema);
    return data;
  };

  const visitArray = (data: unknown[], schema: JsonSchema): unknown => {
    const target = branchFor(schema, "array", resolve) ?? schema;
    const prefix = Array.isArray(target.prefixItems) ? target.prefixItems : [];
    const rest = isObject(target.items) ? target.items : undefined;
    let out: unknown[] | undefined;
    data.forEach((item, i) => {
      const sub = isObject(prefix[i]) ? prefix[i] : rest;
      if (sub === undefined) return;
      const next = visit(item, sub);
      if (next !== item) {
        out ??= [...data];
        out[i] = next;
      }
    });
    return out ?? data;
  };

  const visitObject = (data: Record<string, unknown>, schema: JsonSchema): unknown => {
    const target = branchFor(schema, "object", resolve) ?? schema;
    let result: unknown = data;
    // An intersection (allOf) applies each part in turn.
    if (Array.isArray(target.allOf)) {
      for (const part of target.allOf)
        if (isObject(part) && isObject(result)) result = visitObject(result, part);
    }
    if (!isObject(result)) return result;
    const properties = isObject(target.properties) ? target.properties : {};
    const extra = isObject(target.additionalProperties) ? target.additionalProperties : undefined;
    const required = new Set(Array.isArray(target.required) ? target.required : []);
    let out: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(result)) {
      const own = Object.hasOwn(properties, key) && isObject(properties[key]) ? properties[key] : undefined;
      const sub = own ?? extra;
      if (sub === undefined) continue;
      if (
        item === null &&
        own !== undefined &&
        options.stripOptionalNulls &&
        !required.has(key) &&
        !acceptsNull(resolve(own))
      ) {
        out ??= { ...result };
        delete out[key];
        continue;
      }
      const next = visit(item, sub);
      if (next !== item) {
        out ??= { ...result };
        out[key] = next;
      }
    }
    return out ?? result;
  };

  return visit(value, schema);
}

/** A string holding a number or a boolean, converted when the schema wants that and not a string. */
function coerceString(data: string, schema: JsonSchema): unknown {
  const types = primitiveTypes(schema);
  if (types.has("string") || types.size === 0) return data;
  const trimmed = data.trim();
  if ((types.has("number") || types.has("integer")) && NUMERIC.test(trimmed)) {
    const number = Number(trimmed);
    if (Number.isFinite(number)) return number;
  }
  if (types.has("boolean") && (trimmed === "true" || trimmed === "false")) return trimmed === "true";
  return data;
}

/**
 * The JSON types a schema may take, looking through unions. A schema that says nothing about its type
 * (or has an enum or const that fixes the values) yields types that prevent coercion where ambiguous.
 */
function primitiveTypes(schema: JsonSchema): Set<string> {
  const types = new Set(typesOf(schema));
  if ("const" in schema) types.add(jsonType(schema.const));
  if (Array.isArray(schema.enum)) for (const v of schema.enum) types.add(jsonType(v));
  for (const key of ["anyOf", "oneOf"]) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches) {
      if (!isObject(branch)) continue;
      const inner = primitiveTypes(branch);
      // A branch with no type information accepts anything, strings included: never coerce then.
      if (inner.size === 0 && branch.$ref === undefined) types.add("string");
      for (const t of inner) types.add(t);
    }
  }
  return types;
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value === "number" ? "number" : typeof value;
}

/**
 * The single union branch (anyOf/oneOf) that describes an object or an array, or undefined when there is
 * no union or more than one candidate (ambiguous: no coercion inside it then).
 */
function branchFor(
  schema: JsonSchema,
  kind: "object" | "array",
  resolve: (node: JsonSchema) => JsonSchema,
): JsonSchema | undefined {
  const branches = [schema.anyOf, schema.oneOf].flatMap((b) => (Array.isArray(b) ? b : []));
  if (branches.length === 0) return undefined;
  const matching = branches
    .filter(isObject)
    .map(resolve)
    .filter((b) => (kind === "object" ? describesObject(b) : typesOf(b).includes("array") || "items" in b));
  return matching.length === 1 ? matching[0] : {};
}
