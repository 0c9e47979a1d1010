// The conformance cases' own assertions (./assert.ts) hold what vitest's matchers they replace held: a
// case that should fail does.
import { describe, expect, it } from "vitest";
import {
  above,
  anyString,
  atLeast,
  atMost,
  contains,
  equal,
  lengthOf,
  like,
  match,
  matching,
} from "./assert.js";

describe("the conformance cases' assertions", () => {
  it("equal compares deeply, as toEqual does: undefined keys count as absent, matchers by their rule", () => {
    equal({ a: [1, { b: "x" }], c: undefined }, { a: [1, { b: "x" }] });
    equal({ zone: "UTC", locale: "en" }, { zone: anyString, locale: matching(/^en$/) });
    expect(() => equal([1, 2], [1, 2, 3], "list")).toThrow("list: expected [1,2,3], got [1,2]");
    expect(() => equal({ a: 1, b: 2 }, { a: 1 })).toThrow(/expected \{"a":1\}/);
    expect(() => equal({ a: "1" }, { a: 1 })).toThrow(/AssertionError|expected/);
    expect(() => equal(4, anyString)).toThrow(/<any string>/);
    expect(() => equal(Number.NaN, 0)).toThrow();
  });

  it("like accepts more keys than expected, as toMatchObject does, and nothing else", () => {
    like({ name: "Error", message: "bad", line: 3, stack: "..." }, { name: "Error", line: 3 });
    expect(() => like({ name: "Error" }, { name: "Error", line: 3 })).toThrow(/an object like/);
    expect(() => like(undefined, { line: 3 })).toThrow(/got undefined/);
  });

  it("match, contains, the bounds and lengthOf fail on what they do not hold", () => {
    match("started afresh", /afresh/);
    expect(() => match(undefined, /afresh/)).toThrow(/a string matching/);
    contains("the whole message", "whole");
    contains(["add", "gated_note"], "gated_note");
    expect(() => contains(["add"], "note")).toThrow(/containing "note"/);
    atLeast(3, 3);
    atMost(50, 50);
    above(2, 1);
    lengthOf([1, 2], 2);
    expect(() => atLeast(2, 3)).toThrow(/at least 3/);
    expect(() => atMost(51, 50)).toThrow(/at most 50/);
    expect(() => above(1, 1)).toThrow(/more than 1/);
    expect(() => lengthOf([1], 2)).toThrow(/2 items/);
  });
});
