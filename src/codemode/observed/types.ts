/**
 * Learnt result types: the TypeScript type of the values a tool has returned, inferred from the values
 * themselves and merged sample by sample, for tools without an output schema. Object keys missing from
 * some samples become optional, different kinds of value become a union, arrays take the merged type of
 * their elements. Bounded everywhere (depth, keys, union width, rendered length): past a bound the part
 * widens to `unknown`, never growing without end. A hint for the model, never a validation.
 *
 * The types are plain JSON-serialisable objects, so a host can keep them between processes.
 */

import { propertyKey } from "../schema-to-type.js";

/** How deep values are followed; deeper parts are `unknown`. */
export const MAX_OBSERVED_DEPTH = 4;

/** How many keys one object type holds; an object with more becomes `Record<string, unknown>`. */
export const MAX_OBSERVED_KEYS = 24;

/** How many keys a whole observed type holds across all its objects; past it, new keys widen the object. */
export const MAX_OBSERVED_PROPERTIES = 120;

/** How many kinds of value (string, number, object, ...) one position may hold before it is `unknown`. */
export const MAX_OBSERVED_UNION = 3;

/** How many elements of one array are looked at. */
const MAX_OBSERVED_ARRAY_SAMPLES = 20;

/** How long a key may be; an object with a longer key becomes `Record<string, unknown>`. */
export const MAX_OBSERVED_KEY_CHARS = 64;

/** How many values (nested ones included) one observation looks at; past it, the rest is not sampled. */
const MAX_OBSERVED_VALUES = 2_000;

/** How long a rendered type may be; a longer one is rendered shallower until it fits. */
export const MAX_OBSERVED_TYPE_CHARS = 600;

/** One key of an observed object type. */
export interface ObservedProperty {
  key: string;
  type: ObservedType;
  /** In how many of the object's samples the key was present. */
  seen: number;
}

/**
 * The observed type of a value: the kinds seen at one position. `unknown` wins over everything (the
 * position held something unrepresentable, or a bound was passed).
 */
export interface ObservedType {
  unknown?: true;
  null?: true;
  boolean?: true;
  number?: true;
  string?: true;
  /** Arrays were seen; `element` is the merged type of their elements, absent while all were empty. */
  array?: { element?: ObservedType };
  /** Objects were seen: their keys in first-seen order, or `record` when they had too many. */
  object?: { samples: number; properties: ObservedProperty[]; record?: true };
}

const UNKNOWN: ObservedType = { unknown: true };

/** The observed type of one JSON value. */
export function observeValue(value: unknown): ObservedType {
  return bound(typeOfValue(value, 0, { left: MAX_OBSERVED_VALUES }));
}

/**
 * `previous` merged with the type of one more `value`: what a host calls after each successful result.
 * `previous` is not changed.
 */
export function observe(previous: ObservedType | undefined, value: unknown): ObservedType {
  const next = observeValue(value);
  return previous === undefined ? next : mergeObservedTypes(previous, next);
}

/** The type that covers both: union of kinds, keys optional unless present in every sample. */
export function mergeObservedTypes(a: ObservedType, b: ObservedType): ObservedType {
  return bound(merge(a, b, 0));
}

function typeOfValue(value: unknown, depth: number, budget: { left: number }): ObservedType {
  budget.left--;
  if (value === null) return { null: true };
  switch (typeof value) {
    case "string":
      return { string: true };
    case "number":
      return { number: true };
    case "boolean":
      return { boolean: true };
    case "object":
      break;
    default:
      return UNKNOWN;
  }
  // A date reaches the code as its JSON: an ISO string.
  if (value instanceof Date) return { string: true };
  if (depth >= MAX_OBSERVED_DEPTH || budget.left < 0) return UNKNOWN;
  if (Array.isArray(value)) {
    let element: ObservedType | undefined;
    for (const item of value.slice(0, MAX_OBSERVED_ARRAY_SAMPLES)) {
      // Past the budget, the elements already seen stand for the rest.
      if (element !== undefined && budget.left <= 0) break;
      const type = typeOfValue(item, depth + 1, budget);
      element = element === undefined ? type : merge(element, type, depth + 1);
    }
    return { array: element === undefined ? {} : { element } };
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return UNKNOWN;
  const keys = Object.keys(value).filter((key) => (value as Record<string, unknown>)[key] !== undefined);
  if (keys.length > MAX_OBSERVED_KEYS || keys.some((key) => key.length > MAX_OBSERVED_KEY_CHARS)) {
    return { object: { samples: 1, properties: [], record: true } };
  }
  const properties = keys.map((key) => ({
    key,
    type: typeOfValue((value as Record<string, unknown>)[key], depth + 1, budget),
    seen: 1,
  }));
  return { object: { samples: 1, properties } };
}

function merge(a: ObservedType, b: ObservedType, depth: number): ObservedType {
  if (a.unknown || b.unknown) return UNKNOWN;
  const merged: ObservedType = {};
  if (a.null || b.null) merged.null = true;
  if (a.boolean || b.boolean) merged.boolean = true;
  if (a.number || b.number) merged.number = true;
  if (a.string || b.string) merged.string = true;
  if (a.array || b.array) {
    const [x, y] = [a.array?.element, b.array?.element];
    const element = x === undefined ? y : y === undefined ? x : merge(x, y, depth + 1);
    merged.array = element === undefined ? {} : { element };
  }
  if (a.object || b.object) merged.object = mergeObjects(a.object, b.object, depth);
  return kinds(merged) > MAX_OBSERVED_UNION ? UNKNOWN : merged;
}

function mergeObjects(
  a: ObservedType["object"],
  b: ObservedType["object"],
  depth: number,
): NonNullable<ObservedType["object"]> {
  if (a === undefined) return b!;
  if (b === undefined) return a;
  const samples = a.samples + b.samples;
  if (a.record || b.record) return { samples, properties: [], record: true };
  const properties = a.properties.map((p) => ({ ...p }));
  for (const property of b.properties) {
    const existing = properties.find((p) => p.key === property.key);
    if (existing) {
      existing.type = merge(existing.type, property.type, depth + 1);
      existing.seen += property.seen;
    } else {
      properties.push({ ...property });
    }
  }
  if (properties.length > MAX_OBSERVED_KEYS) return { samples, properties: [], record: true };
  return { samples, properties };
}

function kinds(type: ObservedType): number {
  return (
    Number(type.null === true) +
    Number(type.boolean === true) +
    Number(type.number === true) +
    Number(type.string === true) +
    Number(type.array !== undefined) +
    Number(type.object !== undefined)
  );
}

/** Widens objects to records, outermost last, until the whole type holds at most MAX_OBSERVED_PROPERTIES keys. */
function bound(type: ObservedType): ObservedType {
  let result = type;
  while (propertyCount(result) > MAX_OBSERVED_PROPERTIES) result = widenDeepest(result);
  return result;
}

function propertyCount(type: ObservedType): number {
  let count = 0;
  if (type.array?.element) count += propertyCount(type.array.element);
  for (const property of type.object?.properties ?? []) count += 1 + propertyCount(property.type);
  return count;
}

function depthOf(type: ObservedType): number {
  const below = [
    ...(type.array?.element ? [type.array.element] : []),
    ...(type.object?.properties ?? []).map((p) => p.type),
  ].map(depthOf);
  return (
    (type.object && !type.object.record && type.object.properties.length > 0 ? 1 : 0) + Math.max(0, ...below)
  );
}

/** The type with its deepest keyed objects turned into records. */
function widenDeepest(type: ObservedType): ObservedType {
  const target = depthOf(type);
  const widen = (node: ObservedType, level: number): ObservedType => {
    const copy: ObservedType = { ...node };
    if (node.array?.element) copy.array = { element: widen(node.array.element, level) };
    if (node.object && !node.object.record && node.object.properties.length > 0) {
      copy.object =
        level + 1 === target
          ? { samples: node.object.samples, properties: [], record: true }
          : {
              samples: node.object.samples,
              properties: node.object.properties.map((p) => ({ ...p, type: widen(p.type, level + 1) })),
            };
    }
    return copy;
  };
  return widen(type, 0);
}

/**
 * The type as one line of TypeScript (`{ id: string; tags?: string[]; owner: { login: string } | null }`),
 * at most {@link MAX_OBSERVED_TYPE_CHARS} characters: a longer one is rendered with its deepest levels cut
 * to `unknown`, down to plain `unknown`.
 */
export function renderObservedType(type: ObservedType): string {
  for (let depth = MAX_OBSERVED_DEPTH + 1; depth >= 0; depth--) {
    const text = render(type, depth);
    if (text.length <= MAX_OBSERVED_TYPE_CHARS) return text;
  }
  return "unknown";
}

function render(type: ObservedType, depth: number): string {
  return members(type, depth).join(" | ");
}

/** The members of the type's union, each rendered. */
function members(type: ObservedType, depth: number): string[] {
  if (type.unknown || depth === 0) return ["unknown"];
  const out: string[] = [];
  if (type.object) out.push(renderObject(type.object, depth));
  if (type.array) {
    const element = type.array.element ? members(type.array.element, depth - 1) : ["unknown"];
    out.push(element.length > 1 ? `(${element.join(" | ")})[]` : `${element[0]}[]`);
  }
  if (type.string) out.push("string");
  if (type.number) out.push("number");
  if (type.boolean) out.push("boolean");
  if (type.null) out.push("null");
  return out.length === 0 ? ["unknown"] : out;
}

function renderObject(object: NonNullable<ObservedType["object"]>, depth: number): string {
  if (object.record) return "Record<string, unknown>";
  if (object.properties.length === 0) return "{}";
  const fields = object.properties.map(
    ({ key, type, seen }) =>
      `${propertyKey(key)}${seen < object.samples ? "?" : ""}: ${render(type, depth - 1)}`,
  );
  return `{ ${fields.join("; ")} }`;
}
