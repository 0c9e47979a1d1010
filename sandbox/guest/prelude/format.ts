/** Console formatting, roughly like Node's util.inspect, bounded by a character budget. */

import { callPromiseNames } from "./call-promises.js";
import {
  apply,
  dateGetTime,
  dateToISOString,
  ErrorCtor,
  getPrototypeOf,
  isArray,
  keys,
  mapEntries,
  mapGet,
  mapIteratorNext,
  mapSize,
  mathMin,
  numberIsNaN,
  objectIs,
  regExpExec,
  regExpSource,
  regExpToString,
  setIteratorNext,
  setSize,
  setValues,
} from "./intrinsics.js";
import { dataOf, hasBrand, isInstance, join, ownDescriptor, push, readField, toText } from "./objects.js";

const quote = (text: string): string => `'${text}'`;
/** How the console shows `value` at `depth`, in about `budget` characters; `seen` holds its containers. */
export const formatValue = (value: unknown, depth: number, seen: unknown[], budget: number): string => {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      return depth === 0 ? value : quote(value);
    case "number":
      return objectIs(value, -0) ? "-0" : toText(value);
    case "bigint":
      return `${toText(value)}n`;
    case "boolean":
    case "undefined":
      return toText(value);
    case "symbol":
      return toText(value);
    case "function": {
      const name = dataOf(value, "name") ?? "";
      return name === "" ? "[Function (anonymous)]" : `[Function: ${toText(name)}]`;
    }
  }
  const object = value as Record<string, unknown>;
  for (let i = 0; i < seen.length; i++) if (seen[i] === object) return "[Circular]";
  // A call's promise answers no other key (see callPromiseType): it is shown as what it most likely is.
  const call = apply(mapGet, callPromiseNames, [getPrototypeOf(object)]) as string | undefined;
  if (call !== undefined) return `Promise { tools.${call}(...): did you forget \`await\`? }`;
  if (isInstance(object, ErrorCtor)) {
    const stack = readField(object, "stack");
    return typeof stack === "string"
      ? stack
      : `${toText(readField(object, "name"))}: ${toText(readField(object, "message"))}`;
  }
  if (hasBrand(dateGetTime, object)) {
    const time = apply(dateGetTime, object, []) as number;
    return numberIsNaN(time) ? "Invalid Date" : (apply(dateToISOString, object, []) as string);
  }
  if (hasBrand(regExpSource, object)) return apply(regExpToString, object, []) as string;
  const isList = isArray(object);
  if (depth > 2) return isList ? "[Array]" : "[Object]";
  const inner: unknown[] = [];
  for (let i = 0; i < seen.length; i++) push(inner, seen[i]);
  push(inner, object);
  const parts: string[] = [];
  let used = 0;
  const add = (part: string): boolean => {
    push(parts, part);
    used += part.length + 2;
    return used < budget;
  };
  const show = (item: unknown) => formatValue(item, depth + 1, inner, budget - used);
  let prefix = "";
  let open = "{";
  let close = "}";
  if (isList) {
    open = "[";
    close = "]";
    const list = object as unknown as unknown[];
    const shown = mathMin(list.length, 100);
    for (let i = 0; i < shown; i++) if (!add(show(list[i]))) break;
    if (list.length > shown) add(`... ${list.length - shown} more items`);
  } else if (hasBrand(mapSize, object)) {
    prefix = `Map(${apply(mapSize, object, [])}) `;
    const entries = apply(mapEntries, object, []) as object;
    for (;;) {
      const step = apply(mapIteratorNext, entries, []) as IteratorResult<[unknown, unknown]>;
      if (step.done) break;
      if (!add(`${show(step.value[0])} => ${show(step.value[1])}`)) break;
    }
  } else if (hasBrand(setSize, object)) {
    prefix = `Set(${apply(setSize, object, [])}) `;
    const values = apply(setValues, object, []) as object;
    for (;;) {
      const step = apply(setIteratorNext, values, []) as IteratorResult<unknown>;
      if (step.done) break;
      if (!add(show(step.value))) break;
    }
  } else {
    const proto = getPrototypeOf(object);
    if (proto === null) prefix = "[Object: null prototype] ";
    else {
      const ctor = dataOf(proto, "constructor");
      const ctorName = ctor === undefined || ctor === null ? undefined : dataOf(ctor as object, "name");
      if (typeof ctorName === "string" && ctorName !== "Object" && ctorName !== "") prefix = `${ctorName} `;
    }
    const names = keys(object);
    for (let i = 0; i < names.length; i++) {
      const key = names[i];
      const descriptor = ownDescriptor(object, key);
      const label = apply(regExpExec, /^[A-Za-z_$][\w$]*$/, [key]) === null ? quote(key) : key;
      const shown =
        descriptor === undefined || "value" in descriptor
          ? show(descriptor?.value)
          : descriptor.set
            ? "[Getter/Setter]"
            : "[Getter]";
      if (!add(`${label}: ${shown}`)) break;
    }
  }
  if (parts.length === 0) return `${prefix}${open}${close}`;
  return `${prefix}${open} ${join(parts, ", ")} ${close}`;
};
/** One console line: the call's arguments formatted and joined by spaces, in about `budget` characters. */
export const formatLine = (args: unknown[], budget: number): string => {
  const parts: string[] = [];
  let used = 0;
  for (let i = 0; i < args.length; i++) {
    const part = formatValue(args[i], 0, [], budget - used);
    push(parts, part);
    used += part.length + 1;
    if (used > budget) break;
  }
  return join(parts, " ");
};
