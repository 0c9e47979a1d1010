import { describe, expect, it } from "vitest";
import { previewArguments } from "../../src/dispatch/preview.js";

describe("previewArguments", () => {
  it("shows the arguments as one line of JSON, cut after the given length with an ellipsis", () => {
    expect(previewArguments({ order_id: "A1", amount: 23 }, 100)).toBe('{"order_id":"A1","amount":23}');
    expect(previewArguments({ memo: "x".repeat(50) }, 12)).toBe('{"memo":"xxx…');
  });

  it("says nothing for arguments that cannot be shown as JSON, so the caller says so in its words", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(previewArguments(cyclic, 100)).toBeUndefined();
    expect(previewArguments({ big: 1n }, 100)).toBeUndefined();
    expect(previewArguments(undefined, 100)).toBeUndefined();
  });
});
