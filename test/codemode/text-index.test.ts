// The index that marks arguments holding text of a run's labelled results (run-labels.ts).
import { describe, expect, it } from "vitest";
import { TextIndex } from "../../src/codemode/text-index.js";

const words = (seed: number, count: number) =>
  Array.from({ length: count }, (_, i) => `w${(i * 7919 + seed) % 10_007}`).join(" ");

describe("the text index", () => {
  it("finds a piece of at least minChars shared with any text, at any offset, and names its owner", () => {
    const index = new TextIndex<string>(16);
    const a = words(1, 2_000);
    const b = words(5, 2_000);
    index.add(a, "a");
    index.add(b, "b");
    for (const offset of [0, 1, 7, 8, 1_234, a.length - 16]) {
      expect(index.find(`xx${a.slice(offset, offset + 16)}yy`, () => true)).toBe("a");
    }
    expect(index.find(`>>${b.slice(500, 540)}<<`, () => true)).toBe("b");
    expect(index.find(`>>${b.slice(500, 540)}<<`, (owner) => owner !== "b")).toBeUndefined();
  });

  it("does not mark a shorter common piece, or text it never held", () => {
    const index = new TextIndex<string>(16);
    index.add(words(1, 500), "a");
    expect(index.find(words(1, 500).slice(10, 25), () => true)).toBeUndefined();
    expect(index.find("nothing of the kind is in there at all", () => true)).toBeUndefined();
  });

  it("keeps finding texts after it grew and rehashed, and past its size searches directly", () => {
    const index = new TextIndex<number>(16);
    // Forty texts of about 60,000 characters: more than the index holds (2,000,000).
    const texts = Array.from({ length: 40 }, (_, i) => words(i * 13, 10_000));
    for (const [i, text] of texts.entries()) index.add(text, i);
    for (const [i, text] of texts.entries()) {
      expect(index.find(text.slice(3_000, 3_030), (owner) => owner === i)).toBe(i);
    }
  });
});
