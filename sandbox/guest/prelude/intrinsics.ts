/**
 * The built-ins the prelude works with, captured as this module is evaluated: inside the guest, when the
 * bundled prelude is installed, before any of the model's code runs (see `index.ts`). Everything a run's
 * plumbing does after the model's code may have run goes through these, so later changes by the code to
 * the globals or their prototypes cannot affect the prelude.
 */

export const global = globalThis as unknown as Record<string, unknown>;
export const ObjectCtor = Object;
export const {
  create,
  defineProperty,
  freeze,
  getOwnPropertyNames,
  getOwnPropertyDescriptor,
  getOwnPropertyDescriptors,
  getPrototypeOf,
  keys,
} = ObjectCtor;
export const setPrototypeOf = ObjectCtor.setPrototypeOf;
export const { stringify, parse } = JSON;
export const { apply, construct, ownKeys } = Reflect;
export const ProxyCtor = Proxy;
export const PromiseCtor = Promise;
export const promiseThen = Promise.prototype.then;
export const promiseResolveStatic = Promise.resolve;
export const promiseRejectStatic = Promise.reject;
export const MapCtor = Map;
export const mapGet = Map.prototype.get;
export const mapSet = Map.prototype.set;
export const mapDelete = Map.prototype.delete;
export const mapEntries = Map.prototype.entries;
export const mapSize = getOwnPropertyDescriptor(Map.prototype, "size")!.get!;
export const mapIteratorNext = getPrototypeOf(new Map().entries()).next as () => IteratorResult<unknown>;
export const SetCtor = Set;
export const setHas = Set.prototype.has;
export const setAdd = Set.prototype.add;
export const setValues = Set.prototype.values;
export const setSize = getOwnPropertyDescriptor(Set.prototype, "size")!.get!;
export const setIteratorNext = getPrototypeOf(new Set().values()).next as () => IteratorResult<unknown>;
export const ErrorCtor = Error;
export const TypeErrorCtor = TypeError;
export const RangeErrorCtor = RangeError;
export const hasInstance = Function.prototype[Symbol.hasInstance];
export const StringCtor = String;
export const stringSlice = String.prototype.slice;
export const stringIndexOf = String.prototype.indexOf;
export const stringCharCodeAt = String.prototype.charCodeAt;
export const stringToLowerCase = String.prototype.toLowerCase;
export const stringTrim = String.prototype.trim;
export const Int32ArrayCtor = Int32Array;
export const reflectHas = Reflect.has;
export const reflectGet = Reflect.get;
export const symbolToString = Symbol.prototype.toString;
export const regExpExec = RegExp.prototype.exec;
export const regExpSource = getOwnPropertyDescriptor(RegExp.prototype, "source")!.get!;
export const regExpToString = RegExp.prototype.toString;
export const ArrayCtor = Array;
export const arrayJoin = Array.prototype.join;
export const arrayValues = Array.prototype.values;
export const isArray = Array.isArray;
// Watched before each later run of a sandbox (see guard): taken here, before any code could replace them.
export const FunctionPrototype = Function.prototype;
export const BigIntPrototype = BigInt.prototype;
export const JSON_OBJECT = JSON;
export const ATOMICS = Atomics;
export const TypedArrayCtor = getPrototypeOf(Uint16Array) as { prototype: object };
export const dateGetTime = Date.prototype.getTime;
export const dateToISOString = Date.prototype.toISOString;
export const numberIsNaN = Number.isNaN;
export const mathMin = Math.min;
export const objectIs = Object.is;
export const DateCtor = Date;
export const MathObject = Math;
export const dateNowOriginal = Date.now;
export const mathRandomOriginal = Math.random;
export const dateToStringOriginal = Date.prototype.toString;
export const ArrayBufferCtor = ArrayBuffer;
export const Uint16ArrayCtor = Uint16Array;
export const fromCharCode = StringCtor.fromCharCode;
export const {
  load: atomicsLoad,
  store: atomicsStore,
  compareExchange: atomicsExchange,
  wait: atomicsWait,
} = Atomics;
