import { describe, expect, it } from "vitest";
import { z } from "zod";
import { UserError } from "../../common/errors.js";
import { tool } from "../../src/tools/tool.js";
import { Toolset } from "../../src/tools/toolset.js";

const make = (name: string, strict = false) =>
  tool({
    name,
    description: `The ${name} tool.`,
    input: z.object({ q: z.string().optional() }),
    strict,
    run: () => name,
  });

describe("Toolset", () => {
  it("holds tools by name in insertion order and is iterable", () => {
    const a = make("a");
    const b = make("b");
    const set = new Toolset([a, b]);
    expect(set.names()).toEqual(["a", "b"]);
    expect(set.list()).toEqual([a, b]);
    expect([...set]).toEqual([a, b]);
    expect(set.get("a")).toBe(a);
    expect(set.get("zzz")).toBeUndefined();
    expect(set.has("b")).toBe(true);
    expect(set.size).toBe(2);
  });

  it("refuses a duplicate name unless replace: true", () => {
    const set = new Toolset([make("a")]);
    expect(() => set.add(make("a"))).toThrow(UserError);
    expect(() => set.add(make("a"))).toThrow(/already in this toolset.*replace: true/);
    expect(() => new Toolset([make("a"), make("a")])).toThrow(UserError);
    const replacement = make("a");
    set.add(replacement, { replace: true });
    expect(set.get("a")).toBe(replacement);
    expect(set.size).toBe(1);
  });

  it("checks the shape of tools it is given", () => {
    expect(() => new Toolset().add({ name: "x" } as never)).toThrow(/not a valid Tool/);
  });

  it("removes by name and returns false for an unknown one", () => {
    const set = new Toolset([make("a"), make("b")]);
    expect(set.remove("a")).toBe(true);
    expect(set.remove("a")).toBe(false);
    expect(set.names()).toEqual(["b"]);
  });

  it("only() and without() return new Toolsets and leave the original alone", () => {
    const set = new Toolset([make("a"), make("b"), make("c")]);
    const only = set.only(["c", "a"]);
    expect(only).not.toBe(set);
    expect(only.names()).toEqual(["a", "c"]);
    expect(set.without(["b"]).names()).toEqual(["a", "c"]);
    expect(set.names()).toEqual(["a", "b", "c"]);
  });

  it("only() and without() refuse unknown names, listing the available ones", () => {
    const set = new Toolset([make("a"), make("b")]);
    expect(() => set.only(["a", "nope"])).toThrow(/Unknown tool name: "nope". Available: a, b\./);
    expect(() => set.without(["x", "y"])).toThrow(/Unknown tool names: "x", "y"/);
  });

  it("exports definitions as name, description, parameters", () => {
    const set = new Toolset([make("a")]);
    expect(set.definitions()).toEqual([
      {
        name: "a",
        description: "The a tool.",
        parameters: { type: "object", properties: { q: { type: "string" } } },
      },
    ]);
  });

  it("exports OpenAI tools, with strict: true only for strict tools", () => {
    const set = new Toolset([make("loose"), make("tight", true)]);
    const [loose, tight] = set.toOpenAITools();
    expect(loose).toEqual({
      type: "function",
      function: {
        name: "loose",
        description: "The loose tool.",
        parameters: { type: "object", properties: { q: { type: "string" } } },
      },
    });
    expect("strict" in loose.function).toBe(false);
    expect(tight.function.strict).toBe(true);
    expect(tight.function.parameters).toMatchObject({ additionalProperties: false, required: ["q"] });
  });

  it("exports Anthropic tools with input_schema", () => {
    const set = new Toolset([make("a")]);
    expect(set.toAnthropicTools()).toEqual([
      {
        name: "a",
        description: "The a tool.",
        input_schema: { type: "object", properties: { q: { type: "string" } } },
      },
    ]);
  });
});
