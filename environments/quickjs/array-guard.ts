/**
 * QuickJS's interrupt handler, which ends a run at its CPU and wall-clock limits, is asked only as
 * JavaScript code runs (function calls, loops). Array.prototype's methods loop over `length` in C
 * without asking it, reading each index, present or not, and a sparse array or an array-like can say
 * any length up to 2^53 with no memory behind it: `[].indexOf.call({ length: 2 ** 40 }, 1)` or the
 * sort of a sparse array held the agent's thread (QuickJS runs on it) for minutes, past every limit.
 *
 * So in QuickJS these methods are wrapped, before the prelude and the model's code: on a `this` (or,
 * for `concat`, an argument it spreads) longer than {@link MAX_NATIVE_LENGTH}, the method runs on a
 * forwarding Proxy whose traps are JavaScript, so every element it reads or writes asks the interrupt
 * handler. `flat` and `flatMap`, which also loop over the arrays inside, are written in JavaScript.
 * (`fill` is left as it is: each element it writes takes heap, so the memory limit ends it.)
 * Nothing changes for shorter arrays, and the result is the same (a method that returns `this` returns
 * the original, not the Proxy).
 */

/**
 * The longest `length` a method walks in C: about 50 ms of QuickJS's C loop over missing elements
 * (~200 ns each, measured on this project's 2-core CI machine), the most a limit can be late by. Longer
 * arrays take the Proxy's way, several times slower per element: rare in code mode's scripts.
 */
export const MAX_NATIVE_LENGTH = 1 << 18;

/** A script that wraps Array.prototype's looping methods in the guest (its value is undefined). */
export const ARRAY_GUARD_SOURCE = `(function (Array, Object, Reflect, Proxy, Symbol) {
  "use strict";
  const MAX = ${MAX_NATIVE_LENGTH};
  const proto = Array.prototype;
  const isArray = Array.isArray;
  const apply = Reflect.apply;
  const defineProperty = Object.defineProperty;
  const ProxyCtor = Proxy;
  const spreadable = Symbol.isConcatSpreadable;
  const species = Symbol.species;
  const ArrayCtor = Array;
  const TypeErrorCtor = TypeError;
  const reflectGet = Reflect.get;
  const reflectSet = Reflect.set;
  const reflectHas = Reflect.has;
  const reflectDelete = Reflect.deleteProperty;
  const reflectDefine = Reflect.defineProperty;
  const reflectDescriptor = Reflect.getOwnPropertyDescriptor;
  // Each trap is a JavaScript call: QuickJS asks its interrupt handler as it makes them.
  const handler = Object.freeze({
    __proto__: null,
    get: (target, key) => reflectGet(target, key),
    set: (target, key, value) => reflectSet(target, key, value),
    has: (target, key) => reflectHas(target, key),
    deleteProperty: (target, key) => reflectDelete(target, key),
    defineProperty: (target, key, descriptor) => reflectDefine(target, key, descriptor),
    getOwnPropertyDescriptor: (target, key) => reflectDescriptor(target, key),
  });
  const isObject = (value) => (typeof value === "object" && value !== null) || typeof value === "function";
  const toLength = (value) => {
    const n = +value;
    if (!(n > 0)) return 0;
    return n > 9007199254740991 ? 9007199254740991 : n - (n % 1);
  };
  const long = (value) => isObject(value) && toLength(value.length) > MAX;
  const watched = (value) => (long(value) ? new ProxyCtor(value, handler) : value);
  const wrap = (name, spreads) => {
    const native = proto[name];
    if (typeof native !== "function") return;
    const method = {
      [name](...args) {
        const self = watched(this);
        if (spreads) {
          for (let i = 0; i < args.length; i++) {
            const arg = args[i];
            if (isObject(arg) && (isArray(arg) || arg[spreadable])) args[i] = watched(arg);
          }
        }
        const result = apply(native, self, args);
        return result === self && self !== this ? this : result;
      },
    }[name];
    defineProperty(method, "length", { value: native.length, configurable: true });
    defineProperty(proto, name, { value: method, writable: true, enumerable: false, configurable: true });
  };
  const names = [
    "copyWithin", "entries", "every", "filter", "find", "findIndex", "findLast", "findLastIndex",
    "forEach", "includes", "indexOf", "join", "keys", "lastIndexOf", "map", "reduce", "reduceRight",
    "reverse", "shift", "slice", "some", "sort", "splice", "toLocaleString", "toReversed", "toSorted",
    "toSpliced", "unshift", "values", "with",
  ];
  for (let i = 0; i < names.length; i++) wrap(names[i], false);
  wrap("concat", true);
  // Array.prototype[Symbol.iterator] is values: the same function, wrapped.
  defineProperty(proto, Symbol.iterator, { value: proto.values, writable: true, enumerable: false, configurable: true });
  // flat and flatMap walk the arrays inside too: in JavaScript, each step asks the interrupt handler.
  const speciesCreate = (original) => {
    let C;
    if (isArray(original)) {
      C = original.constructor;
      if (isObject(C)) {
        C = C[species];
        if (C === null) C = undefined;
      }
    }
    if (C === undefined) return [];
    if (typeof C !== "function") throw new TypeErrorCtor("not a constructor");
    return new C(0);
  };
  const put = (target, index, value) => {
    if (!reflectDefine(target, \`\${index}\`, { value, writable: true, enumerable: true, configurable: true })) {
      throw new TypeErrorCtor("could not define property " + index);
    }
  };
  const flatten = (target, source, length, start, depth, mapper, thisArg) => {
    let index = start;
    for (let i = 0; i < length; i++) {
      const key = \`\${i}\`;
      if (!(key in source)) continue;
      let element = source[key];
      if (mapper !== undefined) element = apply(mapper, thisArg, [element, i, source]);
      if (depth > 0 && isArray(element)) {
        index = flatten(target, element, toLength(element.length), index, depth - 1, undefined, undefined);
      } else {
        put(target, index, element);
        index++;
      }
    }
    return index;
  };
  const toObject = (value, name) => {
    if (value === null || value === undefined) {
      throw new TypeErrorCtor("Array.prototype." + name + " called on null or undefined");
    }
    return Object(value);
  };
  const methods = {
    flat(depth) {
      const source = toObject(this, "flat");
      const length = toLength(source.length);
      let levels = 1;
      if (depth !== undefined) {
        levels = +depth;
        if (levels !== levels) levels = 0;
        else if (levels !== Infinity && levels !== -Infinity) levels -= levels % 1;
      }
      const target = speciesCreate(source);
      flatten(target, source, length, 0, levels, undefined, undefined);
      return target;
    },
    flatMap(mapper, thisArg) {
      const source = toObject(this, "flatMap");
      const length = toLength(source.length);
      if (typeof mapper !== "function") throw new TypeErrorCtor("not a function");
      const target = speciesCreate(source);
      flatten(target, source, length, 0, 1, mapper, thisArg);
      return target;
    },
  };
  defineProperty(methods.flat, "length", { value: 0, configurable: true });
  defineProperty(methods.flatMap, "length", { value: 1, configurable: true });
  defineProperty(proto, "flat", { value: methods.flat, writable: true, enumerable: false, configurable: true });
  defineProperty(proto, "flatMap", { value: methods.flatMap, writable: true, enumerable: false, configurable: true });
})(Array, Object, Reflect, Proxy, Symbol)`;
