/** The store of learnt result types: sampling, bounds, and its JSON out and back in. */

import { describe, expect, it } from "vitest";
import {
  MAX_OBSERVED_TOOLS,
  OBSERVE_EVERY_NTH_RESULT,
  OBSERVE_FIRST_RESULTS,
} from "../../../src/codemode/observed/store.js";
import {
  MAX_OBSERVED_KEYS,
  MAX_OBSERVED_PROPERTIES,
  MAX_OBSERVED_TYPE_CHARS,
} from "../../../src/codemode/observed/types.js";
import { renderObservedType } from "../../../src/entries/discovery.js";
import { ObservedTypes, UserError } from "../../../src/index.js";

const rendered = (store: ObservedTypes, tool: string) => {
  const type = store.typeOf(tool);
  return type && renderObservedType(type);
};

describe("ObservedTypes.record", () => {
  it("merges each result into the tool's type: a key missing from one result is optional", () => {
    const store = new ObservedTypes();
    store.record("get_user", { id: 1, name: "Ada", tags: ["x"] });
    store.record("get_user", { id: 2, name: "Grace" });
    expect(rendered(store, "get_user")).toBe("{ id: number; name: string; tags?: string[] }");
    expect(store.resultsOf("get_user")).toBe(2);
    expect(store.tools()).toEqual(["get_user"]);
    expect(store.typeOf("other")).toBeUndefined();
  });

  it("records a value as the code receives it: undefined is null, a date its ISO string", () => {
    const store = new ObservedTypes();
    store.record("nothing", undefined);
    store.record("dated", { at: new Date(0) });
    expect(rendered(store, "nothing")).toBe("null");
    expect(rendered(store, "dated")).toBe("{ at: string }");
  });

  it("a value whose getter throws is unknown, and the store goes on", () => {
    const store = new ObservedTypes();
    const hostile = Object.defineProperty({}, "boom", {
      enumerable: true,
      get() {
        throw new Error("no");
      },
    });
    expect(() => store.record("odd", hostile)).not.toThrow();
    expect(rendered(store, "odd")).toBe("unknown");
    store.record("odd", { fine: 1 });
    expect(rendered(store, "odd")).toBe("unknown");
  });

  it(`observes every one of a tool's first ${OBSERVE_FIRST_RESULTS} results, then one in ${OBSERVE_EVERY_NTH_RESULT}`, () => {
    const store = new ObservedTypes();
    for (let i = 0; i < OBSERVE_FIRST_RESULTS; i++) store.record("t", { n: 1 });
    const changesAfterFirst = store.changes;
    expect(changesAfterFirst).toBe(OBSERVE_FIRST_RESULTS);
    // The results between two sampled ones are counted, not observed: a new key there is not seen.
    let results = OBSERVE_FIRST_RESULTS;
    while ((results + 1) % OBSERVE_EVERY_NTH_RESULT !== 0) {
      store.record("t", { n: 1, skipped: true });
      results++;
    }
    expect(store.changes).toBe(changesAfterFirst);
    expect(rendered(store, "t")).toBe("{ n: number }");
    store.record("t", { n: 1, sampled: "yes" });
    expect(store.changes).toBe(changesAfterFirst + 1);
    expect(rendered(store, "t")).toBe("{ n: number; sampled?: string }");
    expect(store.resultsOf("t")).toBe(results + 1);
  });

  it(`keeps at most ${MAX_OBSERVED_TOOLS} tools, dropping the one observed least recently`, () => {
    const store = new ObservedTypes();
    for (let i = 0; i <= MAX_OBSERVED_TOOLS; i++) {
      store.record(`tool_${i}`, i);
      // tool_0 stays recent: it is observed again each time.
      if (i > 0) store.record("tool_0", 0);
    }
    expect(store.tools()).toHaveLength(MAX_OBSERVED_TOOLS);
    expect(store.typeOf("tool_0")).toBeDefined();
    expect(store.typeOf("tool_1")).toBeUndefined();
    expect(store.typeOf(`tool_${MAX_OBSERVED_TOOLS}`)).toBeDefined();
  });

  it("keeps a huge, deep or ever-changing result bounded", () => {
    const store = new ObservedTypes();
    const deep = (depth: number): unknown => (depth === 0 ? "leaf" : { next: deep(depth - 1), list: [1] });
    const wide = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`key${i}`, { i }]));
    const listing = Array.from({ length: 100_000 }, (_, i) => ({ id: i, name: `n${i}` }));
    store.record("deep", deep(1_000));
    store.record("wide", wide);
    store.record("listing", listing);
    // Sampled results with a new key each, more of them than an object keeps keys.
    const changing = OBSERVE_FIRST_RESULTS + MAX_OBSERVED_KEYS * OBSERVE_EVERY_NTH_RESULT;
    for (let i = 0; i < changing; i++) store.record("changing", { [`key_${i}`]: { [`inner_${i}`]: i } });
    for (const tool of ["deep", "wide", "listing", "changing"]) {
      expect(rendered(store, tool)!.length, tool).toBeLessThanOrEqual(MAX_OBSERVED_TYPE_CHARS);
    }
    expect(rendered(store, "wide")).toBe("Record<string, unknown>");
    expect(rendered(store, "listing")).toBe("{ id: number; name: string }[]");
    expect(rendered(store, "deep")).toMatch(/unknown/);
    // More keys over time than an object keeps: it widens instead of growing.
    expect(rendered(store, "changing")).toBe("Record<string, unknown>");
    expect(JSON.stringify(store).length).toBeLessThan(10_000);
  });

  it("refuses a tool name that is not a name, with what it takes", () => {
    const store = new ObservedTypes();
    expect(() => store.record("", 1)).toThrow(UserError);
    expect(() => store.record(42 as unknown as string, 1)).toThrow(/tool must be a tool's name/);
  });
});

describe("ObservedTypes JSON", () => {
  it("round-trips: the types, the counts, and the sampling going on where it was", () => {
    const store = new ObservedTypes();
    for (let i = 0; i < 25; i++)
      store.record("list_notes", [{ id: i, text: "t", done: i % 2 === 0 || null }]);
    store.record("now", "2026-01-01");
    const saved = JSON.parse(JSON.stringify(store));
    const back = ObservedTypes.fromJSON(saved);
    expect(back.tools()).toEqual(store.tools());
    expect(back.typeOf("list_notes")).toEqual(store.typeOf("list_notes"));
    expect(rendered(back, "list_notes")).toBe("{ id: number; text: string; done: boolean | null }[]");
    expect(back.resultsOf("list_notes")).toBe(25);
    expect(JSON.stringify(back)).toBe(JSON.stringify(store));
    // The 30th result is a sampled one, in the copy as in the original.
    for (let i = 0; i < 5; i++) back.record("list_notes", [{ id: 1, text: "t", done: true, extra: 1 }]);
    expect(rendered(back, "list_notes")).toContain("extra?: number");
  });

  it("keeps a tool named __proto__ as a tool", () => {
    const store = new ObservedTypes();
    store.record("__proto__", { a: 1 });
    const back = ObservedTypes.fromJSON(JSON.parse(JSON.stringify(store)));
    expect(rendered(back, "__proto__")).toBe("{ a: number }");
  });

  const valid = () => ({
    format: "cordon-observed-types",
    version: 1,
    tools: {
      t: {
        results: 1,
        type: { object: { samples: 1, properties: [{ key: "a", type: { string: true }, seen: 1 }] } },
      },
    },
  });

  it.each([
    ["not an object", "[]", /no "format": "cordon-observed-types"/],
    ["another format", { ...valid(), format: "other" }, /no "format"/],
    ["another version", { ...valid(), version: 9 }, /version is 9; this cordon reads version 1/],
    ["tools not an object", { ...valid(), tools: [] }, /"tools" is not an object/],
    [
      "a count that is not one",
      { ...valid(), tools: { t: { results: -1, type: { string: true } } } },
      /tools\["t"\] must be/,
    ],
    [
      "an unknown field",
      { ...valid(), tools: { t: { results: 1, type: { strnig: true } } } },
      /tools\["t"\]\.type has an unknown field "strnig"/,
    ],
    [
      "a flag that is not true",
      { ...valid(), tools: { t: { results: 1, type: { string: 1 } } } },
      /type\.string must be true/,
    ],
    ["no kind at all", { ...valid(), tools: { t: { results: 1, type: {} } } }, /names no kind of value/],
    [
      "too wide a union",
      {
        ...valid(),
        tools: { t: { results: 1, type: { string: true, number: true, boolean: true, null: true } } },
      },
      /4 kinds of value; an observed type has at most 3/,
    ],
    [
      "seen more often than sampled",
      {
        ...valid(),
        tools: {
          t: {
            results: 1,
            type: { object: { samples: 1, properties: [{ key: "a", type: { string: true }, seen: 2 }] } },
          },
        },
      },
      /seen is more than the object's 1 samples/,
    ],
    [
      "a key twice",
      {
        ...valid(),
        tools: {
          t: {
            results: 1,
            type: {
              object: {
                samples: 1,
                properties: [
                  { key: "a", type: { string: true }, seen: 1 },
                  { key: "a", type: { number: true }, seen: 1 },
                ],
              },
            },
          },
        },
      },
      /key "a" appears twice/,
    ],
  ])("refuses %s, saying where and what to do", (_what, json, message) => {
    const parsed = typeof json === "string" ? JSON.parse(json) : json;
    let error: unknown;
    try {
      ObservedTypes.fromJSON(parsed);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UserError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain("ObservedTypes.toJSON()");
  });

  it("refuses types past the bounds observing keeps: too many keys, too deep", () => {
    const keys = (n: number, offset = 0) =>
      Array.from({ length: n }, (_, i) => ({ key: `k${i + offset}`, type: { number: true }, seen: 1 }));
    const tooMany = {
      ...valid(),
      tools: { t: { results: 1, type: { object: { samples: 1, properties: keys(MAX_OBSERVED_KEYS + 1) } } } },
    };
    expect(() => ObservedTypes.fromJSON(tooMany)).toThrow(/at most 24/);
    // Many objects of allowed size, together past the whole type's bound.
    const objects = Array.from(
      { length: Math.ceil(MAX_OBSERVED_PROPERTIES / MAX_OBSERVED_KEYS) + 1 },
      (_, i) => ({
        key: `o${i}`,
        type: { object: { samples: 1, properties: keys(MAX_OBSERVED_KEYS - 1, i * 100) } },
        seen: 1,
      }),
    );
    const tooManyInAll = {
      ...valid(),
      tools: {
        t: { results: 1, type: { object: { samples: 1, properties: objects.slice(0, MAX_OBSERVED_KEYS) } } },
      },
    };
    expect(() => ObservedTypes.fromJSON(tooManyInAll)).toThrow(/past 120 keys/);
    let deep: unknown = { string: true };
    for (let i = 0; i < 50; i++) deep = { array: { element: deep } };
    expect(() => ObservedTypes.fromJSON({ ...valid(), tools: { t: { results: 1, type: deep } } })).toThrow(
      /nests deeper/,
    );
  });

  it(`refuses more than ${MAX_OBSERVED_TOOLS} tools`, () => {
    const tools = Object.fromEntries(
      Array.from({ length: MAX_OBSERVED_TOOLS + 1 }, (_, i) => [
        `t${i}`,
        { results: 1, type: { number: true } },
      ]),
    );
    expect(() => ObservedTypes.fromJSON({ ...valid(), tools })).toThrow(/at most 1000/);
  });
});
