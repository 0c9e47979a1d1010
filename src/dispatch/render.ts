/**
 * The default renderer: strings pass through, everything else becomes JSON. It never throws: dates,
 * maps, sets, bigints, byte buffers, class instances, errors and cycles all have a JSON form.
 */

/** How deep the default renderer follows nested values before it writes a placeholder. */
const MAX_RENDER_DEPTH = 64;

/** Renders a tool's value as the string the model reads. */
export function renderValue(value: unknown): string {
  return typeof value === "string" ? value : renderJson(value);
}

/** Any value as JSON text (a string too becomes a JSON string); `undefined` becomes `null`. Never throws. */
export function renderJson(value: unknown): string {
  const json = JSON.stringify(toJsonValue(value, new Set(), 0));
  return json === undefined ? "null" : json;
}

function toJsonValue(value: unknown, ancestors: Set<object>, depth: number): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : String(value);
    case "bigint":
      return value.toString();
    case "undefined":
    case "function":
    case "symbol":
      return null;
  }
  if (value === null) return null;
  const object = value as object;
  if (ancestors.has(object)) return "[Circular]";
  if (depth >= MAX_RENDER_DEPTH) return "[Too deep]";
  ancestors.add(object);
  try {
    return objectToJson(object, ancestors, depth + 1);
  } catch (error) {
    // A throwing getter or toJSON must not turn a successful call into a crash.
    return `[Unrenderable: ${error instanceof Error ? error.message : String(error)}]`;
  } finally {
    ancestors.delete(object);
  }
}

function objectToJson(object: object, ancestors: Set<object>, depth: number): unknown {
  const child = (v: unknown) => toJsonValue(v, ancestors, depth);
  if (Array.isArray(object)) return object.map(child);
  const proto = Object.getPrototypeOf(object);
  // Plain data, the common case, takes the short way: no instanceof chain, no descriptor per key.
  if (
    (proto === Object.prototype || proto === null) &&
    typeof (object as { toJSON?: unknown }).toJSON !== "function"
  ) {
    return plainToJson(object as Record<string, unknown>, child);
  }
  if (object instanceof Date) return Number.isNaN(object.getTime()) ? "Invalid Date" : object.toISOString();
  if (ArrayBuffer.isView(object)) {
    const bytes = new Uint8Array(object.buffer, object.byteOffset, object.byteLength);
    return { bytes: bytes.byteLength, base64: Buffer.from(bytes).toString("base64") };
  }
  if (object instanceof ArrayBuffer) return child(new Uint8Array(object));
  if (object instanceof Map) {
    const entries = [...object.entries()];
    return entries.every(([key]) => typeof key === "string")
      ? Object.fromEntries(entries.map(([key, v]) => [key, child(v)]))
      : entries.map(([key, v]) => [child(key), child(v)]);
  }
  if (object instanceof Set) return [...object].map(child);
  if (object instanceof Error) return { name: object.name, message: object.message };
  if (object instanceof URL || object instanceof RegExp) return String(object);
  const toJSON = (object as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") return child(toJSON.call(object));
  return plainToJson(object as Record<string, unknown>, child);
}

/** An object's own enumerable string-keyed data, converted; what JSON would leave out is left out. */
function plainToJson(
  object: Record<string, unknown>,
  child: (v: unknown) => unknown,
): Record<string, unknown> {
  const plain: Record<string, unknown> = {};
  const keys = Object.keys(object);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const v = object[key];
    if (typeof v === "function" || typeof v === "symbol" || v === undefined) continue;
    // Assignment would make a "__proto__" key the object's prototype: that one key is defined instead.
    if (key === "__proto__") {
      Object.defineProperty(plain, key, {
        value: child(v),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else plain[key] = child(v);
  }
  return plain;
}
