import { afterEach, describe, expect, it } from "vitest";
import type { Sandbox } from "../../sandbox/contract/index.js";
import { LIMITS, makeBridge, openSandbox, resultOf, toolNames } from "./helpers.js";

/**
 * Code that walks everything reachable from the sandbox's global object (and from extra roots): own
 * properties (values, getters and setters, without calling getters), symbols, prototypes. It reports any
 * value that looks like isolated-vm (a Reference, ExternalCopy, Callback, Isolate, Context, Script,
 * Module, Dereference or Copy; a function named like `ivm.*`) or like a host object (a function whose
 * constructor is not one of this realm's function constructors, an object whose prototype chain does
 * not end at this realm's Object.prototype).
 */
const WALK = `
function walk(extraRoots) {
  const IVM = /^(Reference|ExternalCopy|Callback|Isolate|Context|Script|Module|Dereference|Copy|NativeModule)$/;
  const realmFunctions = new Set([
    Function,
    Object.getPrototypeOf(async function () {}).constructor,
    Object.getPrototypeOf(function* () {}).constructor,
    Object.getPrototypeOf(async function* () {}).constructor,
  ]);
  const problems = [];
  const seen = new Set();
  const queue = [[globalThis, "globalThis"], ...extraRoots];
  const push = (value, path) => {
    if ((typeof value === "object" && value !== null) || typeof value === "function") {
      if (!seen.has(value)) { seen.add(value); queue.push([value, path]); }
    }
  };
  while (queue.length > 0) {
    const [value, path] = queue.shift();
    let proto = value;
    for (let i = 0; proto !== null && i < 50; i++) proto = Object.getPrototypeOf(proto);
    const protoEnds = proto === null;
    if (!protoEnds) problems.push(path + ": prototype chain too long");
    let top = value;
    while (Object.getPrototypeOf(top) !== null) top = Object.getPrototypeOf(top);
    if (top !== Object.prototype && !(Object.getPrototypeOf(value) === null || value === Object.prototype)) {
      problems.push(path + ": prototype chain ends outside this realm");
    }
    if (typeof value === "function") {
      const ctor = Object.getPrototypeOf(value)?.constructor;
      if (!realmFunctions.has(ctor) && value !== Function.prototype) problems.push(path + ": function of another realm");
      const name = Object.getOwnPropertyDescriptor(value, "name")?.value;
      if (typeof name === "string" && /ivm|isolated/i.test(name)) problems.push(path + ": isolated-vm function " + name);
    }
    const ctorDesc = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(value) ?? {}, "constructor");
    const ctorName = typeof ctorDesc?.value === "function" ? ctorDesc.value.name : "";
    if (IVM.test(ctorName)) problems.push(path + ": instance of " + ctorName);
    if (typeof value === "function" && IVM.test(value.name ?? "") && value !== globalThis[value.name]) {
      problems.push(path + ": constructor named " + value.name);
    }
    push(Object.getPrototypeOf(value), path + ".__proto__");
    for (const key of Reflect.ownKeys(value)) {
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      const label = path + "." + String(key);
      if (!descriptor) continue;
      if ("value" in descriptor) push(descriptor.value, label);
      push(descriptor.get, label + "[get]");
      push(descriptor.set, label + "[set]");
    }
  }
  return { problems, objects: seen.size, globals: Object.getOwnPropertyNames(globalThis).sort() };
}
`;

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.dispose();
  sandbox = undefined;
});

async function run(code: string) {
  if (!sandbox) sandbox = await openSandbox();
  const outcome = await sandbox.execute(
    { code: `${WALK}\n${code}`, toolNames: toolNames(), limits: LIMITS },
    makeBridge(),
    new AbortController().signal,
  );
  expect(outcome.status, JSON.stringify(outcome.error)).toBe("ok");
  return resultOf(outcome) as { problems: string[]; objects: number; globals: string[] };
}

describe("isolate environment: nothing of isolated-vm or the host is reachable", () => {
  it("finds no isolated-vm object or host function from the global object", async () => {
    const result = await run("return walk([]);");
    expect(result.problems).toEqual([]);
    expect(result.objects).toBeGreaterThan(500);
  });

  it("exposes only the standard built-ins plus tools, console, ToolCallError and queueMicrotask", async () => {
    const result = await run("return walk([]);");
    const expected = [
      "AggregateError",
      "Array",
      "ArrayBuffer",
      "Atomics",
      "BigInt",
      "BigInt64Array",
      "BigUint64Array",
      "Boolean",
      "DataView",
      "Date",
      "Error",
      "EvalError",
      "Float32Array",
      "Float64Array",
      "Function",
      "Infinity",
      "Int16Array",
      "Int32Array",
      "Int8Array",
      "Intl",
      "JSON",
      "Map",
      "Math",
      "NaN",
      "Number",
      "Object",
      "Promise",
      "Proxy",
      "RangeError",
      "ReferenceError",
      "Reflect",
      "RegExp",
      "Set",
      "String",
      "Symbol",
      "SyntaxError",
      "ToolCallError",
      "TypeError",
      "URIError",
      "Uint16Array",
      "Uint32Array",
      "Uint8Array",
      "Uint8ClampedArray",
      "WeakMap",
      "WeakRef",
      "WeakSet",
      "console",
      "decodeURI",
      "decodeURIComponent",
      "encodeURI",
      "encodeURIComponent",
      "escape",
      "eval",
      "globalThis",
      "isFinite",
      "isNaN",
      "parseFloat",
      "parseInt",
      "queueMicrotask",
      "tools",
      "undefined",
      "unescape",
    ];
    // Newer V8 versions may add standard built-ins; nothing else may appear.
    const extra = result.globals.filter((name) => !expected.includes(name));
    for (const name of extra)
      expect(name).toMatch(/^(Iterator|Float16Array|DisposableStack|AsyncDisposableStack|SuppressedError)$/);
    for (const name of expected) expect(result.globals).toContain(name);
  });

  it("finds nothing while tool calls are in flight, nor in their results and errors", async () => {
    const result = await run(`
      const pending = tools.sleep({ ms: 20 });
      const during = walk([[pending, "pending"]]);
      const value = await pending;
      let failure;
      try { await tools.fail({ message: "x" }); } catch (e) { failure = e; }
      const after = walk([[value, "value"], [failure, "failure"]]);
      return { problems: [...during.problems, ...after.problems], objects: after.objects, globals: after.globals };`);
    expect(result.problems).toEqual([]);
  });

  it("finds nothing in a later execution of the same sandbox", async () => {
    await run("globalThis.keep = { nested: [1, 2] }; return walk([]);");
    const result = await run("return walk([]);");
    expect(result.problems).toEqual([]);
  });

  it("catches a planted isolated-vm-like value (the walk itself works)", async () => {
    const result = await run(`
      class Reference {}
      globalThis.planted = new Reference();
      const fake = function () {};
      Object.defineProperty(fake, "name", { value: "ivm.Callback.ignored" });
      globalThis.plantedFn = fake;
      const r = walk([]);
      delete globalThis.planted; delete globalThis.plantedFn;
      return r;`);
    expect(result.problems).toEqual(
      expect.arrayContaining([
        "globalThis.planted: instance of Reference",
        "globalThis.plantedFn: isolated-vm function ivm.Callback.ignored",
      ]),
    );
  });
});
