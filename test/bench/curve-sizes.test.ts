// The sizes of make bench-scale's curves: the full set, the quick one, or a list given in the environment,
// refused with what to give when it is not a list of whole numbers.
import { afterEach, describe, expect, it } from "vitest";
import { percentile, sizes } from "../../bench/scale/curve.js";

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

describe("sizes", () => {
  it("takes the full set, the quick set under CORDON_SCALE=quick, or CORDON_SCALE_<CURVE>", () => {
    delete process.env.CORDON_SCALE;
    delete process.env.CORDON_SCALE_CALLS;
    expect(sizes("calls", [1, 10, 100], [1, 10])).toEqual([1, 10, 100]);
    process.env.CORDON_SCALE = "quick";
    expect(sizes("calls", [1, 10, 100], [1, 10])).toEqual([1, 10]);
    process.env.CORDON_SCALE_CALLS = "2, 20";
    expect(sizes("calls", [1, 10, 100], [1, 10])).toEqual([2, 20]);
  });

  it("refuses a list that is not whole numbers, saying what to give", () => {
    process.env.CORDON_SCALE_CALLS = "1,ten";
    expect(() => sizes("calls", [1], [1])).toThrow(
      "CORDON_SCALE_CALLS=1,ten: give whole numbers separated by commas, e.g. 1,10,100",
    );
  });
});

describe("percentile", () => {
  it("is the value below which that share of the samples falls", () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect([percentile(values, 50), percentile(values, 99)]).toEqual([51, 100]);
  });
});
