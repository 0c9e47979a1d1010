import { describe, expect, it } from "vitest";
import type { BridgeCallOutcome, Sandbox, SandboxBridge } from "../../sandbox/contract/index.js";
import {
  defaultTools,
  ENGINE_ENVIRONMENTS,
  LIMITS,
  makeBridge,
  openSandbox,
  resultOf,
  runOnce,
  toolNames,
  useEnvironment,
} from "../isolate/helpers.js";
import { guardHost } from "./host-guard.js";

guardHost();

for (const { name, engine, create } of ENGINE_ENVIRONMENTS) {
  describe(`[${name}]`, () => {
    useEnvironment(create);

    describe("security: escape attempts stay inside the sandbox", () => {
      it("this.constructor.constructor('return process')() finds no process", async () => {
        const code = `
          const F = this.constructor.constructor;
          const out = { sameFunction: F === Function, process: F("return typeof process")() };
          try { F("return globalThis")().__cordonHostSentinel = "pwned"; } catch (e) { out.err = String(e); }
          out.hostSentinel = typeof F("return globalThis.__cordonHostSentinel")();
          return out;`;
        const { outcome } = await runOnce(code);
        const value = resultOf(outcome) as Record<string, unknown>;
        expect(value.sameFunction).toBe(true);
        expect(value.hostSentinel).toBe("string"); // the sandbox's own copy, written above
        expect(value.process).toBe("undefined");
      });

      it("errors of failed tool calls are sandbox objects all the way up their constructor chains", async () => {
        const code = `
          try { await tools.fail({ message: "x" }); } catch (e) {
            const chain = [];
            for (let o = e; o; o = Object.getPrototypeOf(o)) chain.push(o.constructor === undefined ? "?" : o.constructor.name);
            return {
              chain,
              fnIsLocal: e.constructor.constructor === Function,
              protoFnIsLocal: Object.getPrototypeOf(Object.getPrototypeOf(e)).constructor.constructor === Function,
              process: e.constructor.constructor("return typeof process")(),
              require: e.constructor.constructor("return typeof require")(),
            };
          }`;
        const { outcome } = await runOnce(code);
        expect(resultOf(outcome)).toEqual({
          chain: ["ToolCallError", "ToolCallError", "Error", "Object"],
          fnIsLocal: true,
          protoFnIsLocal: true,
          process: "undefined",
          require: "undefined",
        });
      });

      it("an exception thrown by the host bridge reaches the code only as a sandbox error", async () => {
        const sandbox = await openSandbox();
        const bridge: SandboxBridge = {
          async callTool(): Promise<BridgeCallOutcome> {
            throw new TypeError("host failure with a host stack");
          },
          log() {},
        };
        const code = `
          try { await tools.x({}); } catch (e) {
            return { local: e instanceof Error && e.constructor.constructor === Function,
                     process: e.constructor.constructor("return typeof process")(), stack: e.stack };
          }`;
        const outcome = await sandbox.execute(
          { code, toolNames: { x: "x" }, limits: LIMITS },
          bridge,
          new AbortController().signal,
        );
        await sandbox.dispose();
        const value = resultOf(outcome) as { local: boolean; process: string; stack: string };
        expect(value.local).toBe(true);
        expect(value.process).toBe("undefined");
        expect(value.stack).not.toMatch(/node:|node_modules|execution\.ts|\/work\//);
      });

      it("Proxy traps and thenables passed as tool arguments run in the sandbox; the host gets JSON text", async () => {
        const code = `
          const seen = [];
          const proxy = new Proxy({}, {
            ownKeys() { seen.push("ownKeys"); return ["a"]; },
            getOwnPropertyDescriptor() { seen.push("gopd"); return { value: 1, enumerable: true, configurable: true }; },
            get(target, key) { seen.push("get:" + String(key)); return key === "a" ? 1 : undefined; },
          });
          const echoed = await tools.echo(proxy);
          const thenable = await tools.echo({ then(resolve) { seen.push("then called"); resolve("x"); }, v: 2 });
          return { seen, echoed, thenable };`;
        const { outcome, bridge } = await runOnce(code);
        const value = resultOf(outcome) as { seen: string[]; echoed: unknown; thenable: unknown };
        expect(value.seen).toContain("ownKeys");
        expect(value.seen).not.toContain("then called");
        expect(value.echoed).toEqual({ a: 1 });
        expect(value.thenable).toEqual({ v: 2 });
        expect(bridge.calls.map((c) => c.argsJson)).toEqual(['{"a":1}', '{"v":2}']);
        for (const call of bridge.calls) expect(typeof call.argsJson).toBe("string");
      });

      it("a Proxy returned as the result is serialized inside the sandbox; the host gets a string", async () => {
        const code = `
          return new Proxy({ real: 1 }, {
            get(target, key) { return key === "toJSON" ? undefined : key === "real" ? "from-trap" : target[key]; },
          });`;
        const { outcome } = await runOnce(code);
        expect(typeof outcome.valueJson).toBe("string");
        expect(resultOf(outcome)).toEqual({ real: "from-trap" });
      });

      it("a Proxy result whose traps throw ends as an error, not a host crash", async () => {
        const { outcome } = await runOnce(
          "return new Proxy({}, { ownKeys() { throw new Error('trap'); } });",
        );
        expect(outcome.status).toBe("error");
        expect(outcome.error?.message).toMatch(/could not be turned into JSON: trap/);
      });

      it("Error.prepareStackTrace sees no prelude function or receiver through CallSites", async () => {
        const code = `
          const frames = [];
          Error.prepareStackTrace = (error, callSites) => {
            for (const site of callSites) {
              const fn = site.getFunction();
              const self = site.getThis();
              frames.push({ file: String(site.getFileName()), fn: typeof fn, fnName: fn ? String(fn.name) : "",
                            thisType: self === globalThis ? "global" : typeof self });
            }
            return "custom";
          };
          try { await tools.echo({ toJSON() { throw new Error("from toJSON"); } }); } catch (e) { void e.stack; }
          try { await tools.fail({}); } catch (e) { void e.stack; }
          console.log({ toString() { return "x"; } });
          (function recurse() { try { recurse(); } catch (e) { void e.stack; } })();
          Error.prepareStackTrace = undefined;
          return frames.filter((f) => !f.file.includes("run_code.js"));`;
        const { outcome } = await runOnce(code);
        const foreign = resultOf(outcome) as { file: string; fn: string; fnName: string; thisType: string }[];
        if (engine === "quickjs") {
          // QuickJS has no CallSite API: it never calls Error.prepareStackTrace, so no frame of the
          // prelude hands out anything; its stacks are text (see the next test).
          expect(foreign).toEqual([]);
          return;
        }
        expect(foreign.length).toBeGreaterThan(0); // prelude frames were on the stacks...
        for (const frame of foreign) {
          // ...but, being strict code, they give away neither their function nor their receiver.
          expect(frame.fn).toBe("undefined");
          expect(["undefined", "global"]).toContain(frame.thisType);
          expect(frame.fnName).not.toMatch(/ivm/);
        }
      });

      it("errors thrown through the prelude carry their stack as text: no API hands out a frame's function or receiver", async () => {
        const code = `
          const out = { captureStackTrace: typeof Error.captureStackTrace, stacks: [] };
          const probe = (e) => {
            const own = Object.getOwnPropertyDescriptor(e, "stack");
            out.stacks.push(typeof e.stack + ":" + (own && typeof own.get) + ":" + (own && typeof own.value));
          };
          try { await tools.echo({ toJSON() { throw new Error("from toJSON"); } }); } catch (e) { probe(e); }
          try { await tools.fail({}); } catch (e) { probe(e); }
          (function recurse() { try { recurse(); } catch (e) { if (e.stack !== undefined) probe(e); } })();
          return out;`;
        const { outcome } = await runOnce(code);
        const value = resultOf(outcome) as { captureStackTrace: string; stacks: string[] };
        for (const stack of value.stacks) expect(stack).toMatch(/^string:/);
        // V8 keeps a stack as an accessor it formats on first read (through prepareStackTrace, above);
        // QuickJS writes it as a plain string when the error is made, and has no captureStackTrace.
        if (engine === "quickjs") {
          expect(value.captureStackTrace).toBe("undefined");
          for (const stack of value.stacks) expect(stack).toBe("string:undefined:string");
        }
      });

      it("an error whose name is a Symbol produces only sandbox errors when its stack is read", async () => {
        const code = `
          async function f() {
            const e = new Error("x");
            e.name = Symbol("s");
            try { return ["no throw", typeof e.stack]; } catch (t) {
              return [t.constructor.constructor === Function, t.constructor.constructor("return typeof process")()];
            }
          }
          return await f();`;
        const { outcome } = await runOnce(code);
        const value = resultOf(outcome) as unknown[];
        if (value[0] !== "no throw") expect(value).toEqual([true, "undefined"]);
        expect(outcome.status).toBe("ok");
      });

      it("Symbol.species tricks on promises only ever hand out sandbox functions", async () => {
        const code = `
          const got = [];
          class FakePromise {
            constructor(executor) {
              executor(
                (v) => got.push(["resolve", typeof v]),
                (err) => got.push(["reject", err.constructor.constructor === Function, err.constructor.constructor("return typeof process")()]),
              );
            }
          }
          const p = tools.fail({ message: "species" });
          // Defined, not assigned: a call's promise inherits a frozen constructor, which an assignment cannot shadow.
          Object.defineProperty(p, "constructor", { value: { [Symbol.species]: FakePromise } });
          p.then();
          try { await p; } catch {}
          await null; await null;
          Promise.prototype.constructor = { [Symbol.species]: FakePromise };
          const q = tools.add({ a: 1, b: 1 });
          q.then((v) => got.push(["then", v]));
          await new Promise((resolve) => Promise.resolve().then.call(q, resolve));
          return got;`;
        const { outcome } = await runOnce(code);
        expect(outcome.status).toBe("ok");
        const got = resultOf(outcome) as unknown[][];
        expect(got).toContainEqual(["reject", true, "undefined"]);
      });

      it("a patched Promise.prototype.then, constructor and species never see a call's internal outcome", async () => {
        const code = `
          const seen = [];
          const realThen = Promise.prototype.then;
          Promise.prototype.then = function (...args) {
            seen.push(this);
            return realThen.apply(this, args);
          };
          Promise.prototype.constructor = function Fake(executor) { return new Promise(executor); };
          Object.defineProperty(Promise, Symbol.species, { get() { seen.push("species"); return Promise; } });
          const mine = new Set();
          const held = (promise) => { mine.add(promise); return promise; };
          const value = await held(tools.add({ a: 2, b: 3 }));
          let error;
          try { await held(tools.fail({ message: "nope" })); } catch (e) { error = e; }
          const returned = held(tools.add({ a: 1, b: 1 }));
          return {
            value,
            isToolCallError: error instanceof ToolCallError,
            kind: error.kind,
            nativePromise: returned instanceof Promise && Object.isFrozen(Object.getPrototypeOf(returned)),
            await: await returned,
            // Whatever the patch saw is a promise the code itself holds, never one of the prelude's.
            others: seen.filter((p) => !mine.has(p)).map((p) => typeof p === "string" ? p : "a promise the code never held"),
          };`;
        const { outcome } = await runOnce(code);
        expect(outcome.status).toBe("ok");
        expect(resultOf(outcome)).toEqual({
          value: 5,
          isToolCallError: true,
          kind: "denied",
          nativePromise: true,
          await: 2,
          others: [],
        });
      });

      it("patching the sandbox's built-ins never hands the prelude's bridge function to the code", async () => {
        const code = `
          const leaked = [];
          const check = (label, values) => {
            for (const v of values) if (typeof v === "function" && /ivm|send|applySync/i.test(String(v.name))) leaked.push(label + ":" + v.name);
          };
          const wrap = (object, key, label) => {
            const original = object[key];
            Object.defineProperty(object, key, { configurable: true, writable: true, value: function (...args) {
              check(label, [this, ...args]);
              return Reflect.apply(original, this, args);
            } });
          };
          wrap(Function.prototype, "call", "call");
          wrap(Function.prototype, "apply", "apply");
          wrap(Function.prototype, "bind", "bind");
          wrap(Map.prototype, "set", "Map.set");
          wrap(Map.prototype, "get", "Map.get");
          wrap(Array.prototype, "push", "push");
          wrap(Array.prototype, "join", "join");
          wrap(Promise.prototype, "then", "then");
          const origApply = Reflect.apply;
          Reflect.apply = (f, t, a) => { check("Reflect.apply", [f, t, ...(a || [])]); return origApply(f, t, a); };
          JSON.stringify = (v) => { check("stringify", [v]); return "{not json"; };
          JSON.parse = (v) => { check("parse", [v]); return "hijacked"; };
          Object.defineProperty = (o, k, d) => { check("defineProperty", [o, d && d.value]); return o; };
          const sum = await tools.add({ a: 2, b: 2 });
          console.log("logged", { a: 1 });
          let failed;
          try { await tools.fail({}); } catch (e) { failed = e.kind; }
          return { leaked, sum, failed };`;
        const { outcome, bridge } = await runOnce(code);
        // The prelude captured the originals: JSON went out and came back intact, nothing leaked.
        expect(bridge.calls.map((c) => c.argsJson)).toEqual(['{"a":2,"b":2}', "{}"]);
        expect(bridge.logs.map((l) => l.text)).toEqual(["logged { a: 1 }"]);
        expect(outcome.status).toBe("ok");
        expect(outcome.valueJson).toBe('{"leaked":[],"sum":4,"failed":"denied"}');
      });

      it("functions the prelude calls cannot reach their caller through .caller or arguments.callee", async () => {
        const code = `
          const callers = [];
          const args = {
            get probe() {
              try { callers.push(typeof Object.getOwnPropertyDescriptor(args, "probe").get.caller); } catch { callers.push("throws"); }
              return 1;
            },
            toJSON: function () { callers.push(arguments.callee.caller === null ? "null" : typeof arguments.callee.caller); return { probe: this.probe }; },
          };
          await tools.echo(args);
          return callers;`;
        const { outcome } = await runOnce(code);
        const callers = resultOf(outcome) as string[];
        expect(callers.length).toBeGreaterThan(0);
        for (const caller of callers) expect(caller).not.toBe("function");
      });

      it("prototype pollution inside the sandbox does not reach the host", async () => {
        const code = `
          Object.prototype.polluted = "yes";
          Array.prototype.map = () => "hijacked";
          Object.prototype.toJSON = undefined;
          const value = await tools.echo({ a: 1 });
          return JSON.parse('{"__proto__": {"polluted": "via json"}, "b": 2}');`;
        const { outcome, bridge } = await runOnce(code);
        expect(outcome.status).toBe("ok");
        expect(bridge.calls[0]?.argsJson).toBe('{"a":1}');
        const parsed = JSON.parse(outcome.valueJson ?? "null") as Record<string, unknown>;
        expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      });

      it("the code cannot reach the prelude's entry, the run id or the run's config through the launch", async () => {
        const { outcome } = await runOnce("return [typeof $0, typeof $1, typeof $2];");
        expect(resultOf(outcome)).toEqual(["undefined", "undefined", "undefined"]);
        const declared = await runOnce("const $0 = 1; let $2 = 2; return $0 + $2;");
        expect(resultOf(declared.outcome)).toBe(3);
      });

      it("code that closes the wrapper early and runs outside it still finds no entry to start a run with", async () => {
        const sandbox = await openSandbox();
        try {
          const breakOut =
            "}; })(globalThis.leak = [typeof $0, typeof $1, typeof $2], function () { return async function () {";
          const first = await sandbox.execute(
            { code: breakOut, toolNames: {}, limits: LIMITS },
            makeBridge(defaultTools()),
            new AbortController().signal,
          );
          expect(first.status).not.toBe("ok");
          const second = await sandbox.execute(
            {
              code: "return globalThis.leak;",
              toolNames: {},
              limits: LIMITS,
            },
            makeBridge(defaultTools()),
            new AbortController().signal,
          );
          // The break-out did run, outside the wrapper, and found nothing there.
          expect(resultOf(second)).toEqual(["undefined", "undefined", "undefined"]);
        } finally {
          await sandbox.dispose();
        }
      });

      it("a promise chain that loops after the code returned keeps the run in flight until a limit ends it", async () => {
        // Enough hops that the loop starts after the code returned and the run reported done.
        const hops = ".then(() => 0)".repeat(20);
        const code = `const p = tools.add({ a: 1, b: 1 }); p${hops}.then(() => { for (;;) {} }); await p; return 1;`;
        const { outcome } = await runOnce(code, { limits: { timeoutMs: 1_500, cpuTimeMs: 500 } });
        expect(outcome.status).not.toBe("ok");
        expect(["limit", "timeout"]).toContain(outcome.status);
        // The environment still serves: a fresh sandbox runs code at once.
        const next = await runOnce("return 2;");
        expect(resultOf(next.outcome)).toBe(2);
      });

      it("unhandled rejections in the sandbox never reach the host's process", async () => {
        const code = `
          Promise.reject(new Error("unhandled 1"));
          (async () => { throw new Error("unhandled 2"); })();
          tools.fail({ message: "unhandled tool failure" });
          await tools.sleep({ ms: 20 });
          return "finished";`;
        const { outcome } = await runOnce(code);
        expect(resultOf(outcome)).toBe("finished");
      });

      it("a thrown object with hostile getters becomes plain data without running code on the host", async () => {
        const code = `
          throw { get name() { return { toString() { throw new Error("no"); } }; },
                  get message() { throw new Error("getter"); },
                  get stack() { while (true) {} } };`;
        const { outcome } = await runOnce(code);
        expect(outcome.status).toBe("error");
        expect(typeof outcome.error?.message).toBe("string");
        expect(typeof outcome.error?.name).toBe("string");
      });
    });

    describe("security: the prelude does not depend on what the code does to Object.prototype", () => {
      it("a polluted Object.prototype.toJSON does not corrupt the end report", async () => {
        const { outcome } = await runOnce("Object.prototype.toJSON = () => undefined; throw new Error('x')", {
          limits: { timeoutMs: 2_000 },
        });
        expect(outcome.status).toBe("error");
        expect(outcome.error?.message).toBe("x");
      });

      it("an accessor-looking Object.prototype.get left by one run makes the next run of the sandbox refuse to start as tampered", async () => {
        const sandbox = await openSandbox();
        const bridge = makeBridge({});
        const run = (code: string) =>
          sandbox.execute({ code, toolNames: {}, limits: LIMITS }, bridge, new AbortController().signal);
        try {
          const first = await run(
            "Object.prototype.get = function () {}; Object.prototype.set = function () {}; return 1;",
          );
          expect(first.status).toBe("ok");
          const second = await run("console.log('the second run ran'); return 2;");
          expect(second.status).toBe("error");
          expect(second.error).toMatchObject({ name: "SandboxTampered" });
          expect(second.error?.message).toMatch(/Object\.prototype\.get was added/);
          expect(bridge.logs).toEqual([]);
        } finally {
          await sandbox.dispose();
        }
      });

      /** Runs `code` in `sandbox` with the default tools. */
      const runIn = (sandbox: Sandbox, code: string, bridge = makeBridge()) =>
        sandbox.execute(
          { code, toolNames: toolNames(), limits: LIMITS },
          bridge,
          new AbortController().signal,
        );

      it("a getter on Object.prototype.get that the next run's tamper check would call removes itself and the check passes", async () => {
        // The check reads `get` off a data property's descriptor, which looks it up on Object.prototype:
        // the getter ran inside the check, undid the change and let the run start in a tampered sandbox.
        // A key deleted beside it keeps Object.prototype's count of keys; the getter puts it back.
        const sandbox = await openSandbox();
        try {
          const first = await runIn(
            sandbox,
            `const kept = Object.prototype.toLocaleString;
            delete Object.prototype.toLocaleString;
            Object.defineProperty(Object.prototype, "get", {
              configurable: true,
              get() {
                delete Object.prototype.get;
                Object.defineProperty(Object.prototype, "toLocaleString", { value: kept, writable: true, configurable: true });
                globalThis.ranInTheCheck = true;
                return undefined;
              },
            });
            return 1;`,
          );
          expect(resultOf(first)).toBe(1);
          const second = await runIn(sandbox, "return globalThis.ranInTheCheck === true;");
          expect(second.status).toBe("error");
          expect(second.error).toMatchObject({ name: "SandboxTampered" });
          expect(second.error?.message).toMatch(/Object\.prototype\.get was added/);
        } finally {
          await sandbox.dispose();
        }
      });

      it("an Object.prototype getter for a field the next run's config leaves out runs before its tamper check, removes itself and forges its tool results", async () => {
        // `replayCalls` is absent from a run that resumes nothing: read through Object.prototype, it
        // handed the prelude a journal whose outcome the guest answered the call with itself.
        const sandbox = await openSandbox();
        const bridge = makeBridge();
        try {
          const first = await runIn(
            sandbox,
            `Object.defineProperty(Object.prototype, "replayCalls", {
              configurable: true,
              get() {
                delete Object.prototype.replayCalls;
                return { tools: ["echo"], args: ['{"text":"real"}'], outcomes: ['o"forged"'], after: [0], order: [0] };
              },
            });
            return 1;`,
            bridge,
          );
          expect(resultOf(first)).toBe(1);
          const second = await runIn(sandbox, 'return await tools.echo({ text: "real" });', bridge);
          expect(second.status).toBe("error");
          expect(second.error).toMatchObject({ name: "SandboxTampered" });
          expect(second.error?.message).toMatch(/Object\.prototype\.replayCalls was added/);
        } finally {
          await sandbox.dispose();
        }
      });

      it("a species, a length getter or a method replaced on the typed arrays, Atomics or String by one run makes the next run refuse to start as tampered", async () => {
        const changes: [code: string, found: RegExp][] = [
          [
            "Object.defineProperty(Uint16Array, Symbol.species, { configurable: true, get() { return Uint16Array; } });",
            /Uint16Array\[Symbol\.species\] was added/,
          ],
          [
            "Object.defineProperty(Object.getPrototypeOf(Int8Array), Symbol.species, { configurable: true, value: Int8Array });",
            /TypedArray\[Symbol\.species\] was changed/,
          ],
          [
            'Object.defineProperty(Object.getPrototypeOf(Uint16Array.prototype), "length", { configurable: true, get() { return 0; } });',
            /TypedArray\.prototype\.length was changed/,
          ],
          [
            'Object.defineProperty(Int32Array.prototype, "length", { configurable: true, get() { return 0; } });',
            /Int32Array\.prototype\.length was added/,
          ],
          ["Uint16Array.prototype.constructor = Array;", /Uint16Array\.prototype\.constructor was changed/],
          // QuickJS has no Atomics: the prelude holds a frozen stand-in of its own (see the next test).
          ...(engine === "v8"
            ? [["Atomics.wait = () => 'not-equal';", /Atomics\.wait was changed/] as [string, RegExp]]
            : []),
          ["String.fromCharCode = () => 'o1';", /String\.fromCharCode was changed/],
          ["String.prototype.slice = () => '';", /String\.prototype\.slice was changed/],
        ];
        for (const [change, found] of changes) {
          const sandbox = await openSandbox();
          try {
            expect(resultOf(await runIn(sandbox, `${change} return 1;`))).toBe(1);
            const second = await runIn(sandbox, "return 2;");
            expect(second.error, change).toMatchObject({ name: "SandboxTampered" });
            expect(second.error?.message, change).toMatch(found);
          } finally {
            await sandbox.dispose();
          }
        }
      });

      it("an Atomics the code plants on the global is never the one the prelude uses", async () => {
        // On V8 the prelude captured the real Atomics, and changing it is tampering (above). QuickJS has
        // none: a global Atomics the code defines must not reach the prelude, which holds a frozen stand-in.
        const sandbox = await openSandbox();
        try {
          const plant = `globalThis.Atomics = { wait: () => "not-equal", load: () => 1, store: () => 0, notify: () => 0 };
            return typeof Atomics.wait;`;
          const planted = await runIn(sandbox, engine === "quickjs" ? plant : "return typeof Atomics.wait;");
          expect(resultOf(planted)).toBe("function");
          const second = await runIn(sandbox, "return await tools.add({ a: 1, b: 2 });");
          expect(resultOf(second)).toBe(3);
        } finally {
          await sandbox.dispose();
        }
      });

      it("an Array.prototype index setter does not see or change the lists the prelude builds (console lines, error stacks)", async () => {
        const { outcome, bridge } = await runOnce(`
          let seen = 0;
          for (let i = 0; i < 4; i++) {
            Object.defineProperty(Array.prototype, i, {
              configurable: true,
              set() { seen++; },
              get() { return "forged"; },
            });
          }
          console.log("a line", { a: 1 }, [2]);
          let stack;
          try { await tools.fail({ message: "no" }); } catch (error) { stack = error.stack; }
          for (let i = 0; i < 4; i++) delete Array.prototype[i];
          return { seen, stack: stack.split("\\n")[0] };`);
        // V8's stack starts with the error's name and message; QuickJS's is its frames alone.
        const firstLine =
          engine === "v8" ? "ToolCallError: no" : expect.stringMatching(/^ {4}at ToolCallError /);
        expect(resultOf(outcome), JSON.stringify(outcome)).toEqual({ seen: 0, stack: firstLine });
        expect(bridge.logs.map((line) => line.text)).toEqual(["a line { a: 1 } [ 2 ]"]);
      });

      it("an index setter on Array.prototype or Object.prototype sees nothing as the prelude serializes a call or the end report, and cannot rewrite either", async () => {
        // QuickJS's JSON.stringify keeps the objects it is inside in an array it assigns to: such a setter
        // ran inside the prelude with its end report and could rewrite it (a thrown error reported as ok).
        for (const target of ["Array.prototype", "Object.prototype"]) {
          const { outcome, bridge } = await runOnce(`
            globalThis.seen = [];
            for (let i = 0; i < 4; i++) {
              Object.defineProperty(${target}, i, {
                configurable: true,
                set(value) {
                  globalThis.seen.length++;
                  if (value && typeof value === "object" && "status" in value) {
                    value.status = "ok";
                    value.valueJson = "{not json";
                    delete value.error;
                  }
                  if (value && typeof value === "object" && "a" in value) value.a = "forged";
                },
              });
            }
            const sum = await tools.add({ a: 1, b: 2 });
            throw new Error("the real error " + sum + " " + globalThis.seen.length);`);
          expect(
            bridge.calls.map((call) => call.argsJson),
            target,
          ).toEqual(['{"a":1,"b":2}']);
          expect(outcome.status, target).toBe("error");
          expect(outcome.error?.message, target).toBe("the real error 3 0");
        }
      });

      it("a Proxy as Array.prototype's prototype sees nothing the prelude serializes", async () => {
        const { outcome, bridge } = await runOnce(`
          let seen = 0;
          Object.setPrototypeOf(Array.prototype, new Proxy(Object.prototype, {
            set(target, key, value, receiver) { seen++; return Reflect.set(target, key, value, receiver); },
            has(target, key) { if (typeof key === "string" && /^\\d+$/.test(key)) seen++; return Reflect.has(target, key); },
          }));
          const echoed = await tools.echo({ nested: { list: [1, { deep: true }] } });
          Object.setPrototypeOf(Array.prototype, Object.prototype);
          return { seen, echoed };`);
        expect(bridge.calls.map((call) => call.argsJson)).toEqual(['{"nested":{"list":[1,{"deep":true}]}}']);
        expect(resultOf(outcome)).toEqual({ seen: 0, echoed: { nested: { list: [1, { deep: true }] } } });
      });

      it("a Promise.prototype.constructor that throws, read as the run's end is awaited, leaves the run hanging until its timeout", async () => {
        const { outcome } = await runOnce(
          `Object.defineProperty(Promise.prototype, "constructor", {
            configurable: true,
            get() { throw new Error("no constructor"); },
          });
          return 1;`,
          { limits: { timeoutMs: 3_000 } },
        );
        expect(resultOf(outcome)).toBe(1);
      });

      it("code that breaks out of the wrapper before a session's first run starts cannot hide a built-in it changed from the next run", async () => {
        const sandbox = await openSandbox();
        const bridge = makeBridge({});
        const run = (code: string) =>
          sandbox.execute({ code, toolNames: {}, limits: LIMITS }, bridge, new AbortController().signal);
        try {
          // Runs as the launch compiles, before the guest's `start`: a record taken there would already
          // hold the changed built-in, and the change would pass for the original.
          const breakOut =
            "}; })(Array.prototype.includes = function () { return true; }, function () { return async function () {";
          const first = await run(breakOut);
          expect(first.status).not.toBe("ok");
          const second = await run("return [1].includes(2);");
          expect(second.status).toBe("error");
          expect(second.error).toMatchObject({ name: "SandboxTampered" });
          expect(second.error?.message).toMatch(/Array\.prototype\.includes was changed/);
        } finally {
          await sandbox.dispose();
        }
      });

      it("a sandbox whose run was marked final runs no other: a later run is refused, not run unguarded", async () => {
        const sandbox = await openSandbox();
        const bridge = makeBridge({});
        const run = (code: string, final: boolean) =>
          sandbox.execute(
            { code, toolNames: {}, limits: LIMITS, final },
            bridge,
            new AbortController().signal,
          );
        try {
          const first = await run("Array.prototype.includes = function () { return true; }; return 1;", true);
          expect(resultOf(first)).toBe(1);
          const second = await run("globalThis.ranAgain = true; return [1].includes(2);", false).catch(
            (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
          );
          // In this process the sandbox rejects the call; behind a process boundary it comes back as an error.
          if (!(second instanceof Error)) expect(second.status).toBe("error");
          const message = second instanceof Error ? second.message : second.error?.message;
          expect(message).toMatch(/already ran an execution marked final/);
        } finally {
          await sandbox.dispose();
        }
      });

      it("a promise chain that loops after code finished without a tool call keeps the run in flight until a limit ends it", async () => {
        // The code reports done inside the task that started it; the loop runs in that same task.
        const hops = ".then(() => 0)".repeat(20);
        const code = `Promise.resolve()${hops}.then(() => { for (;;) {} }); return 1;`;
        const { outcome } = await runOnce(code, { limits: { timeoutMs: 1_500, cpuTimeMs: 500 } });
        expect(["limit", "timeout"]).toContain(outcome.status);
        const next = await runOnce("return 2;");
        expect(resultOf(next.outcome)).toBe(2);
      });

      it("a file name in an error message is not taken for the error's position", async () => {
        const { outcome } = await runOnce('throw new Error("see run_code.js:77:3")');
        // V8 places a `new` expression at `new`; QuickJS at its argument list's parenthesis.
        expect(outcome.error).toMatchObject({ line: 1, column: engine === "v8" ? 7 : 16 });
      });
    });
  });
}
