import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { UserError } from "../../common/errors.js";
import { Budget } from "../../src/tools/budget.js";
import { defineTool, isTool, TOOL_NAME_PATTERN, tool } from "../../src/tools/tool.js";
import type { RunContext, Tool } from "../../src/tools/types.js";

const ctx: RunContext = {
  runId: "r1",
  callId: "c1",
  toolName: "t",
  signal: new AbortController().signal,
  deps: undefined,
  session: undefined,
  budget: new Budget(),
  parentCallId: undefined,
  attempt: 1,
  idempotencyKey: "c1",
};

const base = { name: "get_order", description: "Look up an order by id.", run: () => "ok" };

describe("tool()", () => {
  it("builds a Tool with parameters, outputSchema, validate, run and options", async () => {
    const t = tool({
      name: "get_order",
      description: "Look up one order by its full id.",
      input: z.object({ order_id: z.string().describe("Full order id") }),
      output: z.object({ status: z.string() }),
      retries: 2,
      readOnly: true,
      run: async ({ order_id }) => ({ status: `shipped ${order_id}` }),
    });
    expect(t.name).toBe("get_order");
    expect(t.parameters).toEqual({
      type: "object",
      properties: { order_id: { type: "string", description: "Full order id" } },
      required: ["order_id"],
    });
    expect(t.outputSchema).toMatchObject({ type: "object", properties: { status: { type: "string" } } });
    expect(t.options).toEqual({ retries: 2, readOnly: true });
    const checked = await t.validate({ order_id: "A1" });
    expect(checked).toEqual({ ok: true, value: { order_id: "A1" } });
    if (checked.ok) expect(await t.run(checked.value, ctx)).toEqual({ status: "shipped A1" });
  });

  it("infers argument and result types from a zod input", () => {
    const t = tool({
      ...base,
      input: z.object({ id: z.string(), n: z.number().default(1) }),
      run: async (args) => args.n * 2,
    });
    expectTypeOf(t).toEqualTypeOf<Tool<{ id: string; n: number }, number>>();
  });

  it("types plain JSON Schema arguments as a record", () => {
    const t = tool({ ...base, input: { type: "object", properties: {} }, run: (args) => Object.keys(args) });
    expectTypeOf(t).toEqualTypeOf<Tool<Record<string, unknown>, string[]>>();
  });

  it("defaults to a tool without arguments when input is omitted", async () => {
    const t = tool(base);
    expect(t.parameters).toEqual({ type: "object", properties: {} });
    expect(t.outputSchema).toBeUndefined();
    expect(await t.validate({})).toEqual({ ok: true, value: {} });
  });

  it("refuses a missing name or one that does not match the pattern", () => {
    expect(() => tool({ ...base, name: "" })).toThrow(/needs a name/);
    expect(() => tool({ ...base, name: undefined as unknown as string })).toThrow(UserError);
    expect(() => tool({ ...base, name: "get order" })).toThrow(/not allowed: use 1 to 64 letters/);
    expect(() => tool({ ...base, name: "x".repeat(65) })).toThrow(UserError);
    expect(TOOL_NAME_PATTERN.test("ns.get-order_2")).toBe(true);
  });

  it("refuses a missing or blank description, saying what to write", () => {
    expect(() => tool({ ...base, description: "  " })).toThrow(/needs a description.*what it returns/);
    expect(() => tool({ ...base, description: undefined as unknown as string })).toThrow(UserError);
  });

  it("refuses a run that is not a function", () => {
    expect(() => tool({ ...base, run: "nope" as unknown as () => string })).toThrow(/run must be a function/);
  });

  it("refuses invalid options, naming the option and what it accepts", () => {
    expect(() => tool({ ...base, retries: -1 })).toThrow(/retries must be a whole number >= 0/);
    expect(() => tool({ ...base, retries: 1.5 })).toThrow(UserError);
    expect(() => tool({ ...base, timeout: 0 })).toThrow(/timeout must be a number of milliseconds > 0/);
    expect(() => tool({ ...base, maxOutputChars: -5 })).toThrow(/maxOutputChars/);
    expect(() => tool({ ...base, strict: "yes" as unknown as boolean })).toThrow(
      /strict must be true or false/,
    );
    expect(() => tool({ ...base, needsApproval: "ask" as unknown as boolean })).toThrow(/needsApproval/);
    expect(() => tool({ ...base, policies: [42] as unknown as [] })).toThrow(
      /policies must be an array of functions/,
    );
    expect(() => tool({ ...base, render: "json" as unknown as () => string })).toThrow(
      /render must be a function/,
    );
  });

  it("refuses unknown options and suggests the likely one", () => {
    const config = { ...base, handler: () => "x" } as unknown as Parameters<typeof tool>[0];
    expect(() => tool(config)).toThrow(/unknown option "handler". Did you mean "run"\?/);
  });

  it("refuses an input that is not an object schema", () => {
    expect(() => tool({ ...base, input: z.array(z.string()) })).toThrow(
      /Wrap the arguments in an object schema/,
    );
  });

  it("makes the parameters strict only with strict: true", () => {
    const input = z.object({ a: z.string().optional() });
    expect(tool({ ...base, input }).parameters.additionalProperties).toBeUndefined();
    expect(tool({ ...base, input, strict: true }).parameters).toEqual({
      type: "object",
      properties: { a: { type: ["string", "null"] } },
      required: ["a"],
      additionalProperties: false,
    });
  });
});

describe("defineTool() and isTool()", () => {
  const handMade: Tool<{ q: string }, string> = {
    name: "search",
    description: "Search the docs.",
    parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
    outputSchema: undefined,
    validate: (args) => ({ ok: true, value: args as { q: string } }),
    run: ({ q }) => q,
    options: {},
  };

  it("accepts a well-formed hand-built Tool and returns it", () => {
    expect(defineTool(handMade)).toBe(handMade);
    expect(isTool(handMade)).toBe(true);
    expect(isTool(tool(base))).toBe(true);
  });

  it("refuses a malformed Tool, listing every problem", () => {
    const broken = { ...handMade, name: "bad name", parameters: { type: "string" }, run: undefined };
    expect(isTool(broken)).toBe(false);
    expect(() => defineTool(broken as unknown as Tool)).toThrow(
      /Tool "bad name" is not a valid Tool: name must match .*; parameters must be .*; run must be a function/,
    );
    expect(isTool(null)).toBe(false);
    expect(() => defineTool({ ...handMade, options: { retries: -1 } })).toThrow(/retries/);
  });
});
