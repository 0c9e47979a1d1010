import { describe, expect, it } from "vitest";
import { userCodePosition } from "../../sandbox/isolate/index.js";
import { resultOf, runOnce } from "./helpers.js";

describe("isolate environment: results", () => {
  it("returns the value of a top-level return as JSON", async () => {
    const { outcome } = await runOnce("const x = 20;\nreturn { total: x + 22 };");
    expect(outcome.status).toBe("ok");
    expect(resultOf(outcome)).toEqual({ total: 42 });
  });

  it("awaits a tool call and returns its raw value", async () => {
    const { outcome, bridge } = await runOnce("return await tools.add({ a: 2, b: 3 });");
    expect(resultOf(outcome)).toBe(5);
    expect(bridge.calls.map((c) => [c.name, c.argsJson])).toEqual([["add", '{"a":2,"b":3}']]);
  });

  it("reports an undefined result without valueJson", async () => {
    const { outcome } = await runOnce("const x = 1;");
    expect(outcome).toEqual({ status: "ok" });
  });

  it("turns BigInt values into decimal strings", async () => {
    const { outcome } = await runOnce("return { big: 12345678901234567890n };");
    expect(resultOf(outcome)).toEqual({ big: "12345678901234567890" });
  });

  it("reports a cyclic result as a clear error instead of crashing", async () => {
    const { outcome, sandbox } = await runOnce("const a = { name: 'a' }; a.self = a; return a;");
    expect(outcome.status).toBe("error");
    expect(outcome.error?.message).toMatch(/could not be turned into JSON: .*circular/i);
    expect(outcome.error?.message).toMatch(/Return plain data/);
    expect(sandbox.alive).toBe(false); // disposed by runOnce, not by the error
  });

  it("reports a function result as an error that asks for plain data", async () => {
    const { outcome } = await runOnce("return () => 1;");
    expect(outcome.status).toBe("error");
    expect(outcome.error?.message).toMatch(/returned a function.*plain data/);
  });

  it("ends with status limit when the result JSON is longer than maxResultChars", async () => {
    const { outcome } = await runOnce("return 'x'.repeat(500);", { limits: { maxResultChars: 100 } });
    expect(outcome.status).toBe("limit");
    expect(outcome.error?.message).toContain("502 characters");
    expect(outcome.error?.message).toContain("limit of 100");
    expect(outcome.error?.message).toMatch(/Return something smaller/);
    expect(outcome.valueJson).toBeUndefined();
  });

  it("awaits a thenable returned as the result inside the sandbox", async () => {
    const { outcome } = await runOnce("return { then(resolve) { resolve({ via: 'thenable' }); } };");
    expect(resultOf(outcome)).toEqual({ via: "thenable" });
  });
});

describe("isolate environment: errors", () => {
  it("reports a thrown error with a stack positioned in the code's own lines", async () => {
    const code = "const a = 1;\nconst b = 2;\n  throw new RangeError('bad ' + (a + b));";
    const { outcome } = await runOnce(code);
    expect(outcome.status).toBe("error");
    expect(outcome.error).toMatchObject({ name: "RangeError", message: "bad 3", line: 3, column: 9 });
    expect(userCodePosition(outcome.error!)).toEqual({ line: 3, column: 9 });
  });

  it("keeps only frames of the code in the stack (no prelude, engine or host frames)", async () => {
    const code = "function inner() {\n  throw new Error('deep');\n}\nfunction outer() { inner(); }\nouter();";
    const { outcome } = await runOnce(code);
    const lines = outcome.error!.stack!.split("\n");
    expect(lines[0]).toBe("Error: deep");
    expect(lines.slice(1).length).toBeGreaterThanOrEqual(2);
    for (const frame of lines.slice(1)) expect(frame).toMatch(/run_code\.js:\d+:\d+/);
    expect(outcome.error!.stack).not.toMatch(/node:|node_modules|cordon-prelude|isolated-vm/);
    expect(userCodePosition(outcome.error!)).toEqual({ line: 2, column: 9 });
  });

  it("positions errors on line 1 without a column shift", async () => {
    const { outcome } = await runOnce("null.x;");
    expect(outcome.error?.name).toBe("TypeError");
    expect(userCodePosition(outcome.error!)).toEqual({ line: 1, column: 6 });
  });

  it("reports a syntax error with its line and column", async () => {
    const { outcome } = await runOnce("const a = 1;\nconst b = ;\n");
    expect(outcome.status).toBe("error");
    expect(outcome.error?.name).toBe("SyntaxError");
    expect(outcome.error?.message).not.toMatch(/run_code\.js/);
    expect(userCodePosition(outcome.error!)).toEqual({ line: 2, column: 11 });
    expect(outcome.error).toMatchObject({ line: 2, column: 11 });
  });

  it("a thrown object that is not an Error is shown as what it is, not as an empty Error", async () => {
    const { outcome } = await runOnce("throw { weird: true, count: 2 };");
    expect(outcome.error?.name).toBe("Error");
    expect(outcome.error?.message).toBe(
      'the code threw a value that is not an Error: { weird: true, count: 2 }. Throw new Error("...") to give a message.',
    );
    // An object that carries its own message keeps it.
    const own = await runOnce('throw { name: "Oops", message: "it says so" };');
    expect(own.outcome.error).toMatchObject({ name: "Oops", message: "it says so" });
    // An Error without a message stays an Error without one.
    const bareError = await runOnce("throw new RangeError();");
    expect(bareError.outcome.error).toMatchObject({ name: "RangeError", message: "" });
  });

  it("reports a non-Error throw with its text", async () => {
    const { outcome } = await runOnce("throw 'plain text';");
    expect(outcome.error).toMatchObject({ name: "Error", message: "plain text" });
  });

  it("a ReferenceError for a name nothing resembles says so in one short sentence, without listing every global", async () => {
    const { outcome } = await runOnce("return undefinedThing + 1;");
    expect(outcome.error?.name).toBe("ReferenceError");
    expect(outcome.error?.message).toBe(
      "undefinedThing is not defined: the code does not declare it, and no global or tool has that name. Declare it (const, let, function) before using it; tools are called as tools.<name>(args).",
    );
    expect(outcome.error?.stack?.split("\n")[0]).toBe(`ReferenceError: ${outcome.error?.message}`);
  });

  it.each([
    [
      "require('fs')",
      /^require is not available in run_code: .*no modules, file system, network or process\. Call tools\.<name>\(args\) instead\. The tools are: tools\.add/,
    ],
    ["process.env", /^process is not available in run_code/],
    ["await fetch('https://example.com')", /^fetch is not available in run_code: the sandbox has no network/],
    [
      "setTimeout(() => {}, 10)",
      /^setTimeout is not available in run_code: timers could outlive the run.*await null/,
    ],
    ["setInterval(() => {}, 10)", /^setInterval is not available in run_code: timers/],
    ["new FinalizationRegistry(() => {})", /^FinalizationRegistry is not available in run_code/],
    ["WebAssembly.Memory", /^WebAssembly is not available in run_code/],
    ["new SharedArrayBuffer(8)", /^SharedArrayBuffer is not available in run_code/],
  ])("explains that %s is unavailable", async (code, message) => {
    const { outcome } = await runOnce(code);
    expect(outcome.status).toBe("error");
    expect(outcome.error?.name).toBe("ReferenceError");
    expect(outcome.error?.message).toMatch(message);
  });

  it("leaves typeof checks for missing host globals working", async () => {
    const { outcome } = await runOnce(
      "return [typeof require, typeof process, typeof fetch, typeof setTimeout, typeof window];",
    );
    expect(resultOf(outcome)).toEqual(["undefined", "undefined", "undefined", "undefined", "undefined"]);
  });

  it("explains that import statements are unavailable", async () => {
    const { outcome } = await runOnce("import fs from 'fs';\nreturn 1;");
    expect(outcome.error?.name).toBe("SyntaxError");
    expect(outcome.error?.message).toMatch(/^import is not available in run_code/);
  });

  it("explains that dynamic import() is unavailable", async () => {
    const { outcome } = await runOnce("return await import('fs');");
    expect(outcome.status).toBe("error");
    expect(outcome.error?.message).toMatch(/^import\(\) is not available in run_code/);
  });

  it("names the existing tools when the code calls one that does not exist", async () => {
    const { outcome } = await runOnce("return await tools.nope({});");
    expect(outcome.error?.name).toBe("TypeError");
    expect(outcome.error?.message).toMatch(
      /there is no tool named nope\. The tools are: tools\.add, tools\.echo/,
    );
  });

  it("provides queueMicrotask, whose callbacks run before the run ends", async () => {
    const { outcome } = await runOnce(
      "const seen = []; queueMicrotask(() => seen.push('micro')); await null; return seen;",
    );
    expect(resultOf(outcome)).toEqual(["micro"]);
  });
});
