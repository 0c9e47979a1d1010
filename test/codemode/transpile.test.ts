import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  IMPORT_NOT_AVAILABLE,
  MAX_CODE_CHARS,
  type PreparedCode,
  prepareCode,
} from "../../src/codemode/transpile.js";

/** The process id of esbuild's service, a child of this process (Linux: read from /proc). */
function esbuildServicePid(): number | undefined {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const command = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (parent === process.pid && command.includes("--service=")) return Number(entry);
    } catch {
      // The process ended while it was read.
    }
  }
  return undefined;
}

type AsyncBody = (...args: unknown[]) => Promise<unknown>;
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
  ...params: string[]
) => AsyncBody;

/** `new AsyncFunction(body)` puts two lines of its own before the body. */
const WRAPPER_LINES = 2;

async function prepared(source: string): Promise<PreparedCode> {
  const result = await prepareCode(source);
  if ("error" in result) throw new Error(`unexpected failure: ${result.error.message}`);
  return result;
}

async function evaluate(source: string): Promise<unknown> {
  return new AsyncFunction((await prepared(source)).js)();
}

/** Runs the body, expects it to throw, and returns the body position V8 reports for the throw. */
async function thrownAt(code: PreparedCode): Promise<{ line: number; column: number }> {
  const error = await new AsyncFunction(code.js)().then(
    () => undefined,
    (thrown: unknown) => thrown as Error,
  );
  const match = /<anonymous>:(\d+):(\d+)/.exec(error?.stack ?? "");
  if (!match) throw new Error(`no position in ${error?.stack}`);
  return { line: Number(match[1]) - WRAPPER_LINES, column: Number(match[2]) };
}

async function failure(source: string) {
  const result = await prepareCode(source);
  if (!("error" in result)) throw new Error("expected a failure");
  return result.error;
}

describe("prepareCode: markdown fences", () => {
  it("strips a ```ts fence around the code", async () => {
    expect(await evaluate("```ts\nconst x: number = 1;\nx + 1\n```")).toBe(2);
  });

  it("strips ```typescript, ```js and bare ``` fences", async () => {
    expect(await evaluate("```typescript\n1 + 1\n```")).toBe(2);
    expect(await evaluate("```js\n2 + 1\n```")).toBe(3);
    expect(await evaluate("```\n3 + 1\n```")).toBe(4);
  });

  it("takes the first fenced block when there is prose before and after it", async () => {
    const source =
      "Here is the code:\n```ts\nconst a: number = 20;\na * 2\n```\nAnd another:\n```ts\n0\n```\nDone.";
    expect(await evaluate(source)).toBe(40);
  });

  it("counts line numbers inside the fence", async () => {
    expect(await failure("Some text\n\n```ts\nconst a = 1;\nconst b = ;\n```")).toMatchObject({
      line: 2,
      column: 11,
    });
  });

  it("accepts a fence without its closing line", async () => {
    expect(await evaluate("```ts\n5 * 5")).toBe(25);
  });
});

describe("prepareCode: TypeScript", () => {
  it("strips types: interfaces, type aliases, annotations, casts, generics", async () => {
    const source = [
      "interface Item { id: number; name: string }",
      "type Items = Item[];",
      "const items: Items = [{ id: 1, name: 'a' }, { id: 2, name: 'b' }];",
      "function pick<T>(list: T[], i: number): T { return list[i]!; }",
      "const chosen = pick(items, 1) as Item;",
      "chosen.name",
    ].join("\n");
    const code = await prepared(source);
    expect(code.js).not.toMatch(/interface|Items|: number/);
    expect(await new AsyncFunction(code.js)()).toBe("b");
  });

  it("supports enums (which compile to code)", async () => {
    expect(await evaluate("enum Color { Red, Green }\nColor.Green")).toBe(1);
  });
});

describe("prepareCode: result value", () => {
  it("allows top-level await", async () => {
    expect(await evaluate("const v = await Promise.resolve(7);\nv * 3")).toBe(21);
  });

  it("returns the value of a top-level return", async () => {
    expect(await evaluate("const x = await Promise.resolve({ a: 1 });\nreturn x;")).toEqual({ a: 1 });
  });

  it("keeps an early top-level return over the last expression", async () => {
    expect(await evaluate("if (true) return 'early';\n'late'")).toBe("early");
  });

  it("returns the value of the last top-level expression statement", async () => {
    expect(await evaluate("const list = [1, 2, 3];\nlist.map((n) => n * 2)")).toEqual([2, 4, 6]);
    expect(await evaluate("let n = 1;\nn = n + 1, n * 10")).toBe(20);
  });

  it("returns the awaited value of a last `await` expression", async () => {
    expect(await evaluate("await Promise.resolve('done')")).toBe("done");
  });

  it("does not rewrite a last statement inside a block, if or loop", async () => {
    expect(await evaluate("if (true) { 3 }")).toBeUndefined();
    expect(await evaluate("{ 4 }")).toBeUndefined();
    expect(await evaluate("for (const x of [1]) { x }")).toBeUndefined();
    expect((await prepared("if (true) { 3 }")).js).not.toContain("return");
  });

  it("returns undefined when the last statement is a declaration", async () => {
    expect(await evaluate("const x = 1;")).toBeUndefined();
  });

  it("calls a lone async arrow function and returns its result", async () => {
    const source = "async () => {\n  const r: number = await Promise.resolve(5);\n  return r * 2;\n}";
    expect(await evaluate(source)).toBe(10);
  });

  it("calls a lone async function expression and a lone async function declaration", async () => {
    expect(await evaluate("(async function () { return 'expr'; })")).toBe("expr");
    expect(await evaluate("async function main() {\n  return 'decl';\n}")).toBe("decl");
  });

  it("returns an empty body for empty source", async () => {
    expect(await evaluate("")).toBeUndefined();
  });
});

describe("prepareCode: modules", () => {
  it("rejects a static import with a clear message and its line", async () => {
    expect(await failure("const a = 1;\nimport fs from 'node:fs';\nfs")).toEqual({
      name: "SyntaxError",
      message: IMPORT_NOT_AVAILABLE,
      line: 2,
      column: 1,
    });
    expect((await failure("import { x } from 'y';")).message).toBe(IMPORT_NOT_AVAILABLE);
    expect((await failure("import type { X } from 'y';")).message).toBe(IMPORT_NOT_AVAILABLE);
  });

  it("rejects export statements", async () => {
    expect((await failure("export const x = 1;")).message).toBe(IMPORT_NOT_AVAILABLE);
  });

  it("leaves dynamic import() to the sandbox", async () => {
    expect((await prepared("await import('node:fs')")).js).toContain("import(");
  });

  it("does not mistake identifiers starting with import for an import", async () => {
    expect(await evaluate("const imports = [1];\nimports.length")).toBe(1);
  });
});

describe("prepareCode: syntax errors", () => {
  it("reports the line and column in the TypeScript source, past type-only lines", async () => {
    const source =
      "type A = { x: number };\ninterface B { y: string }\n\nconst a: A = { x: 1 };\nconst b = ;";
    expect(await failure(source)).toEqual({
      name: "SyntaxError",
      message: 'Unexpected ";"',
      line: 5,
      column: 11,
    });
  });

  it("counts columns in UTF-16 units like editors and V8", async () => {
    expect(await failure("const ü = 'é'; const = 3")).toMatchObject({ line: 1, column: 22 });
  });

  it("an error at the end of the code points at what was left open, inside what the model wrote", async () => {
    expect(await failure("const a = 1;\nif (a) {\n  a;")).toEqual({
      name: "SyntaxError",
      message: 'Unexpected end of the code: the "{" at line 2, column 8 is never closed',
      line: 2,
      column: 8,
    });
  });

  it("a syntax error never points past the end of the model's code", async () => {
    const cases: [string, string, number, number][] = [
      ["foo(", 'Unexpected end of the code: the "(" at line 1, column 4 is never closed', 1, 4],
      ["foo(\n\n", 'Unexpected end of the code: the "(" at line 1, column 4 is never closed', 1, 4],
      ["x = [1, 2", 'Unexpected end of the code: the "[" at line 1, column 5 is never closed', 1, 5],
      ["const x = ", "Unexpected end of the code", 1, 9],
      ["/* note", "Unterminated comment: the code ends before it is closed", 1, 1],
      ['const s = "abc', "Unterminated string constant: the code ends before it is closed", 1, 11],
      [
        "const é = 'é' + (",
        'Unexpected end of the code: the "(" at line 1, column 17 is never closed',
        1,
        17,
      ],
    ];
    for (const [code, message, line, column] of cases) {
      const error = await failure(code);
      expect(error, code).toEqual({ name: "SyntaxError", message, line, column });
      const lines = code.split("\n");
      expect(column, code).toBeLessThanOrEqual(lines[line - 1]!.length);
      // The model never wrote the wrapper's closing brace.
      expect(error.message, code).not.toContain('"}"');
    }
  });

  it("rejects source that closes the wrapper function", async () => {
    expect((await failure("}\n{")).name).toBe("SyntaxError");
  });
});

describe("prepareCode: mapPosition", () => {
  it("maps a runtime error on line 7 back to line 7 of a program with type-only lines before it", async () => {
    const source = [
      "type Id = number;",
      "interface User {",
      "  id: Id;",
      "}",
      "const user: User = { id: 1 };",
      "",
      "throw new Error('no user ' + user.id);",
    ].join("\n");
    const code = await prepared(source);
    const at = await thrownAt(code);
    expect(at.line).toBeLessThan(7);
    expect(code.mapPosition(at.line, at.column)).toEqual({
      line: 7,
      column: source.split("\n")[6].indexOf("new") + 1,
    });
  });

  it("maps an error inside the rewritten last expression, undoing the inserted `return (`", async () => {
    const source = "type T = { a?: { b: number } };\nconst t: T = {};\n\nt.a!.b";
    const code = await prepared(source);
    const at = await thrownAt(code);
    const mapped = code.mapPosition(at.line, at.column);
    expect(mapped?.line).toBe(4);
    expect(mapped?.column).toBeGreaterThanOrEqual(1);
    expect(mapped?.column).toBeLessThanOrEqual("t.a!.b".length);
  });

  it("maps positions inside a fenced block to lines of the fenced code", async () => {
    const code = await prepared("Run this:\n```ts\nconst n: number = 1;\nnull!.x\n```");
    const at = await thrownAt(code);
    expect(code.mapPosition(at.line, at.column)?.line).toBe(2);
  });

  it("returns undefined for positions the model did not write", async () => {
    const code = await prepared("const a: number = 1;\na");
    expect(code.mapPosition(1, 1)).toBeUndefined();
    expect(code.mapPosition(999, 1)).toBeUndefined();
  });
});

describe("prepareCode: plain JavaScript skips esbuild", () => {
  const javascript = [
    "1 + 1",
    "const list = [1, 2, 3];\nlist.map((n) => n * 2)",
    "let n = 1;\nn = n + 1, n * 10",
    "const v = await Promise.resolve(7);\nv * 3",
    "if (true) return 'early';\n'late'",
    "if (true) { 3 }",
    "const x = 1;",
    "async () => {\n  const r = await Promise.resolve(5);\n  return r * 2;\n}",
    "(async function () { return 'expr'; })",
    "async function main() {\n  return 'decl';\n}",
    "",
    "// a comment only",
    "const o = { a: 1, b: [1, 2] }; // trailing comment\no",
    "class Box { x = 1; static #count = 2; static count() { return Box.#count; } }\n[new Box().x, Box.count()]",
    "let total = 0;\nfor (let i = 0; i < 4; i++) total += i;\ntotal",
    "'use strict';\nconst f = function () { return this; };\nf() === undefined",
    "var a = 1\nvar b = 2\na + b /* end */ ;",
    "const { a, ...rest } = { a: 1, b: 2, c: 3 };\n({ a, rest })",
    "label: for (const x of [1, 2]) { if (x) break label; }\n`t`.repeat(2)",
    "x => x",
  ];

  it.each(javascript)("gives the same result as esbuild for %j", async (source) => {
    const fast = await prepared(source);
    const slow = await prepareCode(source, { javascriptFastPath: false });
    if ("error" in slow) throw new Error(`esbuild failed: ${slow.error.message}`);
    expect(fast.via).toBe("javascript");
    expect(slow.via).toBe("esbuild");
    const result = async (js: string) =>
      new AsyncFunction(js)().then(
        (value) => ({ value: typeof value === "function" ? "function" : value }),
        (error: Error) => ({ error: `${error.name}: ${error.message}` }),
      );
    expect(await result(fast.js)).toEqual(await result(slow.js));
  });

  it("runs the code as written, so positions map one to one", async () => {
    const source = "const a = 1;\n\n  const b = a + 1; null.x;\n'unreached'";
    const code = await prepared(source);
    expect(code.via).toBe("javascript");
    const at = await thrownAt(code);
    // Line N of the source is line N + 1 of the body (the wrapper's line comes first), columns are equal.
    expect(at.line).toBe(4);
    expect(code.mapPosition(at.line, at.column)).toEqual({ line: 3, column: at.column });
    // The same place as esbuild's source map gives.
    const slow = (await prepareCode(source, { javascriptFastPath: false })) as PreparedCode;
    const slowAt = await thrownAt(slow);
    expect(slow.mapPosition(slowAt.line, slowAt.column)?.line).toBe(3);
    expect(code.mapPosition(1, 1)).toBeUndefined();
    expect(code.mapPosition(999, 1)).toBeUndefined();
  });

  it("maps an error inside the rewritten last expression to the model's column", async () => {
    const source = "const t = {};\nt.a.b";
    const code = await prepared(source);
    expect(code.via).toBe("javascript");
    const at = await thrownAt(code);
    const mapped = code.mapPosition(at.line, at.column);
    expect(mapped?.line).toBe(2);
    expect(mapped?.column).toBeGreaterThanOrEqual(1);
    expect(mapped?.column).toBeLessThanOrEqual("t.a.b".length);
  });

  it("sends TypeScript through esbuild", async () => {
    for (const source of [
      "const x: number = 1; x + 1",
      "interface A { a: number }\n1",
      "enum Color { Red }\nColor.Red",
      "const v = 1 as number;\nv",
      "```ts\nconst n: number = 2;\nn\n```",
    ]) {
      expect((await prepared(source)).via, source).toBe("esbuild");
    }
  });

  it("sends JavaScript that TypeScript reads as type arguments through esbuild", async () => {
    // In JavaScript `f<T>(x)` is `(f < T) > x`; in TypeScript it is a call of f with a type argument.
    const source = "const f = (x) => x * 2;\nconst T = 1;\nf<T>(21)";
    const code = await prepared(source);
    expect(code.via).toBe("esbuild");
    expect(await evaluate(source)).toBe(42);
    // Comparisons in one direction only stay on the fast path.
    expect((await prepared("let i = 0;\nwhile (i < 3) i++;\ni <= 3")).via).toBe("javascript");
    expect((await prepared("const s = 8 >> 1, t = 3 >= 2;\n[s, t]")).via).toBe("javascript");
  });

  it("sends syntax errors and imports through esbuild, with the same failures", async () => {
    for (const source of [
      "const a = 1;\nconst b = ;",
      "const a = 1;\nimport fs from 'node:fs';\nfs",
      "}\n{",
      "export const x = 1;",
    ]) {
      expect(await prepareCode(source)).toEqual(await prepareCode(source, { javascriptFastPath: false }));
    }
    // U+2028 would count as a line break for V8 and esbuild but not here: it is escaped first.
    expect((await prepared("const s = 'a\u2028b';\ns.length")).js).toContain("'a\\u2028b'");
  });
});

describe("prepareCode: hostile and odd sources", () => {
  it("refuses code longer than MAX_CODE_CHARS as a limit (CodeTooLong), not a syntax error, with a message saying the limit", async () => {
    const result = await prepareCode(`// ${"x".repeat(MAX_CODE_CHARS)}`);
    expect(result).toMatchObject({ status: "limit", error: { name: "CodeTooLong" } });
    expect("error" in result && result.error.message).toMatch(/at most 100,000/);
  });

  it("refuses nesting deeper than MAX_CODE_NESTING before esbuild sees it, and esbuild keeps working", async () => {
    for (const source of [
      `const x: number = ${"(".repeat(90_000)}1`,
      `const x: number = 1;\n${"!".repeat(80_000)}x`,
      `[${"[".repeat(1_000)}]`,
    ]) {
      const result = await prepareCode(source);
      expect("error" in result && result.error.message).toMatch(/nested more than/);
    }
    expect((await prepared("const n: number = 2;\nn * 21")).via).toBe("esbuild");
  });

  it("measures nesting on tokens: closers in a comment do not hide deep nesting after it", async () => {
    const source = `/* ${")]}".repeat(20_000)} */\nconst x: number = 1;\n${"{".repeat(12_000)}${"}".repeat(12_000)}`;
    expect((await failure(source)).message).toMatch(/nested more than 200 levels/);
  });

  it("counts a run of prefix operators separated by any whitespace, vertical tabs included", async () => {
    const source = `const x: number = 1;\n${"!\v".repeat(40_000)}x`;
    expect((await failure(source)).message).toMatch(/nested more than 200 levels/);
  });

  it("reads a slash after TypeScript's non-null assertion as division, so nesting after it counts", async () => {
    const source = `declare const x: any;\nx! / ${"( /* ) */ ".repeat(7_000)} 1 ${")".repeat(7_000)} / 1`;
    expect((await failure(source)).message).toMatch(/nested more than 200 levels/);
  });

  it("does not count brackets inside strings, comments and regular expressions", async () => {
    const source = `const s: string = "${"(".repeat(300)}"; // ${"[".repeat(300)}\nconst r = /${"\\{".repeat(300)}/;\ns.length`;
    expect(await evaluate(source)).toBe(300);
  });

  it("reads code with decorators (TypeScript only) on tokens too", async () => {
    const source = `const dec = (t: unknown) => t;\n@dec class A {}\n${"{".repeat(300)}${"}".repeat(300)}`;
    expect((await failure(source)).message).toMatch(/nested more than 200 levels/);
  });

  it("gives esbuild a deadline: a transpile that takes longer fails that run with a clear message", async () => {
    const source = "const a: number = 1;\n".repeat(4_000);
    const result = await prepareCode(source, { javascriptFastPath: false, timeoutMs: 1 });
    expect("error" in result && result.error.message).toMatch(/took longer than 1 ms, so it was not run/);
    expect((await prepared("const n: number = 2;\nn * 21")).via).toBe("esbuild");
  });

  it("recovers when esbuild's service process dies: the next run is transpiled by a new one", async () => {
    expect((await prepared("const n: number = 1;\nn")).via).toBe("esbuild");
    const service = esbuildServicePid();
    expect(service).toBeDefined();
    process.kill(service!, "SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await evaluate("const n: number = 2;\nn * 21")).toBe(42);
    expect(esbuildServicePid()).not.toBe(service);
  });

  it("takes the fenced block even after a word that would parse as JavaScript", async () => {
    for (const prose of ["Code:", "Solution"]) {
      expect(await evaluate(`${prose}\n\`\`\`ts\nconst n: number = 41;\nn + 1\n\`\`\``)).toBe(42);
    }
  });

  it("keeps error lines right after a U+2028 in TypeScript", async () => {
    const code = await prepared("const s: string = 'a\u2028b';\nconst t: string = s;\n(null as any).x");
    const at = await thrownAt(code);
    expect(code.mapPosition(at.line, at.column)?.line).toBe(3);
  });
});
