// A model's most common mistake is a forgotten `await`: the promise of a tool call used as its value. The
// call's promise answers every key that is not a promise's own with an error that says so and names the
// tool; everything a promise is used for still works as with any promise.
import { describe, expect, it } from "vitest";
import {
  LIMITS,
  makeBridge,
  openSandbox,
  resultOf,
  runOnce,
  TEST_ENVIRONMENTS,
  toolNames,
  useEnvironment,
} from "./helpers.js";

const HINT = "tools.echo(...) returns a Promise: did you forget `await`?";

for (const { name, create } of TEST_ENVIRONMENTS) {
  describe(`[${name}] a forgotten await`, () => {
    useEnvironment(create);

    it("(tools.x({})).reduce(...) ends the run with an error that says await was forgotten and names the tool", async () => {
      const { outcome } = await runOnce(
        "const orders = tools.echo({ list: [1, 2, 3] });\nreturn orders.reduce((sum, n) => sum + n, 0);",
      );
      expect(outcome.status).toBe("error");
      expect(outcome.error?.name).toBe("TypeError");
      expect(outcome.error?.message).toContain(HINT);
      expect(outcome.error?.message).toContain(".reduce");
      // Reported against the model's own line.
      expect(outcome.error?.stack).toMatch(/run_code\.js:2:\d+/);
    });

    it(".length of a tool call's promise is an error, not a silent undefined", async () => {
      const { outcome } = await runOnce("const orders = tools.echo({});\nreturn { count: orders.length };");
      expect(outcome.status).toBe("error");
      expect(outcome.error?.message).toContain(HINT);
    });

    it("names the tool as the code called it (a repaired name too), and holds for a call refused in the sandbox", async () => {
      const repaired = await runOnce("return tools.Echo({}).status;");
      expect(repaired.outcome.error?.message).toContain("tools.Echo(...) returns a Promise");
      const refused = await runOnce("return tools.echo({ x: 1n }).items;");
      // A call refused in the sandbox (its arguments are not JSON) is a tool call's promise too.
      expect(refused.outcome.error?.message).toContain(HINT);
    });

    it("a result or arguments holding a tool call's promise fail with the hint instead of turning it into {}", async () => {
      const result = await runOnce("return { order: tools.echo({}) };");
      expect(result.outcome.status).toBe("error");
      expect(result.outcome.error?.message).toContain("The result could not be turned into JSON");
      expect(result.outcome.error?.message).toContain(HINT);
      const args = await runOnce(
        "try { await tools.add({ a: tools.echo({}), b: 1 }); } catch (e) { return e.message; }",
      );
      expect(resultOf(args.outcome)).toContain(HINT);
    });

    it("a tool call's promise is awaited, chained, raced, resolved and turned into text as any promise", async () => {
      const code = `
        const p = () => tools.echo({ v: 1 });
        const chained = await p().then((r) => r.v + 1);
        const caught = await tools.fail({}).catch((e) => e.kind);
        let finallyRan = false;
        await p().finally(() => { finallyRan = true; });
        const [all] = await Promise.all([p()]);
        const raced = await Promise.race([p()]);
        const settled = await Promise.allSettled([p(), tools.fail({})]);
        const resolved = await Promise.resolve(p());
        const q = p();
        const facts = {
          isPromise: q instanceof Promise, text: String(q), template: \`\${q}\`,
          tag: Object.prototype.toString.call(q), own: Object.keys(q), has: "then" in q && !("length" in q),
          hasOwn: q.hasOwnProperty("then"), type: typeof q.then,
        };
        await q;
        return { chained, caught, finallyRan, all: all.v, raced: raced.v, settled: settled.map((s) => s.status),
                 resolved: resolved.v, ...facts };`;
      const { outcome } = await runOnce(code);
      expect(outcome.error).toBeUndefined();
      expect(resultOf(outcome)).toEqual({
        chained: 2,
        caught: "denied",
        finallyRan: true,
        all: 1,
        raced: 1,
        settled: ["fulfilled", "rejected"],
        resolved: 1,
        isPromise: true,
        text: "[object Promise]",
        template: "[object Promise]",
        tag: "[object Promise]",
        own: [],
        has: true,
        hasOwn: false,
        type: "function",
      });
    });

    it("console.log of a tool call's promise prints it with the hint, and throws nothing", async () => {
      const { outcome, bridge } = await runOnce(
        "const p = tools.echo({});\nconsole.log(p, { nested: p });\nawait p;\nreturn 1;",
      );
      expect(outcome.status).toBe("ok");
      const shown = "Promise { tools.echo(...): did you forget `await`? }";
      expect(bridge.logs.map((entry) => entry.text)).toEqual([`${shown} { nested: ${shown} }`]);
    });

    it("the end of a call promise's prototype chain gives the code nothing to change or reach", async () => {
      const code = `
        const p = tools.echo({});
        const proto = Object.getPrototypeOf(p);
        const end = Object.getPrototypeOf(proto);
        const attempts = [
          () => Object.defineProperty(end, "length", { value: 3 }),
          () => Object.setPrototypeOf(end, null),
          () => { end.reduce = () => 0; },
          () => { delete end.then; },
          () => Object.defineProperty(proto, "length", { value: 3 }),
          () => { proto.then = () => 0; },
        ];
        for (const attempt of attempts) { try { attempt(); } catch {} }
        let hint = "";
        try { p.length; } catch (e) { hint = e.message; }
        await p;
        return { hint, endKeys: Reflect.ownKeys(end), protoKeys: Reflect.ownKeys(proto),
                 frozen: Object.isFrozen(end) && Object.isFrozen(proto),
                 thenIsPromises: end.then === Promise.prototype.then,
                 endProto: Object.getPrototypeOf(end) === Promise.prototype };`;
      const { outcome } = await runOnce(code);
      expect(resultOf(outcome)).toEqual({
        hint: `${HINT} (the code read .length of the Promise, not of its value)`,
        endKeys: [],
        protoKeys: ["constructor", "then"],
        frozen: true,
        thenIsPromises: true,
        endProto: true,
      });
    });

    it("a session's later run is not refused as tampered after an earlier run used a call promise's chain", async () => {
      const sandbox = await openSandbox();
      try {
        const bridge = makeBridge();
        const request = (code: string) => ({ code, toolNames: toolNames(), limits: LIMITS });
        const signal = new AbortController().signal;
        const first = await sandbox.execute(
          request("const p = tools.echo({}); try { p.length } catch {} String(p); await p; 1"),
          bridge,
          signal,
        );
        expect(first.status).toBe("ok");
        const second = await sandbox.execute(
          request("return (await tools.echo({ v: 2 })).v;"),
          bridge,
          signal,
        );
        expect(second.error).toBeUndefined();
        expect(resultOf(second)).toBe(2);
      } finally {
        await sandbox.dispose();
      }
    });
  });
}
