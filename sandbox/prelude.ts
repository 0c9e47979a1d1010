/**
 * The guest prelude: code that runs INSIDE a sandbox, before the model's code, to give it `tools`,
 * `console` and clear errors. Every environment shares it: the isolate environment evaluates it in a V8
 * isolate; out-of-process runners (Docker, a child process) can evaluate the same source in their guest.
 *
 * {@link installPrelude} is never called on the host. Its source text is taken with
 * {@link preludeSource} and evaluated in the guest, so it must be self-contained: it may not refer to
 * anything outside its own body (no imports, no module-level values), and it may only use language
 * built-ins. The host and the guest talk through two functions that carry strings and numbers only:
 *
 * - the guest calls `send(type, runId, id, a, b)` (a {@link GuestSend}) to report a tool call, a console
 *   line or the end of a run;
 * - the host calls the returned {@link GuestEntry} to start a run and to settle tool calls.
 *
 * The prelude keeps `send` in a closure and never hands it (or anything else of the host's) to the
 * model's code, so nothing the host passed in is reachable from `globalThis` or any prototype chain.
 */

/** One message from the guest to the host. All arguments are strings or numbers. */
export type GuestSend = (type: GuestMessageType, runId: number, id: number, a: string, b: string) => void;

/**
 * What the guest reports:
 * - `call`: `tools.<name>(args)` was called; `id` is the call id, `a` the real tool name, `b` the
 *   arguments as JSON text.
 * - `log`: a console line; `a` is the level, `b` the text.
 * - `done`: the run ended; `b` is a {@link GuestDoneReport} as JSON text.
 */
export type GuestMessageType = "call" | "log" | "done";

/**
 * The guest's entry point, called by the host.
 * - `("start", runId, main, configJson)`: runs `main` (the model's code wrapped as an async function)
 *   with the per-run {@link GuestRunConfig}.
 * - `("settle", runId, callId, outcomeJson)`: delivers the outcome of a tool call (a JSON-encoded
 *   `BridgeCallOutcome`). Outcomes for another run, or for a call already settled, are ignored.
 */
export type GuestEntry = (op: "start" | "settle", runId: number, a: unknown, b: string) => void;

/** The per-run settings the host sends with `start`. */
export interface GuestRunConfig {
  /** Names usable in code (`tools.<name>`), mapped to the real tool names. */
  toolNames: Record<string, string>;
  /** Characters of console output forwarded in this run. */
  maxLogChars: number;
  /** Characters of the JSON-encoded result. */
  maxResultChars: number;
  /** Tool calls the code may start in this run; later ones are refused inside the guest. */
  maxToolCalls: number;
}

/** How a run ended, as the guest reports it (JSON text in the `done` message). */
export interface GuestDoneReport {
  status: "ok" | "error" | "limit";
  /** The result as JSON text; absent when the code returned `undefined`. */
  valueJson?: string;
  /** Set for `error` and `limit`. */
  error?: { name: string; message: string; stack?: string; tool?: string; kind?: string };
}

/**
 * The file name the model's code is compiled under. Stack frames in this file are the model's own; every
 * other frame (the prelude, the engine) is removed from the stacks reported to the host.
 */
export const USER_CODE_FILENAME = "run_code.js";

/**
 * The name of the parameter through which wrapped code registers a snapshot of its top-level
 * declarations, so that a session can keep them (see `installPrelude`).
 */
export const PERSIST_PARAMETER = "__cordon_persist__";

/**
 * The JavaScript source of a function expression equivalent to {@link installPrelude}, to be evaluated
 * in the guest in strict mode, e.g. `"use strict"; return (SOURCE)(send);`.
 */
export function preludeSource(): string {
  // Some TypeScript loaders (esbuild with keepNames) insert `__name(fn, "name")` calls into function
  // bodies; the shim keeps the source self-contained whichever tool compiled this file.
  return `(function () { var __name = function (target) { return target; }; return (${installPrelude.toString()}); })()`;
}

/**
 * Installs `tools`, `console`, `ToolCallError` and `queueMicrotask` on the guest's global object,
 * removes the globals that could outlive a run or reach outside the sandbox, and returns the
 * {@link GuestEntry} the host drives runs with.
 *
 * Runs INSIDE the guest (see the file comment); on the host it is only turned into source text.
 */
export function installPrelude(send: GuestSend): GuestEntry {
  // ---- Built-ins captured now, so later changes by the model's code cannot affect the prelude. ----
  const global = globalThis as unknown as Record<string, unknown>;
  const ObjectCtor = Object;
  const { defineProperty, freeze, getOwnPropertyNames, getOwnPropertyDescriptor, getPrototypeOf, keys } =
    ObjectCtor;
  const { stringify, parse } = JSON;
  const { apply } = Reflect;
  const PromiseCtor = Promise;
  const promiseThen = Promise.prototype.then;
  const promiseResolveStatic = Promise.resolve;
  const promiseRejectStatic = Promise.reject;
  const promiseResolve = (value: unknown) =>
    apply(promiseResolveStatic, PromiseCtor, [value]) as Promise<unknown>;
  const MapCtor = Map;
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapDelete = Map.prototype.delete;
  const SetCtor = Set;
  const setHas = Set.prototype.has;
  const setAdd = Set.prototype.add;
  const ErrorCtor = Error;
  const StringCtor = String;
  const stringSlice = String.prototype.slice;
  const stringSplit = String.prototype.split;
  const stringIndexOf = String.prototype.indexOf;
  const regExpExec = RegExp.prototype.exec;
  const arrayJoin = Array.prototype.join;
  const arrayPush = Array.prototype.push;
  const arraySort = Array.prototype.sort;
  const isArray = Array.isArray;
  const dateToISOString = Date.prototype.toISOString;
  const numberIsNaN = Number.isNaN;
  const mathMin = Math.min;
  const objectIs = Object.is;
  const DateCtor = Date;
  const RegExpCtor = RegExp;

  const setPrototypeOf = Object.setPrototypeOf;
  /**
   * The same object without a prototype. Descriptors and reports are read by the engine (`get`, `set`,
   * `toJSON`); with no prototype, whatever the code adds to Object.prototype cannot change them.
   */
  const bare = <T extends object>(object: T): T => {
    setPrototypeOf(object, null);
    return object;
  };
  const join = (items: unknown[], separator: string): string =>
    apply(arrayJoin, items, [separator]) as string;
  const push = (items: unknown[], item: unknown): void => {
    apply(arrayPush, items, [item]);
  };
  const slice = (text: string, start: number, end?: number): string =>
    apply(stringSlice, text, end === undefined ? [start] : [start, end]) as string;
  const toText = (value: unknown): string => {
    try {
      return typeof value === "symbol" ? value.toString() : StringCtor(value);
    } catch {
      return "[value that cannot be shown]";
    }
  };

  // The same value as USER_CODE_FILENAME: this function cannot refer to anything outside itself.
  const USER_FILE = "run_code.js";

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

  // ---- Errors ----

  /** A failed `tools.*` call: the real tool name, a kind (`denied`, `invalid_arguments`, ...) and a message. */
  class ToolCallError extends ErrorCtor {
    // `declare`: no class-field code is emitted, so no compiler helper can end up in the guest source.
    declare tool: string;
    declare kind: string;
    constructor(tool: string, kind: string, message: string) {
      super(message);
      this.name = "ToolCallError";
      this.tool = tool;
      this.kind = kind;
    }
  }

  /** Keeps the header of a stack and the frames in the model's code; drops the prelude and engine frames. */
  const userFrames = (stack: string): string[] => {
    const frames: string[] = [];
    for (const line of apply(stringSplit, stack, ["\n"]) as string[]) {
      if (apply(regExpExec, /^\s+at /, [line]) === null) continue;
      if (apply(stringIndexOf, line, [`${USER_FILE}:`]) !== -1) push(frames, line);
    }
    return frames;
  };

  const toolList = (): string => {
    const names = run === undefined ? [] : keys(run.config.toolNames);
    if (names.length === 0) return " No tools are available in this run.";
    const shown: string[] = [];
    for (const name of names) push(shown, `tools.${name}`);
    return ` The tools are: ${join(shown, ", ")}.`;
  };

  const globalNames = (): string => {
    const names = getOwnPropertyNames(globalThis);
    apply(arraySort, names, []);
    return join(names, ", ");
  };

  /** Turns anything thrown by the model's code into the plain data the host receives. */
  const describeError = (thrown: unknown): NonNullable<GuestDoneReport["error"]> => {
    try {
      const isObject = (typeof thrown === "object" && thrown !== null) || typeof thrown === "function";
      const source = thrown as Record<string, unknown>;
      let name = isObject && typeof source.name === "string" && source.name !== "" ? source.name : "Error";
      let message = isObject ? toText(source.message ?? "") : toText(thrown);
      if (!isObject) name = "Error";
      const rawStack = isObject ? source.stack : undefined;
      const frames = typeof rawStack === "string" ? userFrames(rawStack) : [];
      const missing = apply(regExpExec, /^(\S+) is not defined$/, [message]) as string[] | null;
      const missingTool = apply(regExpExec, /^tools\.(\S+) is not a function$/, [message]) as string[] | null;
      if (name === "ReferenceError" && missing !== null) {
        const known = apply(mapGet, unavailable, [missing[1]]) as string | undefined;
        message =
          known !== undefined
            ? `${missing[1]} ${known}${toolList()}`
            : `${message}. The globals that exist here are: ${globalNames()}.`;
      } else if (name === "TypeError" && missingTool !== null) {
        message = `${message}: there is no tool named ${missingTool[1]}.${toolList()}`;
      }
      const error: NonNullable<GuestDoneReport["error"]> = { name, message };
      error.stack = join([`${name}: ${message}`, ...frames], "\n");
      if (thrown instanceof ToolCallError) {
        error.tool = toText(thrown.tool);
        error.kind = toText(thrown.kind);
      }
      return error;
    } catch {
      return { name: "Error", message: "The code threw a value that could not be read." };
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
        const name = (getOwnPropertyDescriptor(value, "name")?.value as unknown) ?? "";
        return name === "" ? "[Function (anonymous)]" : `[Function: ${toText(name)}]`;
      }
    }
    const object = value as Record<string, unknown>;
    for (const item of seen) if (item === object) return "[Circular]";
    if (object instanceof ErrorCtor) {
      const stack = object.stack;
      return typeof stack === "string" ? stack : `${toText(object.name)}: ${toText(object.message)}`;
    }
    if (object instanceof DateCtor) {
      const time = object.getTime();
      return numberIsNaN(time) ? "Invalid Date" : (apply(dateToISOString, object, []) as string);
    }
    if (object instanceof RegExpCtor) return toText(object);
    const isList = isArray(object);
    if (depth > 2) return isList ? "[Array]" : "[Object]";
    const inner = [...seen, object];
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
    } else if (object instanceof MapCtor) {
      prefix = `Map(${object.size}) `;
      for (const [key, item] of object) if (!add(`${show(key)} => ${show(item)}`)) break;
    } else if (object instanceof SetCtor) {
      prefix = `Set(${object.size}) `;
      for (const item of object) if (!add(show(item))) break;
    } else {
      const proto = getPrototypeOf(object);
      if (proto === null) prefix = "[Object: null prototype] ";
      else {
        const ctorName = (getOwnPropertyDescriptor(proto, "constructor")?.value as { name?: unknown })?.name;
        if (typeof ctorName === "string" && ctorName !== "Object" && ctorName !== "") prefix = `${ctorName} `;
      }
      for (const key of keys(object)) {
        const descriptor = getOwnPropertyDescriptor(object, key);
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
    for (const arg of args) {
      const part = formatValue(arg, 0, [], budget - used);
      push(parts, part);
      used += part.length + 1;
      if (used > budget) break;
    }
    return join(parts, " ");
  };

  // ---- Per-run state ----

  interface Pending {
    resolve(value: unknown): void;
    reject(reason: unknown): void;
    error: ToolCallError;
  }
  interface Run {
    id: number;
    config: GuestRunConfig;
    finished: boolean;
    pending: Map<number, Pending>;
    calls: number;
    logChars: number;
    droppedLogCalls: number;
    snapshot: (() => Record<string, unknown>) | undefined;
  }
  let run: Run | undefined;
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

  const callTool = (owner: Run, codeName: string, realName: string, args: unknown): Promise<unknown> => {
    // Created now so that its stack points at the line of the call in the model's code.
    const error = new ToolCallError(realName, "", "");
    const fail = (kind: string, message: string) => {
      error.kind = kind;
      error.message = message;
      return apply(promiseRejectStatic, PromiseCtor, [error]) as Promise<unknown>;
    };
    // A tools object belongs to one run: code that kept it past that run is refused.
    const current = owner;
    if (current.finished || run !== current) {
      return fail(
        "refused",
        `tools.${codeName}() was called after the run_code run ended; the call was refused.`,
      );
    }
    if (current.calls >= current.config.maxToolCalls) {
      return fail(
        "limit",
        `tools.${codeName}() was refused: this run already made ${current.config.maxToolCalls} tool calls, the most allowed in one run_code run.`,
      );
    }
    let argsJson: string | undefined;
    try {
      argsJson = args === undefined ? "{}" : stringify(args);
    } catch (cause) {
      return fail(
        "invalid_arguments",
        `The arguments of tools.${codeName}() could not be turned into JSON: ${describeError(cause).message}`,
      );
    }
    if (typeof argsJson !== "string") {
      return fail(
        "invalid_arguments",
        `The arguments of tools.${codeName}() must be plain data (an object).`,
      );
    }
    const callId = ++current.calls;
    const json = argsJson;
    return new PromiseCtor((resolve, reject) => {
      apply(mapSet, current.pending, [callId, { resolve, reject, error }]);
      send("call", current.id, callId, realName, json);
    });
  };

  const makeTools = (owner: Run, toolNames: Record<string, string>) => {
    const tools: Record<string, (args?: unknown) => Promise<unknown>> = {};
    for (const codeName of keys(toolNames)) {
      const realName = toText(toolNames[codeName]);
      // A method definition has the tool's own name and cannot be called with `new`.
      const holder = {
        [codeName](args?: unknown) {
          return callTool(owner, codeName, realName, args);
        },
      };
      defineProperty(tools, codeName, bare({ value: holder[codeName], enumerable: true }));
    }
    return freeze(tools);
  };

  const defineGlobal = (name: string, value: unknown) => {
    defineProperty(globalThis, name, bare({ value, writable: false, enumerable: false, configurable: true }));
  };
  freeze(ToolCallError.prototype);
  freeze(ToolCallError);
  defineGlobal("console", sandboxConsole);
  defineGlobal("ToolCallError", ToolCallError);
  defineGlobal("queueMicrotask", (callback: unknown) => {
    if (typeof callback !== "function") throw new TypeError("queueMicrotask needs a function");
    apply(promiseThen, promiseResolve(undefined), [() => callback()]);
  });

  /** Copies the top-level declarations registered by the wrapped code onto the global object. */
  const persist = (current: Run) => {
    const snapshot = current.snapshot;
    if (snapshot === undefined) return;
    let values: Record<string, unknown>;
    try {
      values = snapshot();
    } catch {
      return;
    }
    for (const name of keys(values)) {
      if (apply(setHas, builtinGlobals, [name])) continue;
      try {
        global[name] = values[name];
      } catch {
        // A name the code made read-only on globalThis: keep the old value.
      }
    }
  };

  const finish = (current: Run, report: GuestDoneReport) => {
    if (current.finished) return;
    persist(current);
    current.finished = true;
    if (current.droppedLogCalls > 0) {
      const text = `[console output truncated: the limit of ${current.config.maxLogChars} characters was reached; ${current.droppedLogCalls} console call(s) were cut or dropped]`;
      send("log", current.id, 0, "warn", text);
    }
    current.pending = new MapCtor();
    if (report.error) report.error = bare({ ...report.error });
    send("done", current.id, 0, "", stringify(bare({ ...report })));
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
          name: "ResultTooLarge",
          message: `The result is ${json.length} characters of JSON, over the limit of ${max} (maxResultChars). Return something smaller: pick the fields you need, summarize, or slice long arrays.`,
        },
      });
    }
    return finish(current, { status: "ok", valueJson: json });
  };

  const start = (runId: number, main: unknown, configJson: string) => {
    const config = parse(configJson) as GuestRunConfig;
    if (run !== undefined) run.finished = true;
    const current: Run = {
      id: runId,
      config,
      finished: false,
      pending: new MapCtor(),
      calls: 0,
      logChars: 0,
      droppedLogCalls: 0,
      snapshot: undefined,
    };
    run = current;
    defineGlobal("tools", makeTools(current, config.toolNames));
    defineGlobal("console", sandboxConsole);
    const register = (snapshot: unknown) => {
      if (typeof snapshot === "function" && run === current) {
        current.snapshot = snapshot as () => Record<string, unknown>;
      }
    };
    let result: Promise<unknown>;
    try {
      if (typeof main !== "function") throw new TypeError("The code did not compile to a function.");
      result = promiseResolve(apply(main, undefined, [register]));
    } catch (thrown) {
      return finish(current, { status: "error", error: describeError(thrown) });
    }
    apply(promiseThen, result, [
      (value: unknown) => finishValue(current, value),
      (thrown: unknown) => finish(current, { status: "error", error: describeError(thrown) }),
    ]);
  };

  const settle = (runId: number, callId: number, outcomeJson: string) => {
    const current = run;
    if (current === undefined || current.id !== runId || current.finished) return;
    const pending = apply(mapGet, current.pending, [callId]) as Pending | undefined;
    if (pending === undefined) return;
    apply(mapDelete, current.pending, [callId]);
    let outcome: {
      ok: boolean;
      valueJson?: string;
      error?: { tool?: string; kind?: string; message?: string };
    };
    try {
      outcome = parse(outcomeJson);
      if (outcome.ok) {
        pending.resolve(outcome.valueJson === undefined ? undefined : parse(outcome.valueJson));
        return;
      }
    } catch {
      outcome = {
        ok: false,
        error: { kind: "bad_result", message: "The tool's result was not valid JSON." },
      };
    }
    const error = outcome.error ?? {};
    if (typeof error.tool === "string") pending.error.tool = error.tool;
    pending.error.kind = toText(error.kind ?? "error");
    pending.error.message = toText(error.message ?? "The tool call failed.");
    pending.reject(pending.error);
  };

  return (op, runId, a, b) => {
    if (op === "start") start(runId, a, b);
    else if (op === "settle") settle(runId, a as number, b);
  };
}
