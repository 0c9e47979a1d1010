/**
 * Reading an observed type back from JSON (a file a host kept between processes): every field checked,
 * every bound of `types.ts` enforced, so that a damaged or hand-made file can neither grow a
 * type past what observing would make nor put anything but plain data into it.
 */

import {
  MAX_OBSERVED_DEPTH,
  MAX_OBSERVED_KEY_CHARS,
  MAX_OBSERVED_KEYS,
  MAX_OBSERVED_PROPERTIES,
  MAX_OBSERVED_UNION,
  type ObservedProperty,
  type ObservedType,
} from "./types.js";

const FLAGS = ["unknown", "null", "boolean", "number", "string"] as const;
const TYPE_FIELDS = new Set<string>([...FLAGS, "array", "object"]);

/**
 * The observed type in `json`, checked and copied. Throws an Error whose message names the first part
 * that is wrong (`at` is where the type sits, e.g. `tools.get_note.type`).
 */
export function observedTypeFromJson(json: unknown, at: string): ObservedType {
  const budget = { properties: MAX_OBSERVED_PROPERTIES };
  return readType(json, at, 0, budget);
}

function readType(json: unknown, at: string, depth: number, budget: { properties: number }): ObservedType {
  if (!isRecord(json)) throw new Error(`${at} is not an observed type (an object such as {"string":true}).`);
  // Observing cuts values at MAX_OBSERVED_DEPTH; their types nest one level more (the unknown at the cut).
  if (depth > MAX_OBSERVED_DEPTH + 1) throw new Error(`${at} nests deeper than observed types do.`);
  for (const key of Object.keys(json)) {
    if (!TYPE_FIELDS.has(key)) throw new Error(`${at} has an unknown field "${key}".`);
  }
  const type: ObservedType = {};
  for (const flag of FLAGS) {
    if (json[flag] === undefined) continue;
    if (json[flag] !== true) throw new Error(`${at}.${flag} must be true when present.`);
    type[flag] = true;
  }
  if (json.array !== undefined) {
    const array = json.array;
    if (!isRecord(array) || Object.keys(array).some((key) => key !== "element")) {
      throw new Error(`${at}.array must be {} or { "element": <observed type> }.`);
    }
    type.array =
      array.element === undefined
        ? {}
        : { element: readType(array.element, `${at}.array.element`, depth + 1, budget) };
  }
  if (json.object !== undefined) type.object = readObject(json.object, `${at}.object`, depth, budget);
  const kinds = Object.keys(type).filter((key) => key !== "unknown").length;
  if (type.unknown) return { unknown: true };
  if (kinds === 0) throw new Error(`${at} names no kind of value.`);
  if (kinds > MAX_OBSERVED_UNION) {
    throw new Error(`${at} has ${kinds} kinds of value; an observed type has at most ${MAX_OBSERVED_UNION}.`);
  }
  return type;
}

function readObject(
  json: unknown,
  at: string,
  depth: number,
  budget: { properties: number },
): NonNullable<ObservedType["object"]> {
  if (!isRecord(json)) throw new Error(`${at} must be { "samples", "properties" }.`);
  for (const key of Object.keys(json)) {
    if (key !== "samples" && key !== "properties" && key !== "record") {
      throw new Error(`${at} has an unknown field "${key}".`);
    }
  }
  const samples = count(json.samples, `${at}.samples`);
  if (json.record !== undefined && json.record !== true)
    throw new Error(`${at}.record must be true when present.`);
  if (!Array.isArray(json.properties)) throw new Error(`${at}.properties must be an array.`);
  if (json.record === true) {
    if (json.properties.length > 0) throw new Error(`${at} is a record, so its properties must be empty.`);
    return { samples, properties: [], record: true };
  }
  if (json.properties.length > MAX_OBSERVED_KEYS) {
    throw new Error(
      `${at} has ${json.properties.length} keys; an observed object has at most ${MAX_OBSERVED_KEYS}.`,
    );
  }
  const keys = new Set<string>();
  const properties = json.properties.map((property: unknown, i): ObservedProperty => {
    const where = `${at}.properties[${i}]`;
    if (!isRecord(property) || Object.keys(property).some((k) => !["key", "type", "seen"].includes(k))) {
      throw new Error(`${where} must be { "key", "type", "seen" }.`);
    }
    const { key } = property;
    if (typeof key !== "string" || key.length > MAX_OBSERVED_KEY_CHARS) {
      throw new Error(`${where}.key must be a string of at most ${MAX_OBSERVED_KEY_CHARS} characters.`);
    }
    if (keys.has(key)) throw new Error(`${where}.key "${key}" appears twice.`);
    keys.add(key);
    const seen = count(property.seen, `${where}.seen`);
    if (seen > samples) throw new Error(`${where}.seen is more than the object's ${samples} samples.`);
    if (--budget.properties < 0) {
      throw new Error(
        `${at} takes the type past ${MAX_OBSERVED_PROPERTIES} keys, more than observed types hold.`,
      );
    }
    return { key, type: readType(property.type, `${where}.type`, depth + 1, budget), seen };
  });
  return { samples, properties };
}

function count(value: unknown, at: string): number {
  if (!Number.isSafeInteger(value) || (value as number) < 1)
    throw new Error(`${at} must be a whole number >= 1.`);
  return value as number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
