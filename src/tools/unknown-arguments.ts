/**
 * Arguments a tool does not have. zod strips an unknown key without a word, and JSON Schema lets one
 * through by default, so a model that writes `refund_order({ order_id, amount: 23 })` for a tool that
 * refunds in full would have its `amount` ignored — after a person approved "23". An argument the
 * schema does not declare is an error instead, unless the schema says that other keys are welcome:
 * `additionalProperties: true` or a schema (zod's `.loose()`, `.passthrough()`, `.catchall()`,
 * `z.record()`), or a `patternProperties` the key matches. An object schema that declares no properties
 * at all (`{ type: "object" }`) is free-form and is not checked.
 */

import type { ArgumentIssue } from "../errors.js";
import { closestName } from "./closest.js";
import { objectBranchFor, refResolver } from "./coerce.js";
import { formatPath } from "./issues.js";
import { isObject } from "./json-schema.js";
import type { JsonSchema } from "./types.js";

/** How many declared names an unknown-argument message lists. */
const MAX_LISTED_NAMES = 12;

type Segment = string | number;

/**
 * What a key of an object may be, by one schema: `declared` with the schema of its value (which may
 * itself be checked), `allowed` without one, or unknown (`undefined`).
 */
type KeyVerdict = { schema: JsonSchema | undefined } | undefined;

/** The issues for every key of `value` (at any depth) that `schema` (ref-inlined) does not allow. */
export function unknownArguments(value: unknown, schema: JsonSchema): ArgumentIssue[] {
  const resolve = refResolver(schema);
  const issues: ArgumentIssue[] = [];

  const visit = (data: unknown, node: JsonSchema, path: Segment[]): void => {
    const current = resolve(node);
    if (Array.isArray(data)) visitArray(data, current, path);
    else if (isObject(data)) visitObject(data, current, path);
  };

  const visitArray = (data: unknown[], schema: JsonSchema, path: Segment[]): void => {
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
    const rest = isObject(schema.items) ? schema.items : undefined;
    data.forEach((item, i) => {
      const sub = isObject(prefix[i]) ? prefix[i] : rest;
      if (sub !== undefined) visit(item, sub, [...path, i]);
    });
  };

  const visitObject = (data: Record<string, unknown>, schema: JsonSchema, path: Segment[]): void => {
    const union = objectBranchFor(schema, data, resolve);
    // When the union branch cannot be told, a key is unknown only if no candidate has it, and nothing
    // deeper is checked.
    const branches = union === undefined ? [schema] : union.branch ? [union.branch] : union.candidates;
    const shapes = branches.map((branch) => partsOf(branch, resolve));
    if (shapes.some((parts) => !parts.some(closes))) return;
    for (const [key, item] of Object.entries(data)) {
      const verdicts = shapes.map((parts) => verdictOf(parts, key));
      if (verdicts.every((verdict) => verdict === undefined)) {
        issues.push(unknown([...path, key], key, shapes, data));
        continue;
      }
      const only = verdicts.length === 1 ? verdicts[0] : undefined;
      if (only?.schema !== undefined) visit(item, only.schema, [...path, key]);
    }
  };

  visit(value, schema, []);
  return issues;
}

/** A schema and the parts of its `allOf` (an intersection), each resolved: together they say what a key may be. */
function partsOf(schema: JsonSchema, resolve: (node: JsonSchema) => JsonSchema): JsonSchema[] {
  const parts = [schema];
  for (let i = 0; i < parts.length; i++) {
    const allOf = parts[i]!.allOf;
    if (Array.isArray(allOf)) for (const part of allOf) if (isObject(part)) parts.push(resolve(part));
  }
  return parts;
}

/** Whether a part says which keys there are (declares properties or rules on others). */
function closes(part: JsonSchema): boolean {
  return isObject(part.properties) || isObject(part.patternProperties) || "additionalProperties" in part;
}

/** What `key` may be by the parts of one schema: declared by one of them, or let in by one. */
function verdictOf(parts: readonly JsonSchema[], key: string): KeyVerdict {
  let allowed: KeyVerdict;
  for (const part of parts) {
    const properties = isObject(part.properties) ? part.properties : undefined;
    if (properties && Object.hasOwn(properties, key)) {
      const own = properties[key];
      return { schema: isObject(own) ? own : undefined };
    }
    const patterns = isObject(part.patternProperties) ? part.patternProperties : undefined;
    for (const [pattern, sub] of Object.entries(patterns ?? {})) {
      if (matches(pattern, key)) allowed ??= { schema: isObject(sub) ? sub : undefined };
    }
    const extra = part.additionalProperties;
    if (extra === true) allowed ??= { schema: undefined };
    else if (isObject(extra)) allowed ??= { schema: extra };
  }
  return allowed;
}

function matches(pattern: string, key: string): boolean {
  try {
    return new RegExp(pattern, "u").test(key);
  } catch {
    // A pattern JavaScript cannot read: give the key the benefit of the doubt; validation decides.
    return true;
  }
}

/** The issue for an unknown key: what there is instead, and the closest name when one is close. */
function unknown(
  path: Segment[],
  key: string,
  shapes: readonly JsonSchema[][],
  data: Record<string, unknown>,
): ArgumentIssue {
  const names = new Set<string>();
  for (const parts of shapes) {
    for (const part of parts) {
      if (isObject(part.properties)) for (const name of Object.keys(part.properties)) names.add(name);
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
