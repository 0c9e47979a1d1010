/**
 * The JSON the prelude gets in QuickJS. QuickJS's own `JSON.stringify` keeps the objects it is inside
 * in an ordinary array and adds to it by assignment, so an index setter the code put on
 * Array.prototype or Object.prototype (or a Proxy as Array.prototype's prototype) would run inside the
 * prelude as it serializes its own messages (the end report, recorded values), and see and change them.
 * V8's does not. So the prelude's `stringify` is QuickJS's own while those prototypes hold no index
 * key, and otherwise a serializer in plain JavaScript that makes no array and sets no index.
 *
 * The source below is evaluated in the guest before the prelude and before any of the model's code,
 * and handed to the prelude alone under the name `JSON`: the model's code never sees it, and its own
 * global `JSON` is QuickJS's.
 */

/**
 * A script whose value is `{ stringify, parse }`: `parse` is QuickJS's, `stringify(value, replacer?)`
 * takes a function replacer only (as the prelude calls it) and throws a TypeError for a cycle or a
 * BigInt, as QuickJS's does.
 */
export const GUARDED_JSON_SOURCE = `(function (JSON, Reflect, Object, Set, Array, Number, String, Boolean, isFinite) {
  "use strict";
  const native = JSON.stringify;
  const apply = Reflect.apply;
  const ownKeys = Reflect.ownKeys;
  const getPrototypeOf = Object.getPrototypeOf;
  const keysOf = Object.keys;
  const isArray = Array.isArray;
  const ArrayProto = Array.prototype;
  const ObjectProto = Object.prototype;
  const setHas = Set.prototype.has;
  const setAdd = Set.prototype.add;
  const setDelete = Set.prototype.delete;
  const numberValue = Number.prototype.valueOf;
  const stringValue = String.prototype.valueOf;
  const booleanValue = Boolean.prototype.valueOf;
  const SetCtor = Set;
  const TypeErrorCtor = TypeError;
  // Own keys list array indices first, in order: only the first can be one.
  const indexed = (object) => {
    const keys = ownKeys(object);
    if (keys.length === 0) return false;
    const key = keys[0];
    return typeof key === "string" && \`\${+key >>> 0}\` === key;
  };
  const poisoned = () =>
    getPrototypeOf(ArrayProto) !== ObjectProto || indexed(ArrayProto) || indexed(ObjectProto);
  const unwrap = (value, valueOf) => {
    try {
      return { value: apply(valueOf, value, []) };
    } catch {
      return undefined;
    }
  };
  const plain = (value, replacer) => {
    const open = new SetCtor();
    const write = (holder, key, value) => {
      if ((typeof value === "object" && value !== null) || typeof value === "bigint") {
        const toJSON = value.toJSON;
        if (typeof toJSON === "function") value = apply(toJSON, value, [key]);
      }
      if (replacer !== undefined) value = apply(replacer, holder, [key, value]);
      if (typeof value === "object" && value !== null) {
        const boxed = unwrap(value, numberValue) || unwrap(value, stringValue) || unwrap(value, booleanValue);
        if (boxed !== undefined) value = boxed.value;
      }
      if (value === null) return "null";
      switch (typeof value) {
        case "boolean":
          return value ? "true" : "false";
        case "number":
          return isFinite(value) ? native(value) : "null";
        case "string":
          return native(value);
        case "bigint":
          throw new TypeErrorCtor("Do not know how to serialize a BigInt");
        case "object":
          break;
        default:
          return undefined;
      }
      if (apply(setHas, open, [value])) throw new TypeErrorCtor("circular reference");
      apply(setAdd, open, [value]);
      let out;
      if (isArray(value)) {
        const length = value.length;
        out = "[";
        for (let i = 0; i < length; i++) {
          const item = write(value, \`\${i}\`, value[i]);
          out += (i > 0 ? "," : "") + (item === undefined ? "null" : item);
        }
        out += "]";
      } else {
        const keys = keysOf(value);
        out = "{";
        let first = true;
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i];
          const item = write(value, key, value[key]);
          if (item === undefined) continue;
          out += (first ? "" : ",") + native(key) + ":" + item;
          first = false;
        }
        out += "}";
      }
      apply(setDelete, open, [value]);
      return out;
    };
    return write({ "": value }, "", value);
  };
  const stringify = (value, replacer) => {
    const fn = typeof replacer === "function" ? replacer : undefined;
    return poisoned() ? plain(value, fn) : native(value, fn);
  };
  return Object.freeze({ stringify, parse: JSON.parse });
})(JSON, Reflect, Object, Set, Array, Number, String, Boolean, isFinite)`;
