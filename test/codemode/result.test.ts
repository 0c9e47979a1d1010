import { describe, expect, it } from "vitest";
import type { LogEntry } from "../../sandbox/contract/index.js";
import { type CodeRunResult, compactJson, renderCodeRunResult } from "../../src/codemode/result.js";

function run(overrides: Partial<CodeRunResult> = {}): CodeRunResult {
  return { status: "ok", value: undefined, logs: [], calls: [], durationMs: 12, ...overrides };
}

/** The JSON text of the value inside a rendering (on the `result:` line or the line after the note). */
function embeddedValue(text: string): { json: string; shortened: boolean } {
  const lines = text.split("\n");
  const index = lines.findIndex((line) => line.startsWith("result"));
  const line = lines[index];
  if (line.startsWith("result: ")) return { json: line.slice("result: ".length), shortened: false };
  return { json: lines[index + 1], shortened: line.includes("shortened") };
}

function deepObject(levels: number): unknown {
  let value: unknown = { leaf: true };
  for (let i = 0; i < levels; i++) value = { level: i, child: value };
  return value;
}

const hugeValues: Record<string, unknown> = {
  "a huge array": Array.from({ length: 100_000 }, (_, i) => ({ id: i, name: `item ${i}`, tags: ["a", "b"] })),
  "a huge string": "x".repeat(1_000_000),
  "a deep object": deepObject(3000),
  "a wide object": Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`key${i}`, i])),
  "nested long strings": { rows: Array.from({ length: 50 }, () => ({ text: "é😀".repeat(5000) })) },
};

describe("renderCodeRunResult: contents", () => {
  it("shows the status, the duration, the tool calls and the value as JSON", () => {
    const text = renderCodeRunResult(
      run({
        value: { total: 3, names: ["a", "b"] },
        durationMs: 41.6,
        calls: [
          { callId: "1", tool: "search", status: "ok", durationMs: 5 },
          { callId: "2", tool: "search", status: "ok", durationMs: 5 },
          { callId: "3", tool: "delete_file", status: "denied", durationMs: 1 },
        ],
      }),
      1000,
    );
    expect(text).toBe(
      'status: ok in 42 ms; tool calls: 2 ok, 1 denied (delete_file)\nresult: {"total":3,"names":["a","b"]}',
    );
  });

  it("says when the code returned no value", () => {
    expect(renderCodeRunResult(run(), 1000)).toContain("result: none");
  });

  it("renders an error as `Error: <name>: <message> (line L, column C)` without a value", () => {
    const text = renderCodeRunResult(
      run({
        status: "error",
        error: { name: "TypeError", message: "x is not a function", line: 3, column: 5 },
      }),
      1000,
    );
    expect(text).toBe(
      "status: error in 12 ms; no tool calls\nError: TypeError: x is not a function (line 3, column 5)",
    );
  });

  it("names the tool and the kind of a failed tool call", () => {
    const error = {
      name: "ToolCallError",
      message: "not allowed",
      tool: "delete_file",
      kind: "denied",
      line: 2,
    };
    expect(renderCodeRunResult(run({ status: "error", error }), 1000)).toContain(
      "Error: ToolCallError: not allowed [tool delete_file, denied] (line 2)",
    );
  });

  it("explains a timeout that came without an error", () => {
    expect(renderCodeRunResult(run({ status: "timeout" }), 1000)).toContain("time limit");
  });

  it("prefixes console lines with their level, except plain logs", () => {
    const logs: LogEntry[] = [
      { level: "log", text: "hello" },
      { level: "warn", text: "careful" },
      { level: "error", text: "bad" },
    ];
    expect(renderCodeRunResult(run({ logs, value: 1 }), 1000)).toContain(
      "console:\nhello\n[warn] careful\n[error] bad",
    );
  });

  it("says how many console lines the sandbox dropped", () => {
    const text = renderCodeRunResult(run({ logs: [{ level: "log", text: "a" }], logsDropped: 7 }), 1000);
    expect(text).toContain("7 more console lines dropped");
  });
});

describe("renderCodeRunResult: fitting maxChars with valid JSON", () => {
  for (const [name, value] of Object.entries(hugeValues)) {
    it(`fits maxChars and keeps the embedded JSON valid for ${name}`, () => {
      for (const maxChars of [300, 1000, 5000, 20_000]) {
        const text = renderCodeRunResult(run({ value }), maxChars);
        expect(text.length).toBeLessThanOrEqual(maxChars);
        const embedded = embeddedValue(text);
        expect(embedded.shortened).toBe(true);
        expect(() => JSON.parse(embedded.json)).not.toThrow();
      }
    });
  }

  it("cuts a long string inside the string, saying how many characters were cut", () => {
    const json = embeddedValue(renderCodeRunResult(run({ value: "x".repeat(10_000) }), 500)).json;
    expect(JSON.parse(json)).toMatch(/^x+…\[\d+ chars cut\]$/);
  });

  it("cuts a long array to its first items plus a marker element", () => {
    const value = Array.from({ length: 1000 }, (_, i) => i);
    const parsed: unknown[] = JSON.parse(embeddedValue(renderCodeRunResult(run({ value }), 400)).json);
    expect(parsed[0]).toBe(0);
    expect(parsed.at(-1)).toMatch(/^…\[\d+ more items\]$/);
    const kept = parsed.length - 1;
    expect(parsed.at(-1)).toBe(`…[${1000 - kept} more items]`);
  });

  it("cuts an object's keys with a marker entry and deep nesting with a summary", () => {
    const wide = JSON.parse(
      embeddedValue(renderCodeRunResult(run({ value: hugeValues["a wide object"] }), 400)).json,
    );
    expect(wide["…"]).toMatch(/^\[\d+ more keys\]$/);
    const deep = embeddedValue(renderCodeRunResult(run({ value: deepObject(500) }), 600)).json;
    expect(deep).toMatch(/…\[object with 2 keys\]/);
  });

  it("keeps the value whole when it fits", () => {
    const value = { list: [1, 2, 3] };
    expect(embeddedValue(renderCodeRunResult(run({ value }), 200))).toEqual({
      json: JSON.stringify(value),
      shortened: false,
    });
  });

  it("keeps both value and console output within maxChars", () => {
    const logs: LogEntry[] = Array.from({ length: 2000 }, (_, i) => ({ level: "log", text: `line ${i}` }));
    const text = renderCodeRunResult(run({ value: hugeValues["a huge array"], logs }), 3000);
    expect(text.length).toBeLessThanOrEqual(3000);
    expect(() => JSON.parse(embeddedValue(text).json)).not.toThrow();
    expect(text).toContain("console:\nline 0\n");
  });

  it("never exceeds tiny or odd limits", () => {
    for (const maxChars of [0, 5, 40, 80, Number.NaN, -3]) {
      const text = renderCodeRunResult(run({ value: hugeValues["a huge array"] }), maxChars);
      expect(text.length).toBeLessThanOrEqual(Math.max(0, Number.isNaN(maxChars) ? 0 : maxChars));
    }
  });
});

describe("renderCodeRunResult: console output", () => {
  const logs: LogEntry[] = Array.from({ length: 1000 }, (_, i) => ({
    level: i === 500 ? "error" : i === 600 ? "warn" : "log",
    text: `line ${i}`,
  }));

  it("cuts logs from the middle with a marker, keeping the start and the end", () => {
    const text = renderCodeRunResult(run({ logs }), 1000);
    expect(text.length).toBeLessThanOrEqual(1000);
    expect(text).toContain("console:\nline 0\nline 1\n");
    expect(text).toMatch(/line 999$/);
    expect(text).toMatch(/…\[\d+ console lines cut\]…/);
  });

  it("keeps errors and warnings in preference", () => {
    const text = renderCodeRunResult(run({ logs }), 600);
    expect(text).toContain("[error] line 500");
    expect(text).toContain("[warn] line 600");
    expect(text).not.toContain("line 450\n");
  });

  it("cuts one enormous console line in its middle", () => {
    const text = renderCodeRunResult(run({ logs: [{ level: "log", text: "y".repeat(50_000) }] }), 800);
    expect(text.length).toBeLessThanOrEqual(800);
    expect(text).toMatch(/y…\[\d+ chars cut\]…y/);
  });
});

describe("compactJson", () => {
  it("returns the plain JSON when it fits", () => {
    expect(compactJson({ a: [1, "b"] }, 100)).toEqual({ json: '{"a":[1,"b"]}', shortened: false });
  });

  it("returns undefined for a value without a JSON form", () => {
    expect(compactJson(undefined, 100)).toBeUndefined();
  });

  it("never throws on cycles, BigInts or throwing getters", () => {
    const cyclic: Record<string, unknown> = { n: 1n };
    cyclic.self = cyclic;
    Object.defineProperty(cyclic, "bad", {
      enumerable: true,
      get() {
        throw new Error("no");
      },
    });
    const result = compactJson(cyclic, 200);
    expect(JSON.parse(result?.json ?? "")).toEqual({ n: "1", self: "…[circular]", bad: "…[unreadable]" });
    expect(() => renderCodeRunResult(run({ value: cyclic }), 200)).not.toThrow();
  });

  it("never splits a surrogate pair when cutting a string", () => {
    const json = compactJson("😀".repeat(1000), 100)?.json ?? "";
    expect(json.length).toBeLessThanOrEqual(100);
    expect(JSON.parse(json)).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });
});

describe("compactJson: hostile values", () => {
  it("keeps a __proto__ key of the value in the shortened JSON", () => {
    const value = JSON.parse(`{"__proto__": {"admin": true}, "items": ${JSON.stringify("x".repeat(500))}}`);
    const compact = compactJson(value, 200);
    expect(compact?.shortened).toBe(true);
    const parsed = JSON.parse(compact!.json) as object;
    expect(Object.getOwnPropertyDescriptor(parsed, "__proto__")?.value).toEqual({ admin: true });
  });

  it("shrinks a huge tree with one pass over it plus work in proportion to the budget", () => {
    let reads = 0;
    const node = (depth: number): unknown =>
      depth === 0
        ? 0
        : new Proxy([node(depth - 1), node(depth - 1), node(depth - 1)], {
            get(target, key, receiver) {
              reads++;
              return Reflect.get(target, key, receiver);
            },
          });
    // 3^11 = 177,147 leaves: shrinking it whole on every rung of the ladder took seconds.
    const tree = [node(11), node(10), node(10)];
    reads = 0;
    JSON.stringify(tree);
    const onePass = reads;
    reads = 0;
    const compact = compactJson(tree, 1_000);
    expect(compact?.shortened).toBe(true);
    expect(compact!.json.length).toBeLessThanOrEqual(1_000);
    // Before the budget, every rung of the shrinking ladder walked the whole tree (dozens of passes).
    expect(reads).toBeLessThan(onePass + 100_000);
  });
});
