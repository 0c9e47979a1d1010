import { afterEach, describe, expect, it } from "vitest";
import {
  MAX_ARGUMENT_CHARS,
  MAX_ARGUMENT_DEPTH,
  parseArguments,
  repairJson,
} from "../../src/tools/arguments.js";

function issueMessage(raw: Parameters<typeof parseArguments>[0]): string {
  const result = parseArguments(raw);
  if (result.ok) throw new Error("expected a failure");
  return result.issues.map((i) => `${i.path}: ${i.message}`).join("\n");
}

describe("parseArguments: well-formed input", () => {
  it("parses a JSON object string", () => {
    expect(parseArguments('{"a": 1, "b": [true, null]}')).toEqual({
      ok: true,
      value: { a: 1, b: [true, null] },
      repaired: false,
    });
  });

  it("treats an empty string, whitespace or undefined as no arguments", () => {
    expect(parseArguments("")).toEqual({ ok: true, value: {}, repaired: false });
    expect(parseArguments("  \n")).toEqual({ ok: true, value: {}, repaired: false });
    expect(parseArguments(undefined)).toEqual({ ok: true, value: {}, repaired: false });
  });

  it("accepts an object a provider already parsed, as it is", () => {
    const args = { a: { b: [1] } };
    const result = parseArguments(args);
    expect(result).toEqual({ ok: true, value: args, repaired: false });
    expect(result.ok && result.value).toBe(args);
  });
});

describe("parseArguments: safe repairs", () => {
  it("strips a markdown code fence around the JSON", () => {
    expect(parseArguments('```json\n{"a": 1}\n```')).toEqual({ ok: true, value: { a: 1 }, repaired: true });
    expect(parseArguments('```\n{"a": 1}\n```')).toEqual({ ok: true, value: { a: 1 }, repaired: true });
  });

  it("strips a fence whose language tag, spaces or line breaks vary, as before", () => {
    const ok = (value: unknown) => ({ ok: true, value, repaired: true });
    expect(parseArguments('```{"a": 1}```')).toEqual(ok({ a: 1 }));
    expect(parseArguments('  ```json  {"a": 1}```  \n')).toEqual(ok({ a: 1 }));
    expect(parseArguments('```JSON-5 \t\r\n{"a": [1,]}\r\n```')).toEqual(ok({ a: [1] }));
    expect(repairJson("```json\n\n{}\n\n```")).toBe("\n{}\n");
    expect(repairJson("```\n```")).toBe("");
    expect(repairJson("````")).toBe("````");
    expect(repairJson("```json\n{}")).toBe("```json\n{}");
  });

  it("handles a 1 MB fence opening followed by whitespace (no quadratic backtracking)", () => {
    const filler = 999_000;
    expect(issueMessage(`\`\`\`${" ".repeat(filler)}`)).toMatch(/not valid JSON/);
    expect(issueMessage(`\`\`\`json${" ".repeat(filler)}x`)).toMatch(/not valid JSON/);
    expect(issueMessage(`\`\`\`\n${"\n".repeat(filler)}{`)).toMatch(/not valid JSON/);
    const big = `\`\`\`json${" ".repeat(filler)}\n{"a": 1}\n\`\`\``;
    expect(big.length).toBeLessThanOrEqual(MAX_ARGUMENT_CHARS);
    expect(parseArguments(big)).toEqual({ ok: true, value: { a: 1 }, repaired: true });
  });

  it("removes trailing commas before } and ]", () => {
    expect(parseArguments('{"a": [1, 2, ], "b": {"c": 1,},}')).toEqual({
      ok: true,
      value: { a: [1, 2], b: { c: 1 } },
      repaired: true,
    });
  });

  it("replaces unquoted Python True/False/None, never inside strings", () => {
    expect(parseArguments('{"a": True, "b": False, "c": None, "d": "True, None,}"}')).toEqual({
      ok: true,
      value: { a: true, b: false, c: null, d: "True, None,}" },
      repaired: true,
    });
  });

  it("leaves escaped quotes inside strings alone while repairing", () => {
    expect(repairJson('{"a": "say \\"True\\",]", "b": True,}')).toBe('{"a": "say \\"True\\",]", "b": true}');
  });

  it("does not guess anything else (single quotes, unquoted keys)", () => {
    expect(issueMessage("{'a': 1}")).toMatch(/not valid JSON/);
    expect(issueMessage("{a: 1}")).toMatch(/not valid JSON/);
    expect(issueMessage('{"a": Truely}')).toMatch(/not valid JSON/);
  });
});

describe("parseArguments: hostile and wrong input", () => {
  afterEach(() => {
    // Nothing a test parsed may have reached the shared prototype.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("polluted");
  });

  it("reports non-JSON text", () => {
    expect(issueMessage("get the order please")).toMatch(/^: the arguments are not valid JSON/);
  });

  it("requires a plain object, not an array, null, a string or a number", () => {
    expect(issueMessage("[1, 2]")).toMatch(/must be a JSON object.*got an array \[1,2\]/);
    expect(issueMessage("null")).toMatch(/must be a JSON object.*got null/);
    expect(issueMessage('"text"')).toMatch(/got string "text"/);
    expect(issueMessage("42")).toMatch(/got number 42/);
    expect(issueMessage(null as unknown as string)).toMatch(/got null/);
    expect(issueMessage([1] as unknown as object)).toMatch(/got an array/);
    expect(issueMessage(42 as unknown as string)).toMatch(/got number/);
  });

  it("refuses a string longer than MAX_ARGUMENT_CHARS (2 MB)", () => {
    const huge = `{"a": "${"x".repeat(2_000_000)}"}`;
    expect(issueMessage(huge)).toMatch(new RegExp(`more than the limit of ${MAX_ARGUMENT_CHARS}`));
  });

  it("refuses 10,000 levels of nesting with a clear message", () => {
    const deep = `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`;
    expect(issueMessage(deep)).toMatch(new RegExp(`nest deeper than ${MAX_ARGUMENT_DEPTH} levels`));
    const deepArray = `{"a":${"[".repeat(10_000)}${"]".repeat(10_000)}}`;
    expect(issueMessage(deepArray)).toMatch(/nest deeper/);
  });

  it("accepts nesting up to the limit", () => {
    const ok = `${'{"a":'.repeat(MAX_ARGUMENT_DEPTH)}1${"}".repeat(MAX_ARGUMENT_DEPTH)}`;
    expect(parseArguments(ok).ok).toBe(true);
  });

  it("refuses a cyclic object without looping forever", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(issueMessage(cyclic)).toMatch(/nest deeper/);
  });

  it("refuses __proto__ keys anywhere and pollutes no prototype", () => {
    expect(issueMessage('{"__proto__": {"polluted": true}}')).toBe(
      '__proto__: "__proto__" is not allowed as a key (it could change object prototypes). Rename the field.',
    );
    expect(issueMessage('{"a": [{"b": {"__proto__": {"polluted": 1}}}]}')).toMatch(/^a\[0\]\.b\.__proto__: /);
    const parsed = JSON.parse('{"x": {"__proto__": {"polluted": true}}}') as object;
    expect(issueMessage(parsed)).toMatch(/^x\.__proto__/);
  });

  it("never throws, even for an object whose getters throw", () => {
    const trap = {
      get boom(): never {
        throw new Error("trap");
      },
    };
    Object.defineProperty(trap, "boom", { enumerable: true });
    expect(issueMessage(trap)).toMatch(/could not be read: trap/);
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    expect(parseArguments(revoked.proxy).ok).toBe(false);
  });
});
