/**
 * Arguments a tool does not have. zod strips an unknown key without a word, and JSON Schema lets one
 * through by default, so a model that writes `refund_order({ order_id, amount: 23 })` for a tool that
 * refunds in full would have its `amount` ignored — after a person approved "23". An argument the
 * schema does not declare is an error instead, unless the schema says that other keys are welcome:
 * `additionalProperties: true` or a schema (zod's `.loose()`, `.passthrough()`, `.catchall()`,
 * `z.record()`), or a `patternProperties` the key matches. An object schema that declares no properties
 * at all (`{ type: "object" }`) is free-form and is not checked.
 */

import type { ArgumentIssue } from "../../common/errors.js";
import { closestName } from "./closest.js";
import { objectBranchFor, refResolver } from "./coerce.js";
import { formatPath } from "./issues.js";
import { isObject } from "./json-schema.js";
import type { JsonSchema } from "./types.js";

/** How many declared names an unknown-argument message lists. */
const MAX_LISTED_NAMES = 12;

type Segment = string | number;

/** A key allowed without a schema of its own (nothing under it is checked). */
const FREE: JsonSchema = Object.freeze({});

/**
 * What a key of an object may be, by one schema: declared or allowed with the schema of its value (which
 * may itself be checked), {@link FREE} without one, or unknown (`undefined`).
 */
type KeyVerdict = JsonSchema | undefined;

/** What one part of an object schema says about keys, read once: a call's arguments are checked often. */
interface PartRules {
  properties: Record<string, unknown> | undefined;
  patterns: readonly { matches(key: string): boolean; schema: JsonSchema }[];
  /** What `additionalProperties` lets in: a schema, {@link FREE}, or nothing. */
  extra: JsonSchema | undefined;
  closes: boolean;
}

/** A schema and the parts of its `allOf` (an intersection), each resolved: together they say what a key may be. */
interface Shape {
  parts: readonly PartRules[];
  /** Whether some part says which keys there are; a shape none of whose parts does is free-form. */
  closes: boolean;
}

/** Shapes by root schema (its `$defs` resolve references) and by node. */
const shapesByRoot = new WeakMap<JsonSchema, WeakMap<JsonSchema, Shape>>();
const resolvers = new WeakMap<JsonSchema, (node: JsonSchema) => JsonSchema>();

/** The issues for every key of `value` (at any depth) that `schema` (ref-inlined) does not allow. */
export function unknownArguments(value: unknown, schema: JsonSchema): ArgumentIssue[] {
  let resolve = resolvers.get(schema);
  if (resolve === undefined) {
    resolve = refResolver(schema);
    resolvers.set(schema, resolve);
  }
  let shapes = shapesByRoot.get(schema);
  if (shapes === undefined) {
    shapes = new WeakMap();
    shapesByRoot.set(schema, shapes);
  }
  const context: Walk = { resolve, shapes, issues: [] };
  visit(context, value, schema, []);
  return context.issues;
}

/** What a check of one call's arguments carries down the tree. */
interface Walk {
  resolve: (node: JsonSchema) => JsonSchema;
  shapes: WeakMap<JsonSchema, Shape>;
  issues: ArgumentIssue[];
}

/** Whether a value has keys or items to check (an object or an array). */
function isTree(data: unknown): data is object {
  return typeof data === "object" && data !== null;
}

function visit(walk: Walk, data: unknown, node: JsonSchema, path: Segment[]): void {
  if (!isTree(data)) return;
  const current = walk.resolve(node);
  if (Array.isArray(data)) visitArray(walk, data, current, path);
  else visitObject(walk, data as Record<string, unknown>, current, path);
}

function visitArray(walk: Walk, data: unknown[], schema: JsonSchema, path: Segment[]): void {
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
  const rest = isObject(schema.items) ? schema.items : undefined;
  data.forEach((item, i) => {
    const sub = isObject(prefix[i]) ? prefix[i] : rest;
    if (sub !== undefined && isTree(item)) visit(walk, item, sub, [...path, i]);
  });
}

function visitObject(walk: Walk, data: Record<string, unknown>, schema: JsonSchema, path: Segment[]): void {
  const union = objectBranchFor(schema, data, walk.resolve);
  if (union === undefined || union.branch !== undefined) {
    const shape = shapeOf(walk, union === undefined ? schema : union.branch);
    if (!shape.closes) return;
    for (const key of Object.keys(data)) {
      const verdict = verdictOf(shape, key);
      if (verdict === undefined) walk.issues.push(unknown([...path, key], key, [shape], data));
      else if (verdict !== FREE && isTree(data[key])) visit(walk, data[key], verdict, [...path, key]);
    }
    return;
  }
  // The union's branch cannot be told: a key is unknown only if no candidate has it, and nothing deeper
  // is checked.
  const shapes = union.candidates.map((branch) => shapeOf(walk, branch));
  if (shapes.some((shape) => !shape.closes)) return;
  for (const key of Object.keys(data)) {
    if (shapes.every((shape) => verdictOf(shape, key) === undefined)) {
      walk.issues.push(unknown([...path, key], key, shapes, data));
    }
  }
}

/** The shape of a resolved schema, read once per schema object. */
function shapeOf(walk: Walk, schema: JsonSchema): Shape {
  let shape = walk.shapes.get(schema);
  if (shape === undefined) {
    const parts = [schema];
    for (let i = 0; i < parts.length; i++) {
      const allOf = parts[i]!.allOf;
      if (Array.isArray(allOf)) for (const part of allOf) if (isObject(part)) parts.push(walk.resolve(part));
    }
    const rules = parts.map(rulesOf);
    shape = { parts: rules, closes: rules.some((part) => part.closes) };
    walk.shapes.set(schema, shape);
  }
  return shape;
}

function rulesOf(part: JsonSchema): PartRules {
  const patterns = isObject(part.patternProperties) ? part.patternProperties : undefined;
  const extra = part.additionalProperties;
  return {
    properties: isObject(part.properties) ? part.properties : undefined,
    patterns: Object.entries(patterns ?? {}).map(([pattern, sub]) => ({
      matches: matcher(pattern),
      schema: isObject(sub) ? sub : FREE,
    })),
    extra: extra === true ? FREE : isObject(extra) ? extra : undefined,
    closes: isObject(part.properties) || patterns !== undefined || "additionalProperties" in part,
  };
}

/**
 * What `key` may be by the parts of one schema: declared by one of them (the first that declares it), or
 * let in by one (the first that does, by a pattern before `additionalProperties`).
 */
function verdictOf(shape: Shape, key: string): KeyVerdict {
  let allowed: KeyVerdict;
  for (const part of shape.parts) {
    if (part.properties !== undefined && Object.hasOwn(part.properties, key)) {
      const own = part.properties[key];
      return isObject(own) ? own : FREE;
    }
    if (allowed !== undefined) continue;
    for (const pattern of part.patterns) {
      if (pattern.matches(key)) {
        allowed = pattern.schema;
        break;
      }
    }
    allowed ??= part.extra;
  }
  return allowed;
}

function matcher(pattern: string): (key: string) => boolean {
  try {
    const regex = new RegExp(pattern, "u");
    return (key) => regex.test(key);
  } catch {
    // A pattern JavaScript cannot read: give the key the benefit of the doubt; validation decides.
    return () => true;
  }
}

/** The issue for an unknown key: what there is instead, and the closest name when one is close. */
function unknown(
  path: Segment[],
  key: string,
  shapes: readonly Shape[],
  data: Record<string, unknown>,
): ArgumentIssue {
  const names = new Set<string>();
  for (const shape of shapes) {
    for (const part of shape.parts) {
      if (part.properties !== undefined) for (const name of Object.keys(part.properties)) names.add(name);
    }
  }
  const top = path.length === 1;
  // A name the call already uses is not what this key meant.
  const meant = closestName(
    key,
    [...names].filter((name) => !Object.hasOwn(data, name)),
  );
  const listed = [...names].slice(0, MAX_LISTED_NAMES);
  const more = names.size > MAX_LISTED_NAMES ? `, and ${names.size - MAX_LISTED_NAMES} more` : "";
  const head = top ? "not an argument of this tool." : "not a field here.";
  const hint = meant === undefined ? "" : ` Did you mean "${meant}"?`;
  const there =
    names.size === 0
      ? top
        ? " This tool takes no arguments."
        : " This object has no fields."
      : ` ${top ? "Its arguments are" : "The fields are"}: ${listed.join(", ")}${more}.`;
  return { path: formatPath(path), message: `${head}${hint}${there}` };
}
