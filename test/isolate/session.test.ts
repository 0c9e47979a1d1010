import { afterEach, describe, expect, it } from "vitest";
import type { ExecutionOutcome, Sandbox } from "../../sandbox/contract/index.js";
import { LIMITS, makeBridge, openSandbox, resultOf, sleep, type TestBridge, toolNames } from "./helpers.js";

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.dispose();
  sandbox = undefined;
});

async function run(code: string, bridge: TestBridge = makeBridge()): Promise<ExecutionOutcome> {
  if (!sandbox) sandbox = await openSandbox();
  return sandbox.execute(
    { code, toolNames: toolNames(), limits: LIMITS },
    bridge,
    new AbortController().signal,
  );
}

describe("isolate environment: sessions", () => {
  it("keeps top-level declarations and globalThis assignments between executions", async () => {
    await run(`
      var counter = 1;
      let list = [1, 2];
      const config = { mode: "fast" };
      function double(x) { return x * 2; }
      class Box { constructor(v) { this.v = v; } }
      globalThis.explicit = "kept";`);
    const outcome = await run(
      "return { counter, list, config, doubled: double(21), box: new Box(3).v, explicit: globalThis.explicit };",
    );
    expect(resultOf(outcome)).toEqual({
      counter: 1,
      list: [1, 2],
      config: { mode: "fast" },
      doubled: 42,
      box: 3,
      explicit: "kept",
    });
  });

  it("keeps declarations whatever their names, including short ones like o and e", async () => {
    await run("const o = { kept: true }; let e = 'e'; var values = [1];");
    expect(resultOf(await run("return [o, e, values];"))).toEqual([{ kept: true }, "e", [1]]);
  });

  it("keeps destructured top-level declarations", async () => {
    await run("const { a, b: [first, ...rest], c = 3 } = { a: 1, b: [2, 4, 5] };");
    expect(resultOf(await run("return { a, first, rest, c };"))).toEqual({
      a: 1,
      first: 2,
      rest: [4, 5],
      c: 3,
    });
  });

  it("starts a redeclared top-level var from the value an earlier run left", async () => {
    await run("var count = (count ?? 0) + 1;");
    await run("var count = (count ?? 0) + 1;");
    const outcome = await run("var count = (count ?? 0) + 1; return count;");
    expect(resultOf(outcome)).toBe(3);
  });

  it("keeps declarations even when the run throws", async () => {
    const failed = await run("const saved = 'before';\nthrow new Error('after');");
    expect(failed.status).toBe("error");
    expect(resultOf(await run("return saved;"))).toBe("before");
  });

  it("never lets a declaration replace tools, console or built-ins", async () => {
    await run("const tools = 1; let console = 2; const JSON = 3;");
    const outcome = await run(
      "console.log('still works'); return [typeof tools.add, JSON.stringify({ a: 1 })];",
    );
    expect(resultOf(outcome)).toEqual(["function", '{"a":1}']);
  });

  it("restores tools in the next run after code deleted it", async () => {
    await run("delete globalThis.tools;");
    expect(resultOf(await run("return typeof tools.add;"))).toBe("function");
  });

  it("refuses calls through a tools object kept from an earlier run", async () => {
    const bridge = makeBridge();
    await run(
      `const kept = tools;
       globalThis.later = (async () => {
         await new Promise((resolve) => { globalThis.release = resolve; });
         try { await kept.add({ a: 1, b: 1 }); return "reached"; } catch (e) { return [e.kind, e.message]; }
       })();
       return "first";`,
      bridge,
    );
    const outcome = await run("release(); return await later;", bridge);
    expect(resultOf(outcome)).toEqual([
      "refused",
      "tools.add() was called after the run_code run ended; the call was refused.",
    ]);
    expect(bridge.calls).toHaveLength(0);
  });

  it("drops a late tool outcome of an earlier run instead of resuming its code", async () => {
    const bridge = makeBridge();
    await run(
      "globalThis.resumed = false; tools.sleep({ ms: 50 }).then(() => { globalThis.resumed = true; }); return 1;",
      bridge,
    );
    await sleep(120);
    expect(resultOf(await run("return resumed;", bridge))).toBe(false);
  });
});
