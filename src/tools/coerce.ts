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

// Written so that it cannot backtrack more than linearly: `\d+\.?\d*` (the same language) is quadratic
// on a long run of digits followed by something else.
const NUMERIC = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;

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
  const resolve = refResolver(root);

  const visit = (data: unknown, node: JsonSchema): unknown => {
    const schema = resolve(node);
    if (typeof data === "string") return coerceString(data, schema);
    if (Array.isArray(data)) return visitArray(data, schema);
    if (isObject(data)) return visitObject(data, schema);
    return data;
  };

  const visitArray = (data: unknown[], schema: JsonSchema): unknown => {
    const target = arrayBranchFor(schema, resolve) ?? schema;
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
    const union = objectBranchFor(schema, data, resolve);
    // When the union branch cannot be told, nothing is coerced, and a null is removed only when every
    // candidate branch that knows the key takes it as optional and not nullable.
    const target = union === undefined ? schema : (union.branch ?? {});
    const candidates = union?.candidates;
    let result: unknown = data;
    // An intersection (allOf) applies each part in turn.
    if (Array.isArray(target.allOf)) {
      for (const part of target.allOf)
        if (isObject(part) && isObject(result)) result = visitObject(result, part);
    }
    if (!isObject(result)) return result;
    const properties = isObject(target.properties) ? target.properties : {};
    const extra = isObject(target.additionalProperties) ? target.additionalProperties : undefined;
    const required: readonly unknown[] = Array.isArray(target.required) ? target.required : [];
    let out: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(result)) {
      if (item === null && candidates !== undefined && options.stripOptionalNulls) {
        if (optionalInEvery(candidates, key, resolve)) {
          out ??= { ...result };
          delete out[key];
        }
        continue;
      }
      const own = Object.hasOwn(properties, key) && isObject(properties[key]) ? properties[key] : undefined;
      const sub = own ?? extra;
      if (sub === undefined) continue;
      if (
        item === null &&
        own !== undefined &&
        options.stripOptionalNulls &&
        !required.includes(key) &&
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

/**
 * Follows the `$ref`s left in a ref-inlined schema (recursive ones: `#` or `#/$defs/...`) against `root`;
 * a `$ref` that leads nowhere, or round in circles, becomes `{}` (anything).
 */
export function refResolver(root: JsonSchema): (node: JsonSchema) => JsonSchema {
  return (node) => {
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
}

/** A string holding a number or a boolean, converted when the schema wants that and not a string. */
function coerceString(data: string, schema: JsonSchema): unknown {
  const types = primitiveTypes(schema);
  if (types.has("string") || types.size === 0) return data;
  const trimmed = data.trim();
  if ((types.has("number") || types.has("integer")) && NUMERIC.test(trimmed)) {
    const number = Number(trimmed);
    if (Number.isFinite(number) && exactly(trimmed, number)) return number;
  }
  if (types.has("boolean") && (trimmed === "true" || trimmed === "false")) return trimmed === "true";
  return data;
}

/**
 * Whether `number` is exactly the decimal `text` (which matches {@link NUMERIC}): same significant digits,
 * same magnitude. "12345678901234567890" or "1e-400" would silently become another number: those stay
 * strings, so that validation reports them.
 */
function exactly(text: string, number: number): boolean {
  const wanted = significant(text.replace(/^[-+]/, ""));
  const got = significant(Math.abs(number).toExponential());
  return wanted.digits === got.digits && (wanted.digits === "" || wanted.exponent === got.exponent);
}

/** The significant digits of a decimal (no sign), without leading or trailing zeros, and its exponent. */
function significant(text: string): { digits: string; exponent: number } {
  const [mantissa, power = "0"] = text.toLowerCase().split("e");
  const [whole, fraction = ""] = mantissa.split(".");
  const all = whole + fraction;
  // Loops, not /^0+/ and /0+$/: those backtrack quadratically on a long run of zeros.
  let start = 0;
  while (all[start] === "0") start++;
  let end = all.length;
  while (end > start && all[end - 1] === "0") end--;
  return { digits: all.slice(start, end), exponent: whole.length - 1 - start + Number(power) };
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
 * The single union branch (anyOf/oneOf) that describes an array, or undefined when there is no union, or
 * `{}` when there is more than one candidate (ambiguous: no coercion inside it then).
 */
function arrayBranchFor(
  schema: JsonSchema,
  resolve: (node: JsonSchema) => JsonSchema,
): JsonSchema | undefined {
  if (!isUnion(schema)) return undefined;
  const branches = [schema.anyOf, schema.oneOf].flatMap((b) => (Array.isArray(b) ? b : []));
  if (branches.length === 0) return undefined;
  const matching = branches
    .filter(isObject)
    .map(resolve)
    .filter((b) => typesOf(b).includes("array") || "items" in b);
  return matching.length === 1 ? matching[0] : {};
}

/**
 * For a union (anyOf/oneOf) of objects: the branch the data belongs to, or, when it cannot be told, the
 * candidate branches. Undefined when the schema is no union. A branch is ruled out when a property it fixes
 * (a `const`, or an `enum` of one value: a discriminator) is sent with another value, or is required and
 * missing; the data can only ever match the branches that remain.
 */
export function objectBranchFor(
  schema: JsonSchema,
  data: Record<string, unknown>,
  resolve: (node: JsonSchema) => JsonSchema,
):
  | { branch: JsonSchema; candidates?: undefined }
  | { branch?: undefined; candidates: JsonSchema[] }
  | undefined {
  if (!isUnion(schema)) return undefined;
  const branches = [schema.anyOf, schema.oneOf].flatMap((b) => (Array.isArray(b) ? b : []));
  if (branches.length === 0) return undefined;
  const objects = branches.filter(isObject).map(resolve).filter(describesObject);
  if (objects.length === 1) return { branch: objects[0] };
  const remaining = objects.filter((branch) => !ruledOut(branch, data, resolve));
  if (remaining.length === 1) return { branch: remaining[0] };
  return { candidates: remaining.length > 0 ? remaining : objects };
}

/** Whether a discriminator of `branch` (a property fixed to one value) disagrees with the data. */
function ruledOut(
  branch: JsonSchema,
  data: Record<string, unknown>,
  resolve: (node: JsonSchema) => JsonSchema,
): boolean {
  const properties = isObject(branch.properties) ? branch.properties : {};
  const required = Array.isArray(branch.required) ? branch.required : [];
  for (const [key, raw] of Object.entries(properties)) {
    if (!isObject(raw)) continue;
    const property = resolve(raw);
    const fixed =
      "const" in property
        ? { value: property.const }
        : Array.isArray(property.enum) && property.enum.length === 1
          ? { value: property.enum[0] }
          : undefined;
    if (fixed === undefined) continue;
    if (!Object.hasOwn(data, key)) {
      if (required.includes(key)) return true;
      continue;
    }
    const sent = data[key];
    // Compare what validation will see: "1" becomes 1 where the discriminator is a number.
    const value = typeof sent === "string" ? coerceString(sent, property) : sent;
    if (!sameJson(value, fixed.value)) return true;
  }
  return false;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Whether `key` may be dropped when null in an object that may match any of `branches`: at least one
 * branch declares it, and every branch that declares it takes it as optional and not nullable.
 */
function optionalInEvery(
  branches: readonly JsonSchema[],
  key: string,
  resolve: (node: JsonSchema) => JsonSchema,
): boolean {
  let declared = false;
  for (const branch of branches) {
    const properties = isObject(branch.properties) ? branch.properties : {};
    if (!Object.hasOwn(properties, key)) continue;
    const property = properties[key];
    if (!isObject(property)) return false;
    const required = Array.isArray(branch.required) ? branch.required : [];
    if (required.includes(key) || acceptsNull(resolve(property))) return false;
    declared = true;
  }
  return declared;
}

/** Whether a schema has union branches (anyOf or oneOf); most have none, and the check is per call. */
function isUnion(schema: JsonSchema): boolean {
  return Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf);
}
