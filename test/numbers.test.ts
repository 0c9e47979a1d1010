import { describe, expect, it } from "vitest";
import { groupDigits } from "../common/numbers.js";

describe("groupDigits", () => {
  it("writes integers as toLocaleString('en-US') does", () => {
    const samples = [0, 7, 12, 999, 1_000, 12_345, 100_000, 999_999, 1_000_000, 20_000_000, 123_456_789];
    for (const n of [
      ...samples,
      ...samples.map((n) => -n),
      Number.MAX_SAFE_INTEGER,
      Number.MIN_SAFE_INTEGER,
    ]) {
      expect(groupDigits(n)).toBe(n.toLocaleString("en-US"));
    }
  });

  it("hands fractions and numbers past the safe range to toLocaleString", () => {
    for (const n of [1234.5678, -0.25, 2 ** 60, Number.POSITIVE_INFINITY, Number.NaN]) {
      expect(groupDigits(n)).toBe(n.toLocaleString("en-US"));
    }
  });
});
