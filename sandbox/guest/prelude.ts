/**
 * The guest prelude: code that runs INSIDE a sandbox, before the model's code, to give it `tools`,
 * `console` and clear errors. Every environment shares it: the isolate engine (`sandbox/isolate`)
 * evaluates it in each V8 isolate, whichever process hosts the engine (the agent's, a sandbox-host
 * process, a container).
 *
 * {@link installPrelude} is never called on the host. Its source text is taken with
 * {@link preludeSource} and evaluated in the guest, so it must be self-contained: it may not refer to
 * anything outside its own body (no imports, no module-level values), and it may only use language
 * built-ins. The host and the guest talk through three functions that carry strings and numbers only,
 * and in-process through a slot of shared memory where the host writes a call's answer as text (their
 * types, and the names both sides use, are in `interface.ts`):
 *
 * - the guest calls `send(type, runId, id, a, b)` (a {@link GuestSend}) to report a tool call, a console
 *   line or the end of a run;
 * - the host calls the returned {@link GuestEntry} to start a run and to settle tool calls;
 * - for a call the code awaits with nothing else in flight, the guest offers it to `syncCall` (a
 *   {@link GuestSyncCall}) instead: a tool that answers at once answers within that one crossing, where
 *   `send` and a settle take two; a later outcome is settled like any call;
 * - or, given an `answers` slot (a {@link GuestAnswerSlot}, in-process sandboxes), it sends such a call
 *   as a `now` message and spins on the slot for the answer for a bounded while, so that no thread
 *   sleeps through a call that a synchronous tool answers in microseconds.
 *
 * The prelude keeps `send`, `syncCall` and the slot in a closure and never hands them (or anything else
 * of the host's) to the model's code, so nothing the host passed in is reachable from `globalThis` or
 * any prototype chain, nor handed to a species, getter, setter or `then` the code installed.
 */

import type { RunFailureName } from "../contract/index.js";
import type {
  GuestAnswerSlot,
  GuestDoneReport,
  GuestEntry,
  GuestReplayedCalls,
  GuestRunConfig,
  GuestSend,
  GuestSyncCall,
} from "./interface.js";

/**
 * The JavaScript source of a function expression equivalent to {@link installPrelude}, to be evaluated
 * in the guest in strict mode, e.g. `"use strict"; return (SOURCE)(send, syncCall);`.
 */
export function preludeSource(): string {
  // Some TypeScript loaders (esbuild with keepNames) insert `__name(fn, "name")` calls into function
  // bodies; the shim keeps the source self-contained whichever tool compiled this file.
  return `(function () { var __name = function (target) { return target; }; return (${installPrelude.toString()}); })()`;
}

/**
 * Installs `tools`, `console`, `ToolCallError` and `queueMicrotask` on the guest's global object,
 * removes or bounds the built-ins that could outlive a run, reach outside the sandbox or hold memory the
 * heap limit does not count, and returns the {@link GuestEntry} the host drives runs with.
 *
 * Runs INSIDE the guest (see the file comment); on the host it is only turned into source text.
 *
 * Everything a run's plumbing does after the model's code may have run (reporting a call, formatting a
 * console line, settling a call, ending a run) uses built-ins captured here, avoids iterators and
 * `instanceof`, never reads a property a prototype could supply, never assigns a property its object
 * lacks (it defines it: an inherited setter would run), and builds nothing of its own through a species
 * the code can set (the answer slot's views are made directly on its buffer, not by `subarray`; its own
 * promises get the frozen outcome prototype before `then`). So nothing of the host's is handed to a
 * function of the code's, and a session's earlier run cannot steer a later one through the prelude.
 * The built-ins it applies to the answer slot and those the engine consults on the way (promise
 * resolution reads `then`, JSON reads `toJSON`, `await` reads `constructor`) are checked first thing in
 * each later run of a sandbox (see `guard`); if an earlier run changed them, the run is refused as
 * tampered.
 */
export function installPrelude(
  send: GuestSend,
  syncCall?: GuestSyncCall,
  answers?: GuestAnswerSlot,
): GuestEntry {
  // ---- Built-ins captured now, so later changes by the model's code cannot affect the prelude. ----
  const global = globalThis as unknown as Record<string, unknown>;
  const ObjectCtor = Object;
  const {
    create,
    defineProperty,
    freeze,
    getOwnPropertyNames,
    getOwnPropertyDescriptor,
    getOwnPropertyDescriptors,
    getPrototypeOf,
    keys,
  } = ObjectCtor;
  const setPrototypeOf = ObjectCtor.setPrototypeOf;
  const { stringify, parse } = JSON;
  const { apply, construct, ownKeys } = Reflect;
  const ProxyCtor = Proxy;
  const PromiseCtor = Promise;
  const promiseThen = Promise.prototype.then;
  const promiseResolveStatic = Promise.resolve;
  const promiseRejectStatic = Promise.reject;
  const MapCtor = Map;
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapDelete = Map.prototype.delete;
  const mapEntries = Map.prototype.entries;
  const mapSize = getOwnPropertyDescriptor(Map.prototype, "size")!.get!;
  const mapIteratorNext = getPrototypeOf(new Map().entries()).next as () => IteratorResult<unknown>;
  const SetCtor = Set;
  const setHas = Set.prototype.has;
  const setAdd = Set.prototype.add;
  const setValues = Set.prototype.values;
  const setSize = getOwnPropertyDescriptor(Set.prototype, "size")!.get!;
  const setIteratorNext = getPrototypeOf(new Set().values()).next as () => IteratorResult<unknown>;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const hasInstance = Function.prototype[Symbol.hasInstance];
  const StringCtor = String;
  const stringSlice = String.prototype.slice;
  const stringIndexOf = String.prototype.indexOf;
  const stringCharCodeAt = String.prototype.charCodeAt;
  const stringToLowerCase = String.prototype.toLowerCase;
  const stringTrim = String.prototype.trim;
  const Int32ArrayCtor = Int32Array;
  const reflectHas = Reflect.has;
  const reflectGet = Reflect.get;
  const symbolToString = Symbol.prototype.toString;
  const regExpExec = RegExp.prototype.exec;
  const regExpSource = getOwnPropertyDescriptor(RegExp.prototype, "source")!.get!;
  const regExpToString = RegExp.prototype.toString;
  const ArrayCtor = Array;
  const arrayJoin = Array.prototype.join;
  const arrayValues = Array.prototype.values;
  const isArray = Array.isArray;
  // Watched before each later run of a sandbox (see guard): taken here, before any code could replace them.
  const FunctionPrototype = Function.prototype;
  const BigIntPrototype = BigInt.prototype;
  const JSON_OBJECT = JSON;
  const ATOMICS = Atomics;
  const TypedArrayCtor = getPrototypeOf(Uint16Array) as { prototype: object };
  const dateGetTime = Date.prototype.getTime;
  const dateToISOString = Date.prototype.toISOString;
  const numberIsNaN = Number.isNaN;
  const mathMin = Math.min;
  const objectIs = Object.is;
  // Read once, now: the model's code never sees `syncCall`, and calls it only through this.
  const syncApply = syncCall?.applySync;
  // The answer slot (layout in interface.ts: GuestAnswerSlot): its buffer and its words' view, taken now
  // and never handed out. The answer's text is read through a view made for it (see readAnswer).
  const Uint16ArrayCtor = Uint16Array;
  const answerBuffer = answers?.buffer;
  const answerWords = answerBuffer === undefined ? undefined : new Int32ArrayCtor(answerBuffer, 0, 4);
  /** How many UTF-16 code units of answer the slot holds. */
  const answerCapacity = answerBuffer === undefined ? 0 : (answerBuffer.byteLength - 16) / 2;
  const {
    load: atomicsLoad,
    store: atomicsStore,
    compareExchange: atomicsExchange,
    wait: atomicsWait,
  } = Atomics;
  const fromCharCode = StringCtor.fromCharCode;
  /** The ticket of the last call that waited in the answer slot. */
  let answerTickets = 0;

  /**
   * The same object without a prototype. Descriptors and reports are read by the engine (`get`, `set`,
   * `toJSON`); with no prototype, whatever the code adds to Object.prototype cannot change them.
   */
  const bare = <T extends object>(object: T): T => {
    setPrototypeOf(object, null);
    return object;
  };
  /** `value` without a prototype when it is a (non-array) object, as parsed from JSON. */
  const bareParsed = (value: unknown): void => {
    if (typeof value === "object" && value !== null && !isArray(value)) setPrototypeOf(value, null);
  };

  const join = (items: unknown[], separator: string): string =>
    apply(arrayJoin, items, [separator]) as string;
  /** The descriptor {@link defineOwn} defines with (no prototype: nothing of Object.prototype is read). */
  const element: PropertyDescriptor = bare({
    value: undefined,
    writable: true,
    enumerable: true,
    configurable: true,
  });
  /** Gives `object` an own, writable, enumerable property `key`: defined, so no inherited setter runs. */
  const defineOwn = (object: object, key: string | number, value: unknown): void => {
    element.value = value;
    defineProperty(object, key, element);
    element.value = undefined;
  };
  /**
   * Appends `item` as an own element. Not Array.prototype.push, nor `items[items.length] = item`: both
   * assign, and assigning an index the array lacks runs a setter the code may have put on
   * Array.prototype (or Object.prototype), with the array and the item as its arguments.
   */
  const push = (items: unknown[], item: unknown): void => defineOwn(items, items.length, item);
  const slice = (text: string, start: number, end?: number): string =>
    apply(stringSlice, text, end === undefined ? [start] : [start, end]) as string;
  const toText = (value: unknown): string => {
    try {
      return typeof value === "symbol" ? (apply(symbolToString, value, []) as string) : StringCtor(value);
    } catch {
      return "[value that cannot be shown]";
    }
  };
  /** `value instanceof ctor`, without consulting a `Symbol.hasInstance` the code may have added. */
  const isInstance = (value: unknown, ctor: unknown): boolean => {
    try {
      return apply(hasInstance, ctor, [value]) as boolean;
    } catch {
      return false;
    }
  };
  /** Whether `method` accepts `value` as its receiver: a brand check that runs no code of the model's. */
  const hasBrand = (method: (...args: never[]) => unknown, value: unknown): boolean => {
    try {
      apply(method, value, []);
      return true;
    } catch {
      return false;
    }
  };
  /**
   * An own property's descriptor without a prototype, or undefined: reading `value`, `get` or `set` of a
   * descriptor as the engine returns it looks a field it lacks up on Object.prototype.
   */
  const ownDescriptor = (object: object, key: string | symbol): PropertyDescriptor | undefined => {
    const descriptor = getOwnPropertyDescriptor(object, key);
    if (descriptor !== undefined) setPrototypeOf(descriptor, null);
    return descriptor;
  };
  /** The value of an own data property, else undefined: no getter runs. */
  const dataOf = (object: object, key: string | symbol): unknown => ownDescriptor(object, key)?.value;
  const cut = (text: string, max: number): string =>
    text.length <= max ? text : `${slice(text, 0, max)}… [${text.length - max} more characters]`;

  // The same values as USER_CODE_FILENAME (interface.ts) and the error caps (the contract): this function cannot refer to
  // anything outside itself.
  const USER_FILE = "run_code.js";
  const TAMPERED: RunFailureName = "SandboxTampered";
  const MAX_NAME = 200;
  const MAX_MESSAGE = 20_000;
  const MAX_FRAMES = 50;

  // ---- Globals that must not exist, and the messages for code that reaches for them. ----
  const NO_HOST =
    "is not available in run_code: the code runs in an isolated sandbox with no modules, file system, " +
    "network or process. Call tools.<name>(args) instead.";
  const NO_NETWORK =
    "is not available in run_code: the sandbox has no network. Call tools.<name>(args) to reach outside.";
  const NO_TIMERS =
    "is not available in run_code: timers could outlive the run. To wait, await the tool calls " +
    "(Promise.all runs them together); to defer work, use `await null` or queueMicrotask().";
  const NOT_PROVIDED = "is not available in run_code.";
  const unavailable = new MapCtor<string, string>();
  const block = (names: string[], message: string) => {
    for (const name of names) apply(mapSet, unavailable, [name, message]);
  };
  block(
    ["require", "module", "exports", "process", "Buffer", "__dirname", "__filename", "Deno", "Bun"],
    NO_HOST,
  );
  block(["fetch", "XMLHttpRequest", "WebSocket", "EventSource"], NO_NETWORK);
  block(
    ["setTimeout", "setInterval", "setImmediate", "clearTimeout", "clearInterval", "clearImmediate"],
    NO_TIMERS,
  );
  block(["FinalizationRegistry", "WebAssembly", "SharedArrayBuffer"], NOT_PROVIDED);
  block(["structuredClone"], `${NOT_PROVIDED} Copy plain data with JSON.parse(JSON.stringify(value)).`);
  block(["global", "window", "self"], `${NOT_PROVIDED} Use globalThis.`);
  // Removed: FinalizationRegistry callbacks could run after a run ended; WebAssembly memory is reserved
  // outside the heap limit; SharedArrayBuffer gives precise timers and blocking waits. The engine's own
  // console is replaced below.
  for (const name of ["FinalizationRegistry", "WebAssembly", "SharedArrayBuffer", "console"]) {
    delete global[name];
  }

  // ---- Memory the heap limit does not count ----

  // A resizable ArrayBuffer reserves up to its maxByteLength outside the heap and commits it as it
  // grows, unseen by the memory limit: the option is refused. The constructor is wrapped, and the
  // wrapper replaces it everywhere the code could find it (the global, the prototype's constructor).
  const ArrayBufferCtor = ArrayBuffer;
  const SafeArrayBuffer: ArrayBufferConstructor = new ProxyCtor(ArrayBufferCtor, {
    construct(target, args, newTarget): object {
      const options = args[1] as { maxByteLength?: unknown } | null | undefined;
      if (typeof options === "object" && options !== null && options.maxByteLength !== undefined) {
        throw new RangeErrorCtor(
          "Resizable ArrayBuffers (the maxByteLength option) are not available in run_code: their memory is not counted by the sandbox's memory limit. Use a fixed-size ArrayBuffer.",
        );
      }
      // Only the length goes on: the options object is never read again (no second look at a getter).
      return construct(target, [args[0]], newTarget === SafeArrayBuffer ? target : newTarget);
    },
  });
  defineProperty(global, "ArrayBuffer", bare({ value: SafeArrayBuffer, writable: true, configurable: true }));
  defineProperty(
    ArrayBufferCtor.prototype,
    "constructor",
    bare({ value: SafeArrayBuffer, writable: true, configurable: true }),
  );

  // ICU copies the text given to a segmenter outside the heap and keeps it as long as the segments
  // live: the characters one sandbox may segment are bounded (by the run's config). V8's own break
  // iterator does the same and is not standard: it is removed.
  const intl = global.Intl as Record<string, unknown> | undefined;
  if (intl !== undefined) delete intl.v8BreakIterator;
  const Segmenter = intl?.Segmenter as { prototype: Record<string, unknown> } | undefined;
  let icuChars = 0;
  let icuBudget = 0;
  if (Segmenter !== undefined) {
    const segment = Segmenter.prototype.segment as (text: string) => unknown;
    const holder = {
      segment(this: unknown, input: unknown) {
        const text = StringCtor(input);
        if (icuChars + text.length > icuBudget) {
          throw new RangeErrorCtor(
            `Intl.Segmenter was given ${icuChars + text.length} characters in this sandbox, more than the ${icuBudget} it allows (the segmenter keeps its text outside the memory limit). Segment smaller pieces of text.`,
          );
        }
        icuChars += text.length;
        return apply(segment, this, [text]);
      },
    };
    defineProperty(
      Segmenter.prototype,
      "segment",
      bare({ value: holder.segment, writable: true, configurable: true }),
    );
  }

  // ---- Time and randomness: recorded for runs that may pause, replayed for runs that resume ----

  // A run resumed after a pause runs its code again from the start, and must see what it saw before:
  // every value the sandbox's sources of nondeterminism (the clock, Math.random) handed out is recorded
  // when the run asks for it, and the values of a replayed run come back in the same order, then live
  // ones again. The wrappers are installed for every run; without a tape they only pass values through.
  const DateCtor = Date;
  const MathObject = Math;
  const dateNowOriginal = Date.now;
  const mathRandomOriginal = Math.random;
  const dateToStringOriginal = Date.prototype.toString;
  /** The values a run replays and the ones it records, per source; `at` is how far the replay got. */
  interface Tape {
    replay: { now: number[]; random: number[] };
    at: { now: number; random: number };
    recording: boolean;
    /** Recorded values not yet sent to the host. */
    unsent: { now: number[]; random: number[] };
    recorded: number;
    overflow: boolean;
    /** The time zone and locale the code sees, until they are sent (see {@link zoneSeen}). */
    zone: { timeZone: string; locale: string } | undefined;
  }
  /** The most values one run records; past it the run is marked as one that cannot be paused. */
  const MAX_RECORDED = 100_000;
  // The names discovery calls cross the call channel under (SEARCH_CALL, DESCRIBE_CALL in the contract).
  const SEARCH_CALL = "$search";
  const DESCRIBE_CALL = "$describe";
  let tape: Tape | undefined;
  const nextValue = (source: "now" | "random"): number => {
    const current = tape;
    if (current !== undefined) {
      const replay = current.replay[source];
      const at = current.at[source];
      if (at < replay.length) {
        current.at[source] = at + 1;
        return replay[at]!;
      }
    }
    const live = (
      source === "now" ? apply(dateNowOriginal, DateCtor, []) : apply(mathRandomOriginal, MathObject, [])
    ) as number;
    if (current?.recording === true) {
      if (current.recorded >= MAX_RECORDED) current.overflow = true;
      else {
        current.recorded++;
        push(current.unsent[source], live);
      }
    }
    return live;
  };
  const nowValue = () => nextValue("now");
  const SafeDate: DateConstructor = new ProxyCtor(DateCtor, {
    construct(target, args, newTarget): object {
      // `new Date()` reads the clock: through the tape. With arguments it reads nothing.
      return construct(
        target,
        args.length === 0 ? [nowValue()] : args,
        newTarget === SafeDate ? target : newTarget,
      );
    },
    apply(): string {
      // `Date()` called as a function is the current time as text.
      return apply(dateToStringOriginal, construct(DateCtor, [nowValue()]), []) as string;
    },
  });
  defineProperty(
    DateCtor,
    "now",
    // Method syntax: the function's name is "now" whichever compiler built this file.
    bare({
      value: freeze({
        now() {
          return nowValue();
        },
      }).now,
      writable: true,
      configurable: true,
    }),
  );
  defineProperty(global, "Date", bare({ value: SafeDate, writable: true, configurable: true }));
  defineProperty(
    DateCtor.prototype,
    "constructor",
    bare({ value: SafeDate, writable: true, configurable: true }),
  );
  defineProperty(
    MathObject,
    "random",
    bare({
      value: freeze({
        random() {
          return nextValue("random");
        },
      }).random,
      writable: true,
      configurable: true,
    }),
  );
  // Formatting "now" reads the clock inside the engine: the current time is passed in instead.
  const dateTimeFormat = (global.Intl as { DateTimeFormat?: { prototype: object } } | undefined)
    ?.DateTimeFormat;
  if (dateTimeFormat !== undefined) {
    const proto = dateTimeFormat.prototype;
    const formatGetter = getOwnPropertyDescriptor(proto, "format")?.get;
    const formatToParts = getOwnPropertyDescriptor(proto, "formatToParts")?.value as
      | ((date?: unknown) => unknown)
      | undefined;
    if (formatGetter !== undefined) {
      defineProperty(
        proto,
        "format",
        bare({
          get(this: object) {
            const format = apply(formatGetter, this, []) as (date?: unknown) => string;
            return (date?: unknown) => format(date === undefined ? nowValue() : date);
          },
          configurable: true,
        }),
      );
    }
    if (formatToParts !== undefined) {
      defineProperty(
        proto,
        "formatToParts",
        bare({
          value: freeze({
            formatToParts(this: object, date?: unknown) {
              return apply(formatToParts, this, [date === undefined ? nowValue() : date]);
            },
          }).formatToParts,
          writable: true,
          configurable: true,
        }),
      );
    }
  }
  // The time zone and locale the code sees are its process's, and no run can change them: a run that
  // records or replays reports them, and a resume whose sandbox sees others is refused by the host.
  const resolvedOptions =
    dateTimeFormat === undefined
      ? undefined
      : (getOwnPropertyDescriptor(dateTimeFormat.prototype, "resolvedOptions")?.value as
          | (() => unknown)
          | undefined);
  const zoneSeen = (): Tape["zone"] => {
    if (dateTimeFormat === undefined || resolvedOptions === undefined) return undefined;
    try {
      const formatter = construct(dateTimeFormat as unknown as new () => object, []);
      // Own data properties of a fresh object: nothing on Object.prototype can stand in for them.
      const { timeZone, locale } = apply(resolvedOptions, formatter, []) as Record<string, unknown>;
      if (typeof timeZone !== "string" || typeof locale !== "string") return undefined;
      return bare({ timeZone, locale });
    } catch {
      return undefined;
    }
  };

  /** The tape of a run that records or replays; undefined for one that does neither. */
  const tapeFor = (config: GuestRunConfig): Tape | undefined => {
    const replay = config.replay;
    if (config.record !== true && replay === undefined) return undefined;
    const numbers = (list: unknown): number[] => {
      const out: number[] = [];
      if (!isArray(list)) return out;
      for (let i = 0; i < list.length; i++) if (typeof list[i] === "number") push(out, list[i]);
      return out;
    };
    return {
      replay: { now: numbers(replay?.now), random: numbers(replay?.random) },
      at: { now: 0, random: 0 },
      recording: config.record === true,
      unsent: { now: bare([]), random: bare([]) },
      recorded: 0,
      overflow: false,
      zone: zoneSeen(),
    };
  };

  /**
   * Sends the values recorded since the last message (and, the first time, the zone), before the
   * message that follows them. A run that only replays records nothing: it sends its zone alone.
   */
  const flushTape = (runId: number) => {
    const current = tape;
    if (current === undefined) return;
    const { unsent, zone } = current;
    if (unsent.now.length === 0 && unsent.random.length === 0 && !current.overflow && zone === undefined) {
      return;
    }
    // Lists without a prototype: JSON.stringify looks up no `toJSON` the code may have set.
    current.unsent = { now: bare([]), random: bare([]) };
    current.zone = undefined;
    const values: { now?: number[]; random?: number[]; overflow?: boolean; zone?: Tape["zone"] } = bare({});
    if (unsent.now.length > 0) values.now = unsent.now;
    if (unsent.random.length > 0) values.random = unsent.random;
    if (current.overflow) values.overflow = true;
    if (zone !== undefined) values.zone = zone;
    send("values", runId, 0, "", stringify(values));
  };

  // ---- Errors ----

  /** A failed `tools.*` call: the real tool name, a kind (`denied`, `invalid_arguments`, ...) and a message. */
  class ToolCallError extends ErrorCtor {
    // `declare`: no class-field code is emitted, so no compiler helper can end up in the guest source.
    declare tool: string;
    declare kind: string;
    constructor(tool: string, kind: string, message: string) {
      super(message);
      // Defined, not assigned: assigning would run a setter the code put on Error.prototype.
      defineOwn(this, "name", "ToolCallError");
      defineOwn(this, "tool", tool);
      defineOwn(this, "kind", kind);
    }
  }

  /** The frames of a stack that are in the model's code (at most MAX_FRAMES); the rest are dropped. */
  const userFrames = (stack: string): string[] => {
    const frames: string[] = [];
    const text = cut(stack, MAX_MESSAGE);
    // Split by hand: split() would look its separator's Symbol.split up on String.prototype.
    for (let from = 0; from <= text.length && frames.length < MAX_FRAMES; ) {
      let end = apply(stringIndexOf, text, ["\n", from]) as number;
      if (end === -1) end = text.length;
      const line = slice(text, from, end);
      from = end + 1;
      if (apply(regExpExec, /^[ \t]+at /, [line]) === null) continue;
      if (apply(stringIndexOf, line, [`${USER_FILE}:`]) !== -1) push(frames, slice(line, 0, 500));
    }
    return frames;
  };

  /** At most this many tools are listed in an error; the rest are counted. */
  const MAX_LISTED_TOOLS = 20;
  const toolList = (): string => {
    const names = run === undefined ? [] : keys(run.config.toolNames);
    if (names.length === 0) return " No tools are available in this run.";
    const shown: string[] = [];
    for (let i = 0; i < names.length && i < MAX_LISTED_TOOLS; i++) push(shown, `tools.${names[i]}`);
    const more = names.length > MAX_LISTED_TOOLS ? ` and ${names.length - MAX_LISTED_TOOLS} more` : "";
    return ` The tools are: ${join(shown, ", ")}${more}.`;
  };

  // ---- Tool names: the dispatcher's repair rule, rebuilt from captured built-ins ----

  const charAt = (text: string, i: number): number => apply(stringCharCodeAt, text, [i]) as number;
  const isUpper = (c: number) => c >= 65 && c <= 90;
  const isLower = (c: number) => c >= 97 && c <= 122;
  const isDigit = (c: number) => c >= 48 && c <= 57;
  /** JavaScript's `\s`: white space and line terminators. */
  const isSpace = (c: number) =>
    (c >= 9 && c <= 13) ||
    c === 32 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff;
  /** Names longer than this are never repaired (a repaired name crosses to the host). */
  const MAX_REPAIRED_NAME = 256;

  /**
   * The dispatcher's `normalizeToolName` (src/dispatch/names.ts), which the prelude cannot import: trim,
   * split camelCase (`getOrder`, `HTTPServer`), lower-case, fold `-`, `_`, `.` and white space into
   * one `_`, and drop a trailing `tool` word. A test checks that both agree over a table of names.
   */
  const normalizeName = (name: string): string => {
    const text = apply(stringTrim, name, []) as string;
    let marked = "";
    for (let i = 0; i < text.length; i++) {
      const c = charAt(text, i);
      if (i > 0 && isUpper(c)) {
        const before = charAt(text, i - 1);
        const after = i + 1 < text.length ? charAt(text, i + 1) : -1;
        if (isLower(before) || isDigit(before) || (isUpper(before) && isLower(after))) marked += "_";
      }
      marked += slice(text, i, i + 1);
    }
    const lower = apply(stringToLowerCase, marked, []) as string;
    const words: string[] = [];
    let word = "";
    for (let i = 0; i <= lower.length; i++) {
      const c = i < lower.length ? charAt(lower, i) : -1;
      if (c === -1 || c === 45 || c === 95 || c === 46 || isSpace(c)) {
        if (word !== "") push(words, word);
        word = "";
      } else {
        word += slice(lower, i, i + 1);
      }
    }
    const kept = words.length > 1 && words[words.length - 1] === "tool" ? words.length - 1 : words.length;
    let out = "";
    for (let i = 0; i < kept; i++) out += i === 0 ? words[i] : `_${words[i]}`;
    return out;
  };

  /** The one real tool name `requested` resolves to under the dispatcher's rule, if exactly one. */
  const resolveName = (current: Run, requested: string): string | undefined => {
    if (requested.length > MAX_REPAIRED_NAME) return undefined;
    const wanted = normalizeName(requested);
    if (wanted === "") return undefined;
    const toolNames = current.config.toolNames;
    const codeNames = keys(toolNames);
    let found: string | undefined;
    for (let i = 0; i < codeNames.length; i++) {
      const real = toText(toolNames[codeNames[i]]);
      if (real === requested) return real;
      if (normalizeName(real) !== wanted) continue;
      if (found !== undefined && found !== real) return undefined;
      found = real;
    }
    return found;
  };

  // ---- "Did you mean ...?" ----

  /** Candidates longer than this are not compared (the table below grows with the square). */
  const MAX_SUGGESTED_NAME = 64;
  /** At most this many names are suggested. */
  const MAX_SUGGESTIONS = 3;

  /**
   * Edits between two names, case ignored, a swap of neighbours counting as one (`frist` is one edit
   * from `first`); `limit + 1` as soon as it is clearly more than `limit`.
   */
  const editDistance = (a: string, b: string, limit: number): number => {
    const n = a.length;
    const m = b.length;
    if (n - m > limit || m - n > limit) return limit + 1;
    const x = apply(stringToLowerCase, a, []) as string;
    const y = apply(stringToLowerCase, b, []) as string;
    const width = m + 1;
    const table = new Int32ArrayCtor((n + 1) * width);
    for (let i = 0; i <= n; i++) table[i * width] = i;
    for (let j = 0; j <= m; j++) table[j] = j;
    for (let i = 1; i <= n; i++) {
      for (let j = 1; j <= m; j++) {
        const same = charAt(x, i - 1) === charAt(y, j - 1);
        let best = mathMin(
          table[(i - 1) * width + j]! + 1,
          table[i * width + j - 1]! + 1,
          table[(i - 1) * width + j - 1]! + (same ? 0 : 1),
        );
        if (
          i > 1 &&
          j > 1 &&
          charAt(x, i - 1) === charAt(y, j - 2) &&
          charAt(x, i - 2) === charAt(y, j - 1)
        ) {
          best = mathMin(best, table[(i - 2) * width + j - 2]! + 1);
        }
        table[i * width + j] = best;
      }
    }
    return table[n * width + m]!;
  };

  /**
   * The names closest to `wanted` among `groups` (earlier groups win ties), at most a third of its
   * length in edits away, formatted with `prefix`: `\`first\``, or `\`first\` or \`fist\``.
   */
  const suggest = (wanted: string, groups: { names: string[]; prefix: string }[]): string => {
    if (wanted.length > MAX_SUGGESTED_NAME) return "";
    const limit = mathMin(3, wanted.length < 3 ? 1 : (wanted.length - (wanted.length % 3)) / 3);
    const picked: string[] = [];
    const scores: number[] = [];
    const seen = new SetCtor<string>();
    for (let g = 0; g < groups.length; g++) {
      const { names, prefix } = groups[g];
      for (let i = 0; i < names.length; i++) {
        const name = names[i];
        if (typeof name !== "string" || name === wanted || name.length > MAX_SUGGESTED_NAME) continue;
        const label = `${prefix}${name}`;
        if (apply(setHas, seen, [label])) continue;
        const score = editDistance(wanted, name, limit);
        if (score > limit) continue;
        apply(setAdd, seen, [label]);
        // Insertion into the short sorted list: closer first, then the earlier group.
        let at = picked.length;
        while (at > 0 && scores[at - 1]! > score) at--;
        if (at >= MAX_SUGGESTIONS) continue;
        push(picked, "");
        push(scores, 0);
        for (let k = picked.length - 1; k > at; k--) {
          picked[k] = picked[k - 1]!;
          scores[k] = scores[k - 1]!;
        }
        picked[at] = label;
        scores[at] = score;
        if (picked.length > MAX_SUGGESTIONS) {
          picked.length = MAX_SUGGESTIONS;
          scores.length = MAX_SUGGESTIONS;
        }
      }
    }
    if (picked.length === 0) return "";
    let text = `\`${picked[0]}\``;
    for (let i = 1; i < picked.length; i++) {
      text += `${i === picked.length - 1 ? " or " : ", "}\`${picked[i]}\``;
    }
    return text;
  };

  /** What to say about a name the code used that does not exist. */
  const explainMissingName = (name: string): string => {
    const current = run;
    const toolNames = current === undefined ? {} : current.config.toolNames;
    const codeNames = keys(toolNames);
    const tool = current === undefined ? undefined : resolveName(current, name);
    if (tool !== undefined) {
      let codeName = name;
      for (let i = 0; i < codeNames.length; i++)
        if (toolNames[codeNames[i]] === tool) codeName = codeNames[i];
      return `${name} is not defined: it is a tool, and tools are called on the tools object: tools.${codeName}(args).`;
    }
    const declared = current === undefined ? undefined : dataOf(current.config, "names");
    const own: string[] = isArray(declared) ? (declared as string[]) : [];
    const globals = getOwnPropertyNames(globalThis);
    const close = suggest(name, [
      { names: own, prefix: "" },
      { names: codeNames, prefix: "tools." },
      { names: globals, prefix: "" },
    ]);
    if (close !== "") return `${name} is not defined. Did you mean ${close}?`;
    return `${name} is not defined: the code does not declare it, and no global or tool has that name. Declare it (const, let, function) before using it; tools are called as tools.<name>(args).`;
  };

  /** What to say about `tools.<name>` when no tool has that name. */
  const explainMissingTool = (name: string): string => {
    const codeNames = run === undefined ? [] : keys(run.config.toolNames);
    const close = suggest(name, [{ names: codeNames, prefix: "tools." }]);
    return close !== ""
      ? `tools.${name} is not a function: there is no tool named ${name}. Did you mean ${close}?`
      : `tools.${name} is not a function: there is no tool named ${name}.${toolList()}`;
  };

  /** Reads a property of something the code threw, without letting a throwing getter escape. */
  const readField = (source: object, key: string): unknown => {
    try {
      return (source as Record<string, unknown>)[key];
    } catch {
      return undefined;
    }
  };

  /** Turns anything thrown by the model's code into the plain data the host receives, within caps. */
  const describeError = (thrown: unknown): NonNullable<GuestDoneReport["error"]> => {
    try {
      const isObject = (typeof thrown === "object" && thrown !== null) || typeof thrown === "function";
      const source = thrown as Record<string, unknown>;
      // Read in order, with no catch per field: a value whose getters throw is unreadable as a whole.
      const rawName = isObject ? source.name : undefined;
      let name = typeof rawName === "string" && rawName !== "" ? cut(rawName, MAX_NAME) : "Error";
      const rawMessage = isObject ? source.message : undefined;
      let message = cut(isObject ? toText(rawMessage ?? "") : toText(thrown), MAX_MESSAGE);
      if (!isObject) name = "Error";
      else if (typeof rawMessage !== "string" && !isInstance(thrown, ErrorCtor)) {
        // An object or function that is no Error and says nothing itself: show what it is.
        message = cut(
          `the code threw a value that is not an Error: ${formatValue(thrown, 0, [], MAX_MESSAGE)}. Throw new Error("...") to give a message.`,
          MAX_MESSAGE,
        );
      }
      const rawStack = isObject ? source.stack : undefined;
      const frames = typeof rawStack === "string" ? userFrames(rawStack) : [];
      const missing = apply(regExpExec, /^(\S+) is not defined$/, [message]) as string[] | null;
      const missingTool = apply(regExpExec, /^tools\.(\S+) is not a function$/, [message]) as string[] | null;
      if (name === "ReferenceError" && missing !== null) {
        const known = apply(mapGet, unavailable, [missing[1]]) as string | undefined;
        message =
          known !== undefined ? `${missing[1]} ${known}${toolList()}` : explainMissingName(missing[1]);
      } else if (name === "TypeError" && missingTool !== null) {
        message = explainMissingTool(missingTool[1]);
      }
      const header: string[] = [`${name}: ${message}`];
      for (let i = 0; i < frames.length; i++) push(header, frames[i]);
      const error: NonNullable<GuestDoneReport["error"]> = bare({ name, message, stack: join(header, "\n") });
      if (isInstance(thrown, ToolCallError)) {
        error.tool = toText(readField(source, "tool"));
        error.kind = toText(readField(source, "kind"));
      }
      return error;
    } catch {
      return bare({ name: "Error", message: "The code threw a value that could not be read." });
    }
  };

  // ---- Console formatting, roughly like Node's util.inspect, bounded by a character budget. ----

  const quote = (text: string): string => `'${text}'`;
  const formatValue = (value: unknown, depth: number, seen: unknown[], budget: number): string => {
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
  const formatLine = (args: unknown[], budget: number): string => {
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

  // ---- Per-run state ----

  /**
   * A call the code made: queued until it starts, then waiting for the host's outcome. Once the code
   * waits for it, its promise is resolved with this record (a thenable: its own `then` is {@link decide}),
   * and V8 calls `decide` in the next microtask, when the code that made the call has moved on.
   */
  interface Pending {
    /** What `tools.<name>()` returned: a {@link CallPromise}. */
    promise: Promise<unknown>;
    /** Settles the call's promise; undefined between its lock on this record and {@link decide}. */
    resolve: ((value: unknown) => void) | undefined;
    /** An outcome that arrived while `resolve` was undefined. */
    held: { value: unknown } | undefined;
    tool: string;
    callId: number;
    argsJson: string;
    /** The name the code used when it differs from the declared ones, else "". */
    requested: string;
    /** The code awaits the call (rather than only chaining it). */
    awaited: boolean;
    then: typeof decide;
  }
  /** A queued call of the current run, by the promise its `tools.<name>()` returned. */
  const queuedCall = (promise: unknown): Pending | undefined => {
    const current = run;
    if (current === undefined || current.finished) return undefined;
    return apply(mapGet, current.queued, [promise]) as Pending | undefined;
  };
  /** The code waits for a queued call: its promise follows the call's record, and {@link decide} runs next. */
  const lock = (pending: Pending) => {
    const resolve = pending.resolve;
    if (resolve === undefined) return;
    pending.resolve = undefined;
    resolve(pending);
  };
  /**
   * Settles a call's promise, or holds the outcome until {@link decide} hands over the resolver (a
   * guard: outcomes arrive in later host tasks, after the microtask that runs `decide`).
   */
  const deliver = (pending: Pending, value: unknown) => {
    const resolve = pending.resolve;
    if (resolve === undefined) pending.held = { value };
    else resolve(value);
  };
  /**
   * Called by V8 (as the call record's `then`) one microtask after the code began to wait for a call,
   * with the resolver of the call's promise. The one call the code awaits, with nothing else queued or
   * in flight, is offered to the host synchronously (see {@link startAlone}); otherwise every queued call
   * starts, to run together (calls nobody waited for start with them, or when the run ends).
   */
  function decide(this: Pending, resolve: (value: unknown) => void): void {
    this.resolve = resolve;
    const held = this.held;
    if (held !== undefined) {
      this.held = undefined;
      resolve(held.value);
      return;
    }
    const current = run;
    if (current === undefined || current.finished) return;
    const queued = current.queued;
    if (apply(mapGet, queued, [this.promise]) !== this) return;
    if (
      this.awaited &&
      (syncApply !== undefined || answerWords !== undefined) &&
      apply(mapSize, queued, []) === 1 &&
      apply(mapSize, current.pending, []) === 0 &&
      (current.waitingTools === undefined || !apply(setHas, current.waitingTools, [this.tool]))
    ) {
      startAlone(current, this);
    } else startQueued(current);
  }
  const callPromiseParts = {
    /**
     * `await` and `Promise.resolve` read a promise's constructor, synchronously, where the code waits
     * for it; the real Promise here lets `await` take V8's direct path (no `then` call of its own).
     */
    get constructor(): unknown {
      if (!chaining) {
        const pending = queuedCall(this);
        if (pending !== undefined) {
          pending.awaited = true;
          lock(pending);
        }
      }
      return PromiseCtor;
    },
    /** Chaining a call is waiting for it too, but not alone: it starts the asynchronous way. */
    // biome-ignore lint/suspicious/noThenProperty: the call promise's own `then`, the point of the design.
    then(this: unknown, onFulfilled?: unknown, onRejected?: unknown): unknown {
      const pending = queuedCall(this);
      if (pending !== undefined) lock(pending);
      // `then` reads the constructor too (for the promise it returns): that read is not the code's.
      chaining = true;
      try {
        return apply(promiseThen, this, [onFulfilled, onRejected]);
      } finally {
        chaining = false;
      }
    },
  };
  /** Set while a call promise's own `then` runs. */
  let chaining = false;
  /**
   * What a call's promise is made with (`construct(PromiseCtor, [executor], CallPromise)`): a native
   * promise whose frozen prototype tells the prelude when the code waits for the call (its constructor
   * getter and its `then`, above; see {@link decide}). Its constructor reads as the real Promise, so
   * `then`, `catch` and `finally` give plain promises. It is never called: it only names the prototype.
   */
  function CallPromise() {
    throw new TypeErrorCtor("Illegal constructor");
  }
  CallPromise.prototype = freeze(
    create(PromiseCtor.prototype, {
      constructor: bare({ get: getOwnPropertyDescriptor(callPromiseParts, "constructor")!.get }),
      // biome-ignore lint/suspicious/noThenProperty: see callPromiseParts.
      then: bare({ value: callPromiseParts.then }),
    }),
  );
  freeze(CallPromise);
  /**
   * The prototype of a failed call's outcome ({@link failLater}): the real `then`, and a constructor
   * whose species is the real Promise, all frozen. A call's promise adopts that outcome through its
   * `then`, so the adoption consults nothing the code may have patched (Promise.prototype.then, its
   * constructor, Promise's species) and hands no promise of the prelude's to the code.
   */
  function OutcomePromise() {
    throw new TypeErrorCtor("Illegal constructor");
  }
  const outcomePrototype = freeze(
    create(PromiseCtor.prototype, {
      constructor: bare({ value: OutcomePromise }),
      // biome-ignore lint/suspicious/noThenProperty: the real `then`, out of the code's reach.
      then: bare({ value: promiseThen }),
    }),
  );
  OutcomePromise.prototype = outcomePrototype;
  defineProperty(OutcomePromise, Symbol.species, bare({ value: PromiseCtor }));
  freeze(OutcomePromise);
  /**
   * A failed call's outcome: a promise that rejects with the ToolCallError, made two microtasks later.
   * By then the call's promise has adopted this one, so V8's async stack trace of the error runs on
   * through the code awaiting the call and names the line of the model's code that awaited it (the error
   * is made only for a failed call: capturing a stack for every call was a large share of a call's cost).
   */
  const failLater = (tool: string, kind: string, message: string): Promise<never> => {
    const failing = (async () => {
      await undefined;
      await undefined;
      throw new ToolCallError(tool, kind, message);
    })();
    setPrototypeOf(failing, outcomePrototype);
    return failing;
  };
  interface Run {
    id: number;
    config: GuestRunConfig;
    finished: boolean;
    /** Calls made but not started yet, in the order they were made. */
    queued: Map<Promise<unknown>, Pending>;
    /** Calls started that the host has not answered yet, by call id. */
    pending: Map<number, Pending>;
    /** Tools whose calls may wait for a person (undefined for none): never offered synchronously. */
    waitingTools: Set<string> | undefined;
    calls: number;
    /** `tools.$search` / `tools.$describe` calls made: they have their own ids (negative) and cap. */
    discoveries: number;
    logChars: number;
    droppedLogCalls: number;
    snapshot: (() => Record<string, unknown>) | undefined;
    /** For a run resumed by replay: the journal whose calls are answered here. */
    replay: Replaying | undefined;
  }
  /**
   * The journal of the run a resumed run replays. A call of the code that is the journal's call at its
   * place (same tool, same arguments) and has an outcome is answered here, without crossing to the host:
   * its outcome is delivered in the recorded order of ending, and no earlier than the code has made
   * `after` calls, so `Promise.race` and progress logic see what they saw. The host is told how many
   * calls were answered here before the next message that concerns calls, so it numbers every call as
   * the code made it; every other call of the journal's part (one that waited for a person, or one that
   * differs, which ends the run) goes to the host at once, in the order the code made it.
   */
  interface Replaying {
    /** The journal's calls as parallel lists (see `GuestReplayedCalls`); `outcomes[i]` is `""` for a live one. */
    journal: GuestReplayedCalls;
    /** How many calls the journal has. */
    length: number;
    /** Calls of the journal the code has made again. */
    matched: number;
    /** Position in `order` of the next outcome to deliver. */
    next: number;
    /** Calls answered here whose outcome waits for its turn, by index; `held` counts them. */
    waiting: Map<number, Pending>;
    held: number;
    /** Calls answered here that the host has not been told of yet. */
    unsent: number;
  }
  let run: Run | undefined;
  let runsStarted = 0;
  /**
   * The host call whose task the isolate is running: the microtasks a call starts run before its task
   * ends, and the next call's task starts only after that.
   */
  let task = "";
  const builtinGlobals = new SetCtor<string>(getOwnPropertyNames(globalThis));
  for (const name of ["tools", "console", "ToolCallError", "queueMicrotask"])
    apply(setAdd, builtinGlobals, [name]);

  const log = (level: "log" | "info" | "warn" | "error" | "debug", args: unknown[]): void => {
    const current = run;
    if (current === undefined || current.finished) return;
    // Every line costs its length plus one (its line break), so even empty lines use up the cap and a
    // flood of them never reaches the host.
    const room = current.config.maxLogChars - current.logChars - 1;
    if (room < 0) {
      current.droppedLogCalls++;
      return;
    }
    let text = formatLine(args, room + 1);
    if (text.length > room) {
      text = slice(text, 0, room);
      current.droppedLogCalls++;
    }
    current.logChars += text.length + 1;
    flushTape(current.id);
    send("log", current.id, 0, level, text);
  };

  const makeConsole = () => {
    const methods: Record<string, (...args: unknown[]) => void> = {
      log: (...args) => log("log", args),
      info: (...args) => log("info", args),
      warn: (...args) => log("warn", args),
      error: (...args) => log("error", args),
      debug: (...args) => log("debug", args),
      trace: (...args) => log("debug", args),
      dir: (...args) => log("log", args),
      table: (...args) => log("log", args),
    };
    return freeze(methods);
  };
  const sandboxConsole = makeConsole();

  /**
   * The journal in the run's config, checked; undefined when there is none or it is not well formed
   * (the host then answers every call, from the same journal).
   */
  const replayingFor = (config: GuestRunConfig): Replaying | undefined => {
    const journal = config.replayCalls as Partial<GuestReplayedCalls> | undefined;
    if (typeof journal !== "object" || journal === null) return undefined;
    const { tools, args, outcomes, after, order } = journal;
    if (!isArray(tools) || !isArray(args) || !isArray(outcomes) || !isArray(after) || !isArray(order)) {
      return undefined;
    }
    const length = tools.length;
    if (args.length !== length || outcomes.length !== length || after.length !== length) return undefined;
    // Lists parsed from JSON have no holes: every read below is an own element, never the prototype's.
    for (let i = 0; i < length; i++) {
      if (typeof tools[i] !== "string" || typeof args[i] !== "string") return undefined;
      if (typeof outcomes[i] !== "string" || typeof after[i] !== "number") return undefined;
    }
    for (let i = 0; i < order.length; i++) {
      const index = order[i];
      if (typeof index !== "number" || !(index >= 0 && index < length)) return undefined;
      if (outcomes[index] === "") return undefined;
    }
    return {
      journal: journal as GuestReplayedCalls,
      length,
      matched: 0,
      next: 0,
      waiting: new MapCtor(),
      held: 0,
      unsent: 0,
    };
  };

  /** Tells the host how many calls were answered here since it was last told. */
  const flushReplayed = (current: Run) => {
    const replay = current.replay;
    if (replay === undefined || replay.unsent === 0) return;
    const count = replay.unsent;
    replay.unsent = 0;
    send("replayed", current.id, count, "", "");
  };

  /** What the host must hear before a message about calls (a call, the end): recorded values, replayed calls. */
  const beforeCallMessage = (current: Run) => {
    flushTape(current.id);
    flushReplayed(current);
  };

  /**
   * Delivers every outcome of the journal whose turn has come; once the code has made every call of the
   * journal, tells the host (which starts the calls that waited for a person only then).
   */
  const deliverReplayed = (current: Run, replay: Replaying) => {
    const { order, outcomes, after } = replay.journal;
    while (replay.next < order.length) {
      const index = order[replay.next]!;
      const pending = apply(mapGet, replay.waiting, [index]) as Pending | undefined;
      if (pending === undefined || replay.matched < after[index]!) break;
      apply(mapDelete, replay.waiting, [index]);
      replay.held--;
      replay.next++;
      settleReplayed(pending, outcomes[index]!);
    }
    if (replay.matched >= replay.length) flushReplayed(current);
  };

  /** Settles a replayed call with its recorded outcome (`"o"` and the value's JSON, or `"f"` and the failure's). */
  const settleReplayed = (pending: Pending, text: string) =>
    settleCall(pending, apply(stringCharCodeAt, text, [0]) === 111 /* "o" */, slice(text, 1));

  /**
   * The common case of a replay, code that awaits each call in turn: call `index` is the journal's call
   * at its place, its turn has come and nothing else waits, so the promise just made (its resolver is
   * `captured`) is settled with the recorded outcome now, with nothing kept for it. False otherwise.
   */
  const settleInTurn = (
    current: Run,
    replay: Replaying,
    index: number,
    tool: string,
    argsJson: string,
  ): boolean => {
    const { tools, args, outcomes, order, after } = replay.journal;
    if (order[replay.next] !== index || replay.matched + 1 < after[index]! || replay.held !== 0) return false;
    if (tools[index] !== tool || args[index] !== argsJson) return false;
    replay.matched++;
    replay.unsent++;
    replay.next++;
    const text = outcomes[index]!;
    captured(outcomeValue(tool, apply(stringCharCodeAt, text, [0]) === 111 /* "o" */, slice(text, 1)));
    if (replay.matched >= replay.length) flushReplayed(current);
    return true;
  };

  /**
   * Any other call at a place the journal has: one it recorded waits for its turn here; one that waited
   * for a person (it runs live), or one that differs from the journal (the host ends the run), goes to
   * the host now, after the calls before it.
   */
  const meetInJournal = (current: Run, replay: Replaying, pending: Pending) => {
    const { tools, args, outcomes } = replay.journal;
    const { callId, tool, argsJson, requested } = pending;
    const index = callId - 1;
    replay.matched++;
    if (outcomes[index] !== "" && tools[index] === tool && args[index] === argsJson) {
      replay.unsent++;
      replay.held++;
      apply(mapSet, replay.waiting, [index, pending]);
    } else {
      apply(mapSet, current.pending, [callId, pending]);
      beforeCallMessage(current);
      if (requested === "") send("call", current.id, callId, tool, argsJson);
      else send("call", current.id, callId, tool, argsJson, requested);
    }
    deliverReplayed(current, replay);
  };

  /** A call refused in the sandbox, before it reached the host: a rejected promise, made at the call. */
  const refuseCall = (tool: string, kind: string, message: string) =>
    apply(promiseRejectStatic, PromiseCtor, [new ToolCallError(tool, kind, message)]) as Promise<unknown>;

  const callTool = (
    owner: Run,
    codeName: string,
    realName: string,
    args: unknown,
    requested: string,
  ): Promise<unknown> => {
    // A tools object belongs to one run: code that kept it past that run is refused.
    const current = owner;
    if (current.finished || run !== current) {
      return refuseCall(
        realName,
        "refused",
        `tools.${codeName}() was called after the run_code run ended; the call was refused.`,
      );
    }
    if (current.calls >= current.config.maxToolCalls) {
      return refuseCall(
        realName,
        "limit",
        `tools.${codeName}() was refused: this run already made ${current.config.maxToolCalls} tool calls, the most allowed in one run_code run.`,
      );
    }
    let argsJson: string | undefined;
    try {
      argsJson = args === undefined ? "{}" : stringify(args);
    } catch (cause) {
      return refuseCall(
        realName,
        "invalid_arguments",
        `The arguments of tools.${codeName}() could not be turned into JSON: ${describeError(cause).message}`,
      );
    }
    if (typeof argsJson !== "string") {
      return refuseCall(
        realName,
        "invalid_arguments",
        `The arguments of tools.${codeName}() must be plain data (an object).`,
      );
    }
    const maxArgs = current.config.maxArgsChars;
    if (argsJson.length > maxArgs) {
      return refuseCall(
        realName,
        "invalid_arguments",
        `The arguments of tools.${codeName}() are ${argsJson.length} characters of JSON; one call may carry at most ${maxArgs}. Pass less data per call (split it over several calls, or pass ids instead of contents).`,
      );
    }
    const callId = ++current.calls;
    const promise = construct(PromiseCtor, captureArgs, CallPromise) as Promise<unknown>;
    const replay = current.replay;
    const inJournal = replay !== undefined && callId <= replay.length;
    if (inJournal && settleInTurn(current, replay, callId - 1, realName, argsJson)) return promise;
    const pending: Pending = {
      promise,
      resolve: captured,
      tool: realName,
      callId,
      argsJson,
      requested,
      held: undefined,
      awaited: false,
      // biome-ignore lint/suspicious/noThenProperty: the record is the thenable its call's promise follows.
      then: decide,
    };
    if (inJournal) {
      meetInJournal(current, replay, pending);
      return promise;
    }
    apply(mapSet, current.queued, [promise, pending]);
    return promise;
  };

  /** The resolve function of the promise made last with {@link captureArgs}. */
  let captured: (value: unknown) => void = () => {};
  /** The executor of a call's promise, as `construct` takes it: one for every call, no closure each. */
  const captureArgs = freeze([
    (resolve: (value: unknown) => void) => {
      captured = resolve;
    },
  ]);
  /** Starts every queued call of the run, in the order they were made: the host answers each later. */
  const startQueued = (current: Run) => {
    const queued = current.queued;
    if (apply(mapSize, queued, []) === 0) return;
    current.queued = new MapCtor();
    const entries = apply(mapEntries, queued, []) as object;
    for (;;) {
      const step = apply(mapIteratorNext, entries, []) as IteratorResult<[unknown, Pending]>;
      if (step.done) break;
      const pending = step.value[1];
      apply(mapSet, current.pending, [pending.callId, pending]);
      beforeCallMessage(current);
      if (pending.requested === "") send("call", current.id, pending.callId, pending.tool, pending.argsJson);
      else send("call", current.id, pending.callId, pending.tool, pending.argsJson, pending.requested);
    }
  };

  /**
   * Makes the one call the code waits for, with nothing else in flight, as a synchronous call to the host
   * (isolated-vm's applySync): a tool that answers at once settles it within that crossing. An outcome
   * that comes later (`""`) settles it through the entry, like a call made with `send`; the isolate is
   * free meanwhile. With another call queued or in flight the code could go on with that one, so such
   * calls start as usual.
   */
  const startAlone = (current: Run, pending: Pending) => {
    apply(mapDelete, current.queued, [pending.promise]);
    apply(mapSet, current.pending, [pending.callId, pending]);
    beforeCallMessage(current);
    if (answerWords !== undefined) {
      const spins = atomicsLoad(answerWords, 2);
      if (spins > 0 || syncApply === undefined) {
        waitForAnswer(current, pending, answerWords, spins);
        return;
      }
    }
    let answer: unknown;
    try {
      answer = apply(syncApply as (...args: unknown[]) => unknown, syncCall, [
        undefined,
        [current.id, pending.callId, pending.tool, pending.argsJson, pending.requested],
      ]);
    } catch (cause) {
      // Only the error's own message is read: its other fields are looked up on prototypes the code sets.
      const reason = typeof cause === "object" && cause !== null ? dataOf(cause, "message") : cause;
      const message = `The call could not reach the host: ${typeof reason === "string" ? cut(reason, MAX_MESSAGE) : "no reason given"}`;
      answer = `f${stringify(bare({ kind: "error", message }))}`;
    }
    if (answer === "") return;
    apply(mapDelete, current.pending, [pending.callId]);
    const text = typeof answer === "string" ? answer : "f";
    settleCall(pending, apply(stringCharCodeAt, text, [0]) === 111 /* "o" */, slice(text, 1));
  };

  /**
   * Looks at the slot's state until it is no longer `ticket`, at most `spins` times; returns it. Each
   * look is a wait with no timeout (about 0.1 µs, and no syscall): a loop of bare loads would run so many
   * times that V8 would compile it anew in every sandbox. An engine that refuses the wait makes it one look.
   */
  const spin = (words: Int32Array, ticket: number, spins: number): number => {
    try {
      for (let i = 0; i < spins; i++) if (atomicsWait(words, 0, ticket, 0) === "not-equal") break;
    } catch {
      // The guest gives up at once; the answer settles the call through the entry.
    }
    return atomicsLoad(words, 0);
  };
  /**
   * What a view of the slot's text is made with (`construct(Uint16Array, ..., AnswerView)`): its frozen
   * prototype, the prelude's own, holds %TypedArray%.prototype's real `length` getter, taken at install.
   * `fromCharCode` reads the view as an array-like, which reads its `length`: through the code's own
   * getter on %TypedArray%.prototype, that read would hand the code the view. Never called.
   */
  function AnswerView() {
    throw new TypeErrorCtor("Illegal constructor");
  }
  AnswerView.prototype = freeze(
    create(Uint16ArrayCtor.prototype, {
      length: bare({ get: getOwnPropertyDescriptor(TypedArrayCtor.prototype, "length")!.get }),
    }),
  );
  freeze(AnswerView);
  /**
   * `count` code units of the answer's text from code unit `at`, as a string. The view is made directly
   * on the slot's buffer: a method such as `subarray` would make it through the constructor's species,
   * which the code can set, and hand it the buffer.
   */
  const readAnswer = (at: number, count: number): string => {
    const view = construct(Uint16ArrayCtor, [answerBuffer, 16 + at * 2, count], AnswerView);
    return apply(fromCharCode, StringCtor, view as number[]) as string;
  };
  /**
   * {@link startAlone} with an answer slot: sends the call as a `now` message and looks at the slot
   * until the host answers there, says the answer comes later, or `spins` looks have passed; then the
   * guest gives up (the host sees that it no longer waits) and the call settles through the entry.
   */
  const waitForAnswer = (current: Run, pending: Pending, words: Int32Array, spins: number) => {
    answerTickets = answerTickets >= 0x7fffffff ? 1 : answerTickets + 1;
    const ticket = answerTickets;
    atomicsStore(words, 0, ticket);
    send("now", current.id, pending.callId, pending.tool, pending.argsJson, pending.requested, ticket);
    let state = spin(words, ticket, spins);
    if (state === ticket) state = atomicsExchange(words, 0, ticket, 0);
    if (state !== -1 /* ANSWERED */) {
      atomicsStore(words, 0, 0);
      return;
    }
    const length = mathMin(atomicsLoad(words, 1), answerCapacity);
    atomicsStore(words, 0, 0);
    let text = "";
    for (let at = 0; at < length; at += 4096) text += readAnswer(at, mathMin(4096, length - at));
    apply(mapDelete, current.pending, [pending.callId]);
    settleCall(pending, apply(stringCharCodeAt, text, [0]) === 111 /* "o" */, slice(text, 1));
  };

  /** Settles a call with the host's outcome: `ok` with its value's JSON text, or a failure's JSON. */
  const settleCall = (pending: Pending, ok: boolean, json: string) => {
    deliver(pending, outcomeValue(pending.tool, ok, json));
  };

  /**
   * What a call's promise is resolved with for the host's outcome: its value (parsed from its JSON
   * text), or for a failure a promise that rejects with the ToolCallError (see {@link failLater}).
   */
  const outcomeValue = (tool: string, ok: boolean, json: string): unknown => {
    let error: { tool?: unknown; kind?: unknown; message?: unknown };
    try {
      if (ok) return json === "" ? undefined : parse(json);
      error = parse(json) as typeof error;
      // A field the host left out is read as undefined, never through Object.prototype.
      bareParsed(error);
    } catch {
      error = { kind: "bad_result", message: "The tool's result was not valid JSON." };
    }
    return failLater(
      typeof error.tool === "string" ? error.tool : tool,
      toText(error.kind ?? "error"),
      toText(error.message ?? "The tool call failed."),
    );
  };

  /**
   * A `tools.$search` or `tools.$describe` call: it goes to the host over the channel of tool calls, under
   * its own name and a negative id, so it takes no place in the run's numbering of tool calls (nor in a
   * replayed journal) and counts against its own cap, not `maxToolCalls`.
   */
  const discoveryCall = (owner: Run, callName: string, args: Record<string, unknown>): Promise<unknown> => {
    const current = owner;
    const discovery = current.config.discovery!;
    if (current.finished || run !== current) {
      return refuseCall(
        callName,
        "refused",
        `tools.${callName}() was called after the run_code run ended; the call was refused.`,
      );
    }
    if (current.discoveries >= discovery.maxCalls) {
      return refuseCall(
        callName,
        "limit",
        `tools.${callName}() was refused: this run already made ${discovery.maxCalls} $search and $describe calls, the most allowed in one run. Keep the declarations you found in a variable instead of searching again.`,
      );
    }
    const callId = -++current.discoveries;
    const promise = construct(PromiseCtor, captureArgs, CallPromise) as Promise<unknown>;
    const pending: Pending = {
      promise,
      resolve: captured,
      tool: callName,
      callId,
      argsJson: stringify(bare(args)),
      requested: "",
      held: undefined,
      awaited: false,
      // biome-ignore lint/suspicious/noThenProperty: the record is the thenable its call's promise follows.
      then: decide,
    };
    apply(mapSet, current.queued, [promise, pending]);
    return promise;
  };

  /** What a discovery argument is, for an error message: its type, or "an empty string". */
  const argumentKind = (value: unknown): string =>
    value === null
      ? "null"
      : isArray(value)
        ? "an array"
        : typeof value === "string" && apply(stringTrim, value, []) === ""
          ? "a blank string"
          : typeof value;

  /** `tools.$search(query, { limit })`, checked here: a clear error for a bad query or limit. */
  const searchTools = (owner: Run, query: unknown, options: unknown): Promise<unknown> => {
    const discovery = owner.config.discovery!;
    const usage = `tools.$search(query, { limit }) takes the words to look for as a string and an optional limit from 1 to ${discovery.maxLimit}, e.g. await tools.$search("refund an order", { limit: 3 })`;
    if (typeof query !== "string" || apply(stringTrim, query, []) === "") {
      return refuseCall(SEARCH_CALL, "invalid_arguments", `${usage}; the query was ${argumentKind(query)}.`);
    }
    if (query.length > discovery.maxQueryChars) {
      return refuseCall(
        SEARCH_CALL,
        "invalid_arguments",
        `${usage}; the query was ${query.length} characters long, over ${discovery.maxQueryChars}.`,
      );
    }
    let limit: unknown = discovery.defaultLimit;
    if (options !== undefined && options !== null) {
      if (typeof options !== "object" || isArray(options)) {
        return refuseCall(
          SEARCH_CALL,
          "invalid_arguments",
          `${usage}; the second argument was ${argumentKind(options)}, not an object.`,
        );
      }
      const given = (options as { limit?: unknown }).limit;
      if (given !== undefined) limit = given;
    }
    if (typeof limit !== "number" || limit % 1 !== 0 || limit < 1 || limit > discovery.maxLimit) {
      return refuseCall(
        SEARCH_CALL,
        "invalid_arguments",
        `${usage}; the limit was ${typeof limit === "number" ? toText(limit) : argumentKind(limit)}.`,
      );
    }
    return discoveryCall(owner, SEARCH_CALL, { query, limit });
  };

  /** `tools.$describe(name)`, checked here: the name must be a string. */
  const describeTool = (owner: Run, name: unknown): Promise<unknown> => {
    const discovery = owner.config.discovery!;
    if (typeof name !== "string" || name === "" || name.length > discovery.maxQueryChars) {
      return refuseCall(
        DESCRIBE_CALL,
        "invalid_arguments",
        `tools.$describe(name) takes one tool's name as a string, e.g. await tools.$describe("get_order"); got ${typeof name === "string" && name !== "" ? `a name of ${name.length} characters` : argumentKind(name)}.`,
      );
    }
    return discoveryCall(owner, DESCRIBE_CALL, { name });
  };

  /** Keys the engine reads by itself (resolving a promise, JSON.stringify): never a repaired tool name. */
  const ENGINE_KEYS = new SetCtor<string>(["then", "toJSON"]);

  /**
   * A run's `tools`: one method per declared name, and any other name that the dispatcher's rule
   * resolves to exactly one tool (`tools.getOrder` for `get_order`), whose calls say which name the code
   * used. Declared names are plain own properties (no trap on the hot path); a name the object lacks is
   * looked up on its prototype, a proxy that repairs it, and names every object has (`toString`...) stay
   * what they are.
   */
  const makeTools = (owner: Run, toolNames: Record<string, string>) => {
    const repaired = new MapCtor<string, unknown>();
    const base = freeze({});
    const handler = bare({
      get(target: object, key: string | symbol, receiver: unknown): unknown {
        if (typeof key !== "string" || apply(setHas, ENGINE_KEYS, [key]) || reflectHas(target, key)) {
          return reflectGet(target, key, receiver);
        }
        const known = apply(mapGet, repaired, [key]);
        if (known !== undefined) return known;
        const realName = resolveName(owner, key);
        if (realName === undefined) return undefined;
        const holder = {
          [key](args?: unknown) {
            return callTool(owner, key, realName, args, key === realName ? "" : key);
          },
        };
        const method = getOwnPropertyDescriptor(holder, key)!.value;
        apply(mapSet, repaired, [key, method]);
        return method;
      },
    });
    const tools: Record<string, (args?: unknown) => Promise<unknown>> = create(new ProxyCtor(base, handler));
    const codeNames = keys(toolNames);
    for (let i = 0; i < codeNames.length; i++) {
      const codeName = codeNames[i];
      const realName = toText(toolNames[codeName]);
      // A method definition has the tool's own name and cannot be called with `new`.
      const holder = {
        [codeName](args?: unknown) {
          return callTool(owner, codeName, realName, args, "");
        },
      };
      defineProperty(tools, codeName, bare({ value: holder[codeName], enumerable: true }));
    }
    if (owner.config.discovery !== undefined) {
      const finders = {
        $search(query: unknown, options?: unknown) {
          return searchTools(owner, query, options);
        },
        $describe(name: unknown) {
          return describeTool(owner, name);
        },
      };
      defineProperty(tools, SEARCH_CALL, bare({ value: finders.$search }));
      defineProperty(tools, DESCRIBE_CALL, bare({ value: finders.$describe }));
    }
    return freeze(tools);
  };
  let currentTools: unknown = freeze({});

  // These globals are defined once and can never be redefined or deleted: a run cannot leave a fake
  // `tools` (or console) for the next run of its session. `tools` reads the current run's object.
  const lockGlobal = (name: string, descriptor: PropertyDescriptor) => {
    defineProperty(globalThis, name, bare({ ...descriptor, enumerable: false, configurable: false }));
  };
  freeze(ToolCallError.prototype);
  freeze(ToolCallError);
  const toolsHolder = {
    get tools() {
      return currentTools;
    },
  };
  lockGlobal("tools", { get: getOwnPropertyDescriptor(toolsHolder, "tools")!.get });
  lockGlobal("console", { value: sandboxConsole, writable: false });
  lockGlobal("ToolCallError", { value: ToolCallError, writable: false });
  lockGlobal("globalThis", { value: globalThis, writable: false });
  lockGlobal("queueMicrotask", {
    value: (callback: unknown) => {
      if (typeof callback !== "function") throw new TypeErrorCtor("queueMicrotask needs a function");
      // The promise is the prelude's own: given the outcome prototype, `then` consults nothing the code set.
      const ready = apply(promiseResolveStatic, PromiseCtor, [undefined]) as Promise<unknown>;
      setPrototypeOf(ready, outcomePrototype);
      apply(promiseThen, ready, [() => callback()]);
    },
    writable: false,
  });

  // ---- The built-ins the prelude uses, checked before each later run ----

  /** One watched built-in: its prototype and own properties as they were, and whether it may grow. */
  interface Watched {
    label: string;
    target: object;
    proto: object | null;
    keys: (string | symbol)[];
    /** By key: one built-in call, where a loop would run cold in each new sandbox. */
    descriptors: Record<string | symbol, PropertyDescriptor>;
    /** No property may be added: the engine looks up missing keys (`then`, `toJSON`, species) through it. */
    closed: boolean;
  }
  const watched: Watched[] = [];
  const watch = (label: string, target: unknown, closed: boolean) => {
    if ((typeof target !== "object" && typeof target !== "function") || target === null) return;
    const descriptors = getOwnPropertyDescriptors(target) as Record<string | symbol, PropertyDescriptor>;
    push(watched, {
      label,
      target,
      proto: getPrototypeOf(target),
      keys: ownKeys(target),
      descriptors,
      closed,
    });
  };
  const ERRORS = ["EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError"];
  let guarded = false;
  /**
   * Records the watched built-ins, once, before any of the model's code ran in this sandbox: those the
   * engine consults as the prelude works (a missing key, a species, `then`, `toJSON`, an iterator's
   * `next`), and those whose methods the prelude applies to the answer slot and its text (the typed
   * arrays it makes, %TypedArray% with its species, Atomics, String). Built-ins it only took methods from
   * (Reflect, Math, Map...) are not watched: the prelude holds the originals, so a change cannot reach
   * it. Only a sandbox that runs again needs the record, and taking it costs a fresh-state run a good
   * part of its set-up, so it is taken by the first run that is not final (or by the `guard` op before
   * one starts).
   */
  const guard = () => {
    if (guarded) return;
    guarded = true;
    const arrayIterator = getPrototypeOf(apply(arrayValues, [], [])) as object;
    // Object.prototype first: the check reads descriptors, whose missing fields are looked up there.
    watch("Object.prototype", ObjectCtor.prototype, true);
    watch("Function.prototype", FunctionPrototype, true);
    watch("Array.prototype", ArrayCtor.prototype, true);
    watch("Array Iterator prototype", arrayIterator, true);
    watch("Iterator prototype", getPrototypeOf(arrayIterator), true);
    watch("Promise", PromiseCtor, false);
    watch("Promise.prototype", PromiseCtor.prototype, true);
    watch("Error", ErrorCtor, true);
    watch("Error.prototype", ErrorCtor.prototype, true);
    for (let i = 0; i < ERRORS.length; i++) {
      watch(`${ERRORS[i]}.prototype`, (global[ERRORS[i]!] as { prototype: object }).prototype, false);
    }
    watch("Date.prototype", DateCtor.prototype, false);
    watch("BigInt.prototype", BigIntPrototype, true);
    watch("JSON", JSON_OBJECT, false);
    watch("String", StringCtor, false);
    watch("String.prototype", StringCtor.prototype, false);
    watch("Atomics", ATOMICS, false);
    watch("TypedArray", TypedArrayCtor, true);
    watch("TypedArray.prototype", TypedArrayCtor.prototype, true);
    watch("Int32Array", Int32ArrayCtor, true);
    watch("Int32Array.prototype", Int32ArrayCtor.prototype, true);
    watch("Uint16Array", Uint16ArrayCtor, true);
    watch("Uint16Array.prototype", Uint16ArrayCtor.prototype, true);
  };

  /** Whether two descriptors say the same (`Number.NaN` is the same as itself). */
  const sameDescriptor = (a: PropertyDescriptor, b: PropertyDescriptor): boolean =>
    objectIs(a.value, b.value) &&
    a.get === b.get &&
    a.set === b.set &&
    a.writable === b.writable &&
    a.enumerable === b.enumerable &&
    a.configurable === b.configurable;

  /** `label.key`, or `label[Symbol.name]` for a symbol. */
  const keyLabel = (label: string, key: string | symbol): string => {
    if (typeof key === "string") return `${label}.${key}`;
    const text = toText(key);
    return `${label}[${slice(text, 7, text.length - 1)}]`;
  };

  /**
   * What an earlier run changed among the watched built-ins, or undefined when nothing. The keys of a
   * closed built-in are checked before its properties, and Object.prototype comes first: the check
   * compares descriptors, and a field a descriptor lacks (`get` of a data property) is looked up on
   * Object.prototype, where a getter the code added would run inside the check (and could undo itself).
   * Object.prototype has no key named like a descriptor's field, and its own prototype cannot change.
   */
  const tampering = (): string | undefined => {
    for (let w = 0; w < watched.length; w++) {
      const { label, target, proto, keys: known, descriptors, closed } = watched[w]!;
      if (getPrototypeOf(target) !== proto) return `the prototype of ${label} was replaced`;
      if (closed) {
        const current = ownKeys(target);
        // As many keys as before means none was added unless one was deleted, which the loop below
        // finds; but Object.prototype (w = 0) is searched whole before any descriptor is read.
        if (w === 0 || current.length !== known.length) {
          for (let i = 0; i < current.length; i++) {
            let found = false;
            for (let j = 0; j < known.length && !found; j++) found = known[j] === current[i];
            if (!found) return `${keyLabel(label, current[i]!)} was added`;
          }
        }
      }
      for (let i = 0; i < known.length; i++) {
        const key = known[i]!;
        const now = getOwnPropertyDescriptor(target, key);
        if (now === undefined) return `${keyLabel(label, key)} was deleted`;
        if (!sameDescriptor(now, descriptors[key]!)) return `${keyLabel(label, key)} was changed`;
      }
    }
    return undefined;
  };

  // ---- Ending runs ----

  /**
   * Copies the top-level declarations registered by the wrapped code onto the global object, as own
   * data properties (defining, never assigning: no setter an earlier run left can run here).
   */
  const persist = (current: Run) => {
    const snapshot = current.snapshot;
    if (snapshot === undefined) return;
    let values: Record<string, unknown>;
    try {
      values = snapshot();
    } catch {
      return;
    }
    const names = keys(values);
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
      if (apply(setHas, builtinGlobals, [name])) continue;
      try {
        defineProperty(
          globalThis,
          name,
          bare({ value: values[name], writable: true, enumerable: true, configurable: true }),
        );
      } catch {
        // A name the code made non-configurable on globalThis: keep the old value.
      }
    }
  };

  /** The value an earlier run left for a top-level `var`: an own data property of the global, if any. */
  const restore = (name: unknown): unknown => {
    if (typeof name !== "string") return undefined;
    const descriptor = ownDescriptor(globalThis, name);
    return descriptor !== undefined && "value" in descriptor ? descriptor.value : undefined;
  };

  const finish = (current: Run, report: GuestDoneReport) => {
    if (current.finished) return;
    // Finished first: nothing the code left behind (a getter, a pending call) can act for this run now.
    current.finished = true;
    // Calls made but not started yet start now, as the host learns the run ended just after.
    startQueued(current);
    persist(current);
    if (current.droppedLogCalls > 0) {
      const text = `[console output truncated: the limit of ${current.config.maxLogChars} characters was reached; ${current.droppedLogCalls} console call(s) were cut or dropped]`;
      send("log", current.id, 0, "warn", text);
    }
    current.pending = new MapCtor();
    current.queued = new MapCtor();
    beforeCallMessage(current);
    tape = undefined;
    const out: GuestDoneReport = bare({ status: report.status });
    if (task === "start") out.inStart = true;
    if (report.valueJson !== undefined) out.valueJson = report.valueJson;
    if (report.error !== undefined) out.error = bare({ ...report.error });
    send("done", current.id, 0, "", stringify(out));
  };

  const finishValue = (current: Run, value: unknown) => {
    if (value === undefined) return finish(current, { status: "ok" });
    const fail = (message: string) =>
      finish(current, { status: "error", error: { name: "TypeError", message } });
    if (typeof value === "function" || typeof value === "symbol") {
      return fail(
        `The code returned a ${typeof value}, which cannot be turned into JSON. Return plain data.`,
      );
    }
    let json: string | undefined;
    try {
      json = stringify(value, (_key, item) => (typeof item === "bigint" ? toText(item) : item));
    } catch (cause) {
      return fail(
        `The result could not be turned into JSON: ${describeError(cause).message}. Return plain data (objects, arrays, strings, numbers, booleans, null).`,
      );
    }
    if (typeof json !== "string") return finish(current, { status: "ok" });
    const max = current.config.maxResultChars;
    if (json.length > max) {
      return finish(current, {
        status: "limit",
        error: {
          name: "ResultTooLarge" satisfies RunFailureName,
          message: `The result is ${json.length} characters of JSON, over the limit of ${max} (maxResultChars). Return something smaller: pick the fields you need, summarize, or slice long arrays.`,
        },
      });
    }
    return finish(current, { status: "ok", valueJson: json });
  };

  const start = (runId: number, main: unknown, configJson: string) => {
    // The config's objects lose their prototype: an optional field it lacks is read as undefined, never
    // through Object.prototype.
    const config = parse(configJson) as GuestRunConfig;
    bareParsed(config);
    bareParsed(config.toolNames);
    bareParsed(config.replay);
    bareParsed(config.replayCalls);
    bareParsed(config.discovery);
    if (run !== undefined) run.finished = true;
    tape = undefined;
    const current: Run = {
      id: runId,
      config,
      finished: false,
      queued: new MapCtor(),
      pending: new MapCtor(),
      waitingTools: undefined,
      calls: 0,
      discoveries: 0,
      logChars: 0,
      droppedLogCalls: 0,
      snapshot: undefined,
      replay: undefined,
    };
    run = current;
    // A first run meets the built-ins as the prelude found them; a later one checks them first, before
    // the prelude does anything else that an earlier run's code could see or steer.
    if (runsStarted++ === 0) {
      if (config.final !== true) guard();
    } else if (!guarded) {
      return finish(current, {
        status: "error",
        error: {
          name: "Error",
          message: "This sandbox already ran its final run, so it runs no other; open a new sandbox.",
        },
      });
    } else {
      const changed = tampering();
      if (changed !== undefined) {
        return finish(current, {
          status: "error",
          error: {
            name: TAMPERED,
            message: `An earlier run in this sandbox changed a built-in that run_code relies on (${changed}), so this run did not start in it.`,
          },
        });
      }
    }
    current.replay = replayingFor(config);
    tape = tapeFor(config);
    const waitingTools = isArray(config.waitingTools) ? config.waitingTools : [];
    // Most runs have none: then no call looks its tool up.
    if (waitingTools.length > 0) current.waitingTools = new SetCtor<string>();
    for (let i = 0; i < waitingTools.length; i++)
      apply(setAdd, current.waitingTools, [toText(waitingTools[i])]);
    currentTools = makeTools(current, config.toolNames);
    icuBudget = config.maxIcuChars;
    const register = (snapshot: unknown) => {
      if (typeof snapshot === "function" && run === current) {
        current.snapshot = snapshot as () => Record<string, unknown>;
      }
    };
    let result: unknown;
    try {
      if (typeof main !== "function") throw new TypeErrorCtor("The code did not compile to a function.");
      result = apply(main, undefined, [register, restore]);
      // `main` is an async function: its result is a native promise the code never saw. Given the
      // outcome prototype, its `then` consults no constructor or species the code may have replaced.
      setPrototypeOf(result, outcomePrototype);
      apply(promiseThen, result, [
        (value: unknown) => finishValue(current, value),
        (thrown: unknown) => finish(current, { status: "error", error: describeError(thrown) }),
      ]);
    } catch (thrown) {
      return finish(current, { status: "error", error: describeError(thrown) });
    }
  };

  /** The host's outcome of a started call: `ok` with its value's JSON text, or a failure's JSON. */
  const settle = (runId: number, callId: number, ok: boolean, json: string) => {
    const current = run;
    if (current === undefined || current.id !== runId || current.finished) return;
    const pending = apply(mapGet, current.pending, [callId]) as Pending | undefined;
    if (pending === undefined) return;
    apply(mapDelete, current.pending, [callId]);
    settleCall(pending, ok, json);
  };

  return (op, runId, a, b) => {
    task = op;
    if (op === "start") start(runId, a, b);
    else if (op === "guard") {
      if (runsStarted === 0) guard();
    } else if (op === "settle" || op === "fail") settle(runId, a as number, op === "settle", b);
  };
}
