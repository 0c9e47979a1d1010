// One run on its own (src/codemode/run.ts), without codeMode() around it: a RunSetup, a real isolate
// sandbox, and the trip out and back.
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import { resolveLimits, sandboxLimitsOf } from "../../src/codemode/limits.js";
import { jsonDepth } from "../../src/codemode/result.js";
import { type RunSetup, runCode, runInSandbox } from "../../src/codemode/run.js";
import { MAX_CODE_CHARS, prepareCode } from "../../src/codemode/transpile.js";
import { Dispatcher } from "../../src/dispatch/dispatcher.js";
import { tool } from "../../src/tools/tool.js";
import { Toolset } from "../../src/tools/toolset.js";

const environment = isolateEnvironment();
afterAll(() => environment.close());

function setupWith(tools: Toolset): RunSetup {
  const limits = resolveLimits({ timeoutMs: 5_000 });
  return {
    environment,
    dispatcher: new Dispatcher(tools),
    limits,
    sandboxLimits: sandboxLimitsOf(limits),
    toolName: "run_code",
    toolNames: Object.fromEntries(tools.names().map((name) => [name, name])),
    waitingTools: [],
    sessions: undefined,
    approval: "wait",
    pause: undefined,
  };
}

const double = tool({
  name: "double",
  description: "Doubles a number.",
  input: z.object({ n: z.number() }),
  run: ({ n }) => n * 2,
});

describe("one run, on its own", () => {
  it("code over MAX_CODE_CHARS ends as a limit (CodeTooLong) before any sandbox is used, not as a SyntaxError", async () => {
    const result = await runCode(setupWith(new Toolset([double])), `// ${"x".repeat(MAX_CODE_CHARS)}`);
    expect(result.status).toBe("limit");
    expect(result.error).toMatchObject({ name: "CodeTooLong" });
    expect(result.error?.message).toContain("run_code takes at most 100,000");
  });

  it("runs the code in a fresh sandbox, its calls through the dispatcher, and reports on the model's lines", async () => {
    const setup = setupWith(new Toolset([double]));
    const ok = await runCode(setup, "const a = await tools.double({ n: 21 });\nconsole.log(a);\nreturn a;");
    expect(ok).toMatchObject({ status: "ok", value: 42, logs: [{ level: "log", text: "42" }] });
    expect(ok.calls).toMatchObject([{ tool: "double", status: "ok" }]);

    const failed = await runCode(setup, "const x: number = 1;\n\nthrow new TypeError('line three');");
    expect(failed.status).toBe("error");
    expect(failed.error).toMatchObject({ name: "TypeError", message: "line three", line: 3 });
  });

  it("code that is not a string is a TypeError, and nothing runs", async () => {
    const result = await runCode(setupWith(new Toolset([double])), 42);
    expect(result).toMatchObject({ status: "error", calls: [], error: { name: "TypeError" } });
  });

  it("a sandbox that can no longer run ends the run with an error that says so, not a rejection", async () => {
    const setup = setupWith(new Toolset([double]));
    const sandbox = await environment.open(setup.sandboxLimits);
    await sandbox.dispose();
    const prepared = await prepareCode("return 1");
    if ("error" in prepared) throw new Error("the code should have been prepared");
    const result = await runInSandbox(setup, sandbox, "return 1", prepared, {}, performance.now());
    expect(result.status).toBe("error");
    expect(result.error?.name).toBe("SandboxError");
    expect(result.error?.message).toMatch(/^The sandbox failed: This isolate sandbox is no longer alive/);
  });

  it("a run whose caller cancelled before it started is cancelled, and calls nothing", async () => {
    let calls = 0;
    const counted = tool({
      name: "counted",
      description: "Counts its calls.",
      input: z.object({}),
      run: () => ++calls,
    });
    const controller = new AbortController();
    controller.abort();
    const result = await runCode(setupWith(new Toolset([counted])), "await tools.counted({})", {
      signal: controller.signal,
    });
    expect(result.status).toBe("cancelled");
    expect(calls).toBe(0);
  });

  it("a result nested 18,500 levels deep ends at a limit, and the report keeps its console and calls", async () => {
    const setup = setupWith(new Toolset([double]));
    const result = await runCode(
      setup,
      `await tools.double({ n: 1 });
       console.log("built it");
       let deep = [];
       for (let i = 0; i < 18500; i++) deep = [deep];
       return deep;`,
    );
    expect(result.status).toBe("limit");
    expect(result.error).toMatchObject({ name: "ResultTooLarge" });
    expect(result.error?.message).toMatch(/^The result nests 18,501 levels deep, over the limit of 256/);
    expect(result.logs).toEqual([{ level: "log", text: "built it" }]);
    expect(result.calls).toHaveLength(1);
    // The whole report encodes, so nothing downstream (rendering, printing) loses it.
    expect(() => JSON.stringify(result)).not.toThrow();
  });

  it("counts nesting outside strings only", () => {
    expect(jsonDepth('{"a":[1,{"b":"[[[{{{"}]}')).toBe(3);
    expect(jsonDepth('"\\"')).toBe(0);
    expect(jsonDepth("[[],[[]]]")).toBe(3);
  });

  it("leaves the sandbox it was given open: its caller owns it", async () => {
    const setup = { ...setupWith(new Toolset([double])) };
    const sandbox = await environment.open(setup.sandboxLimits);
    try {
      const prepared = await prepareCode("return 2");
      if ("error" in prepared) throw new Error("the code should have been prepared");
      const result = await runInSandbox(setup, sandbox, "return 2", prepared, {}, performance.now());
      expect(result).toMatchObject({ status: "ok", value: 2 });
      expect(sandbox.alive).toBe(true);
    } finally {
      await sandbox.dispose();
    }
  });
});
