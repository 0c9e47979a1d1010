/** Learnt result types: inferred from returned values, merged sample by sample, bounded. */

import ts from "typescript";
import { describe, expect, it } from "vitest";
import {
  MAX_OBSERVED_DEPTH,
  MAX_OBSERVED_KEYS,
  MAX_OBSERVED_PROPERTIES,
  MAX_OBSERVED_TYPE_CHARS,
  mergeObservedTypes,
  type ObservedType,
  observe,
  observeValue,
  renderObservedType,
} from "../../../src/codemode/observed/types.js";

/** The rendered type after observing each value in turn. */
function learnt(...values: unknown[]): string {
  let type: ObservedType | undefined;
  for (const value of values) type = observe(type, value);
  return renderObservedType(type!);
}

describe("observed result types", () => {
  it("types primitives, null, arrays and nested objects", () => {
    expect(learnt("a")).toBe("string");
    expect(learnt(1.5)).toBe("number");
    expect(learnt(true)).toBe("boolean");
    expect(learnt(null)).toBe("null");
    expect(learnt([])).toBe("unknown[]");
    expect(learnt({ id: "A1", total: 12, paid: false, owner: { login: "ada" }, tags: ["x"] })).toBe(
      "{ id: string; total: number; paid: boolean; owner: { login: string }; tags: string[] }",
    );
  });

  it("makes a key optional when some samples lack it, and unions the kinds seen", () => {
    expect(learnt({ id: 1, note: "x" }, { id: 2 })).toBe("{ id: number; note?: string }");
    expect(learnt({ id: 1 }, { id: 2, note: null })).toBe("{ id: number; note?: null }");
    expect(learnt({ due: "2026-01-01" }, { due: null })).toBe("{ due: string | null }");
    expect(learnt(1, "one")).toBe("string | number");
  });

  it("merges the elements of an array, and the arrays of several samples", () => {
    expect(learnt([{ a: 1 }, { a: 2, b: "x" }])).toBe("{ a: number; b?: string }[]");
    expect(learnt([], [1, 2])).toBe("number[]");
    expect(learnt([1, "x"])).toBe("(string | number)[]");
    expect(learnt([{ a: 1 }, null])).toBe("({ a: number } | null)[]");
  });

  it("quotes keys that are not identifiers and treats an undefined value as absent", () => {
    expect(learnt({ "content-type": "x", ok: undefined })).toBe('{ "content-type": string }');
  });

  it("a learnt key with U+2028, RLO, ESC or a comment end renders escaped: no raw line break, bidi or control character reaches the prompt, and the type is still TypeScript naming the same keys", () => {
    const keys = [
      "line\u2028 * @deprecated forged",
      "para\u2029graph",
      "\u202Egnp.exe",
      "iso\u2066late\u2069",
      "mark\u200E\u200F\u061C",
      "\u001B[31mred",
      "c1\u0085\u009B",
      "del\u007F",
      "zero\u200Bwidth",
      "end */ of comment",
    ];
    const type = learnt(Object.fromEntries(keys.map((key) => [key, 1])));
    // Controls (C0, DEL, C1), format characters (bidi, zero width, U+061C) and the two separators.
    expect(type).not.toMatch(/[\p{Cc}\p{Cf}\u2028\u2029]/u);
    expect(type).not.toContain("*/");
    expect(type).toContain('"line\\u2028 * @deprecated forged"');
    expect(type).toContain('"\\u202Egnp.exe"');
    expect(type).toContain('"\\u001b[31mred"');
    const source = ts.createSourceFile("type.ts", `type T = ${type};`, ts.ScriptTarget.ES2022);
    const diagnostics = (source as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics;
    expect(diagnostics).toEqual([]);
    const literal = (source.statements[0] as ts.TypeAliasDeclaration).type as ts.TypeLiteralNode;
    expect(literal.members.map((member) => (member.name as ts.StringLiteral).text)).toEqual(keys);
  });

  it("widens to unknown past the union width and the depth", () => {
    expect(learnt(1, "one", true, null)).toBe("unknown");
    let deep: unknown = "leaf";
    for (let i = 0; i < MAX_OBSERVED_DEPTH + 2; i++) deep = { next: deep };
    expect(learnt(deep)).toBe("{ next: { next: { next: { next: unknown } } } }");
    expect(learnt(() => 1)).toBe("unknown");
    expect(learnt(new Map([["a", 1]]))).toBe("unknown");
    // A date reaches the code as its JSON, an ISO string.
    expect(learnt(new Date(0))).toBe("string");
  });

  it("widens an object with too many keys, or too long a key, to a record", () => {
    const wide = Object.fromEntries(Array.from({ length: MAX_OBSERVED_KEYS + 1 }, (_, i) => [`k${i}`, i]));
    expect(learnt({ wide })).toBe("{ wide: Record<string, unknown> }");
    const half = Object.fromEntries(Array.from({ length: MAX_OBSERVED_KEYS }, (_, i) => [`a${i}`, i]));
    const other = Object.fromEntries(Array.from({ length: MAX_OBSERVED_KEYS }, (_, i) => [`b${i}`, i]));
    expect(learnt(half, other)).toBe("Record<string, unknown>");
    expect(learnt({ ["x".repeat(100)]: 1 })).toBe("Record<string, unknown>");
  });

  it("holds at most MAX_OBSERVED_PROPERTIES keys in all, widening the deepest objects first", () => {
    const row = Object.fromEntries(
      Array.from({ length: 22 }, (_, i) => [`f${i}`, { x: 1, y: 2, z: { w: 1, v: 2 } }]),
    );
    const type = observeValue(row);
    const count = (t: ObservedType): number =>
      (t.object?.properties ?? []).reduce((sum, p) => sum + 1 + count(p.type), 0) +
      (t.array?.element ? count(t.array.element) : 0);
    expect(count(type)).toBeLessThanOrEqual(MAX_OBSERVED_PROPERTIES);
    const field = type.object?.properties[0]?.type.object;
    expect(field?.properties.map((p) => p.key)).toEqual(["x", "y", "z"]);
    expect(field?.properties[2]?.type.object?.record).toBe(true);
  });

  it("renders at most MAX_OBSERVED_TYPE_CHARS characters, cutting depth first", () => {
    const item = Object.fromEntries(
      Array.from({ length: 16 }, (_, i) => [`property_number_${i}`, { name: "x", size: 1 }]),
    );
    const text = renderObservedType(observeValue({ items: [item] }));
    expect(text.length).toBeLessThanOrEqual(MAX_OBSERVED_TYPE_CHARS);
    expect(text).toMatch(
      /^\{ items: \{ property_number_0: unknown; .* property_number_15: unknown \}\[\] \}$/,
    );
  });

  it("looks at a bounded number of values of a huge result, quickly the same type", () => {
    const rows = Array.from({ length: 100_000 }, (_, i) => ({ id: i, name: `n${i}` }));
    expect(learnt(rows)).toBe("{ id: number; name: string }[]");
  });

  it("does not change the types it merges", () => {
    const a = observeValue({ id: 1 });
    const b = observeValue({ id: "x", extra: true });
    const before = JSON.stringify([a, b]);
    mergeObservedTypes(a, b);
    expect(JSON.stringify([a, b])).toBe(before);
    expect(JSON.parse(JSON.stringify(a))).toEqual(a);
  });
});
