/** Runs: starting one, the host's outcomes of its calls, and ending it (its value, its error, its globals). */

import type { RunFailureName } from "../../contract/index.js";
import type { GuestDoneReport, GuestEntry, GuestRunConfig } from "../interface.js";
import { outcomePrototype } from "./call-promises.js";
import { startQueued } from "./calls.js";
import { tapeFor, useTape } from "./clock.js";
import { run, setRun } from "./current-run.js";
import { describeError } from "./errors.js";
import { setCurrentTools } from "./globals.js";
import { guard, guarded, tampering } from "./guard.js";
import {
  apply,
  defineProperty,
  getOwnPropertyNames,
  isArray,
  keys,
  MapCtor,
  mapDelete,
  mapGet,
  parse,
  promiseThen,
  SetCtor,
  setAdd,
  setHas,
  setPrototypeOf,
  stringify,
  TypeErrorCtor,
} from "./intrinsics.js";
import { send } from "./links.js";
import { setIcuBudget } from "./memory.js";
import { bare, bareParsed, ownDescriptor, toText } from "./objects.js";
import { settleCall } from "./outcomes.js";
import { beforeCallMessage, replayingFor } from "./replay.js";
import { makeTools } from "./tools.js";
import type { Pending, Run } from "./types.js";

/** How many runs this sandbox started. */
let runsStarted = 0;
/**
 * The host call whose task the isolate is running: the microtasks a call starts run before its task
 * ends, and the next call's task starts only after that.
 */
let task = "";
/** The globals the sandbox has before any code ran (and the prelude's): a run's declarations never replace them. */
let builtinGlobals = new SetCtor<string>();

/** Notes the sandbox's globals as they are before any code runs (at install, once the prelude removed its own). */
export const noteBuiltinGlobals = () => {
  builtinGlobals = new SetCtor<string>(getOwnPropertyNames(globalThis));
  for (const name of ["tools", "console", "ToolCallError", "queueMicrotask"])
    apply(setAdd, builtinGlobals, [name]);
};

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
  useTape(undefined);
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
    return fail(`The code returned a ${typeof value}, which cannot be turned into JSON. Return plain data.`);
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
  useTape(undefined);
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
  setRun(current);
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
          name: "SandboxTampered" satisfies RunFailureName,
          message: `An earlier run in this sandbox changed a built-in that run_code relies on (${changed}), so this run did not start in it.`,
        },
      });
    }
  }
  current.replay = replayingFor(config);
  useTape(tapeFor(config));
  const waitingTools = isArray(config.waitingTools) ? config.waitingTools : [];
  // Most runs have none: then no call looks its tool up.
  if (waitingTools.length > 0) current.waitingTools = new SetCtor<string>();
  for (let i = 0; i < waitingTools.length; i++)
    apply(setAdd, current.waitingTools, [toText(waitingTools[i])]);
  setCurrentTools(makeTools(current, config.toolNames));
  setIcuBudget(config.maxIcuChars);
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

/** The guest's entry point (see {@link GuestEntry}): the host starts runs and settles calls through it. */
export const entry: GuestEntry = (op, runId, a, b) => {
  task = op;
  if (op === "start") start(runId, a, b);
  else if (op === "guard") {
    if (runsStarted === 0) guard();
  } else if (op === "settle" || op === "fail") settle(runId, a as number, op === "settle", b);
};
