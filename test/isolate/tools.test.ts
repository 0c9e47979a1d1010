import { describe, expect, it } from "vitest";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import type { BridgeCallOutcome, SandboxBridge } from "../../sandbox/contract/index.js";
import { LIMITS, makeBridge, resultOf, runOnce } from "./helpers.js";

describe("isolate environment: tool calls", () => {
  it("runs tool calls in Promise.all concurrently (all ten overlap)", async () => {
    const code =
      "return await Promise.all(Array.from({ length: 10 }, (_, i) => tools.sleep({ ms: 50, i })));";
    const { outcome, bridge } = await runOnce(code);
    expect(outcome.status).toBe("ok");
    expect(resultOf(outcome)).toHaveLength(10);
    expect(bridge.calls).toHaveLength(10);
    const lastStart = Math.max(...bridge.calls.map((c) => c.start));
    const firstEnd = Math.min(...bridge.calls.map((c) => c.end ?? Number.POSITIVE_INFINITY));
    // Every call started before any call finished: they were all in flight together.
    expect(lastStart).toBeLessThan(firstEnd);
  });

  it("makes a rejected call catchable as a ToolCallError carrying tool and kind", async () => {
    const code = `
      try {
        await tools.fail({ message: "no access" });
        return "not reached";
      } catch (e) {
        return { name: e.name, tool: e.tool, kind: e.kind, message: e.message,
                 isToolCallError: e instanceof ToolCallError, isError: e instanceof Error };
      }`;
    const { outcome } = await runOnce(code);
    expect(resultOf(outcome)).toEqual({
      name: "ToolCallError",
      tool: "fail",
      kind: "denied",
      message: "no access",
      isToolCallError: true,
      isError: true,
    });
  });

  it("reports an uncaught failed call with tool, kind and the line of the call", async () => {
    const { outcome } = await runOnce("const x = 1;\nawait tools.fail({ message: 'boom' });");
    expect(outcome.status).toBe("error");
    expect(outcome.error).toMatchObject({
      name: "ToolCallError",
      message: "boom",
      tool: "fail",
      kind: "denied",
    });
    expect(outcome.error?.stack).toMatch(/^ToolCallError: boom\n\s+at .*run_code\.js:2:\d+/);
  });

  it("maps the names used in code to the real tool names", async () => {
    const limits = LIMITS;
    const sandbox = await isolateEnvironment().open(limits);
    const bridge = makeBridge({ "get-order": ({ id }) => ({ id, status: "shipped" }) });
    const outcome = await sandbox.execute(
      { code: "return await tools.get_order({ id: 'A1' });", toolNames: { get_order: "get-order" }, limits },
      bridge,
      new AbortController().signal,
    );
    await sandbox.dispose();
    expect(resultOf(outcome)).toEqual({ id: "A1", status: "shipped" });
    expect(bridge.calls[0]?.name).toBe("get-order");
  });

  it("exposes a frozen tools object with one function per tool", async () => {
    const code = `
      tools.add = () => 99;
      return { keys: Object.keys(tools), frozen: Object.isFrozen(tools), sum: await tools.add({ a: 1, b: 1 }),
               name: tools.add.name };`;
    const { outcome } = await runOnce(code);
    expect(resultOf(outcome)).toEqual({
      keys: ["add", "echo", "sleep", "fail"],
      frozen: true,
      sum: 2,
      name: "add",
    });
  });

  it("sends arguments as JSON made inside the sandbox and refuses values that are not JSON", async () => {
    const code = `
      const cyclic = {}; cyclic.self = cyclic;
      const errors = [];
      for (const bad of [cyclic, { n: 1n }, () => 1]) {
        try { await tools.echo(bad); } catch (e) { errors.push([e.kind, e.message.slice(0, 40)]); }
      }
      const echoed = await tools.echo({ date: new Date(0), nested: { list: [1, "two", null] } });
      return { errors, echoed, noArgs: await tools.echo() };`;
    const { outcome, bridge } = await runOnce(code);
    const value = resultOf(outcome) as { errors: string[][]; echoed: unknown; noArgs: unknown };
    expect(value.errors.map((e) => e[0])).toEqual([
      "invalid_arguments",
      "invalid_arguments",
      "invalid_arguments",
    ]);
    expect(value.echoed).toEqual({ date: "1970-01-01T00:00:00.000Z", nested: { list: [1, "two", null] } });
    expect(value.noArgs).toEqual({});
    expect(bridge.calls.map((c) => c.argsJson)).toEqual([
      '{"date":"1970-01-01T00:00:00.000Z","nested":{"list":[1,"two",null]}}',
      "{}",
    ]);
  });

  it("refuses calls beyond maxToolCalls inside the sandbox, so they never reach the bridge", async () => {
    const code = `
      const results = await Promise.allSettled(Array.from({ length: 8 }, () => tools.add({ a: 1, b: 1 })));
      return results.map((r) => r.status === "fulfilled" ? "ok" : r.reason.kind);`;
    const { outcome, bridge } = await runOnce(code, { limits: { maxToolCalls: 5 } });
    expect(resultOf(outcome)).toEqual(["ok", "ok", "ok", "ok", "ok", "limit", "limit", "limit"]);
    expect(bridge.calls).toHaveLength(5);
  });

  it("turns a bridge that throws into a failed call the code can catch", async () => {
    const limits = LIMITS;
    const sandbox = await isolateEnvironment().open(limits);
    const bridge: SandboxBridge = {
      callTool(): Promise<BridgeCallOutcome> {
        throw new TypeError("bridge exploded");
      },
      log() {},
    };
    const outcome = await sandbox.execute(
      {
        code: "try { await tools.x({}); } catch (e) { return [e.kind, e.message]; }",
        toolNames: { x: "x" },
        limits,
      },
      bridge,
      new AbortController().signal,
    );
    await sandbox.dispose();
    expect(resultOf(outcome)).toEqual(["error", "The tool call failed in the host: bridge exploded"]);
  });

  it("passes results to the code as data parsed inside the sandbox", async () => {
    const code = `
      const value = await tools.echo({ a: [1, 2], b: { c: "d" } });
      return { isObject: Object.getPrototypeOf(value) === Object.prototype, ctor: value.constructor === Object,
               arrayOk: Array.isArray(value.a) && value.a instanceof Array };`;
    const { outcome } = await runOnce(code);
    expect(resultOf(outcome)).toEqual({ isObject: true, ctor: true, arrayOk: true });
  });
});
