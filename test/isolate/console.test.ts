import { describe, expect, it } from "vitest";
import { runOnce } from "./helpers.js";

describe("isolate environment: console", () => {
  it("captures every console level in order", async () => {
    const code = `console.log("a", 1); console.info("b"); console.warn("c"); console.error("d"); console.debug("e");`;
    const { bridge } = await runOnce(code);
    expect(bridge.logs).toEqual([
      { level: "log", text: "a 1" },
      { level: "info", text: "b" },
      { level: "warn", text: "c" },
      { level: "error", text: "d" },
      { level: "debug", text: "e" },
    ]);
  });

  it("formats values roughly like Node", async () => {
    const code = `
      const cyclic = { name: "c" }; cyclic.self = cyclic;
      console.log({ a: 1, b: "two", c: [1, 2, 3], d: null, e: undefined });
      console.log([1, "x", { deep: { deeper: { deepest: 1 } } }]);
      console.log(new Map([["k", 1]]), new Set([1]), 5n, Symbol("s"), function named() {});
      console.log(cyclic);
      console.log(Object.create(null));
      console.log({ get g() { return 1; } });
      console.log(new Error("oops").message);`;
    const { bridge } = await runOnce(code);
    expect(bridge.logs.map((l) => l.text)).toEqual([
      "{ a: 1, b: 'two', c: [ 1, 2, 3 ], d: null, e: undefined }",
      "[ 1, 'x', { deep: { deeper: [Object] } } ]",
      "Map(1) { 'k' => 1 } Set(1) { 1 } 5n Symbol(s) [Function: named]",
      "{ name: 'c', self: [Circular] }",
      "[Object: null prototype] {}",
      "{ g: [Getter] }",
      "oops",
    ]);
  });

  it("caps console output at maxLogChars and counts what was dropped in the sandbox", async () => {
    const code = `for (let i = 0; i < 1000; i++) console.log("line " + i + " " + "x".repeat(20)); return "done";`;
    const { outcome, bridge } = await runOnce(code, { limits: { maxLogChars: 100 } });
    expect(outcome.status).toBe("ok");
    const kept = bridge.logs.slice(0, -1);
    // Each line costs its length plus its line break.
    expect(kept.reduce((sum, l) => sum + l.text.length + 1, 0)).toBe(100);
    const marker = bridge.logs.at(-1);
    expect(marker?.level).toBe("warn");
    expect(marker?.text).toMatch(
      /console output truncated: the limit of 100 characters was reached; \d+ console call/,
    );
    // Only the kept lines and one marker crossed to the host, not a thousand messages.
    expect(bridge.logs.length).toBeLessThan(10);
  });

  it("drops console output of code left running after the run ended", async () => {
    const code = `
      (async () => { await tools.sleep({ ms: 30 }); console.log("late"); })();
      console.log("early");`;
    const { bridge, outcome } = await runOnce(code);
    expect(outcome.status).toBe("ok");
    expect(bridge.logs.map((l) => l.text)).toEqual(["early"]);
  });
});
