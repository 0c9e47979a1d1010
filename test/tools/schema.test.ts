import type { StandardJSONSchemaV1, StandardSchemaV1 } from "@standard-schema/spec";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { UserError } from "../../src/errors.js";
import { compileInput, deriveOutputSchema } from "../../src/tools/schema.js";
import type { JsonSchema, ValidationResult } from "../../src/tools/types.js";

const opts = { toolName: "t" };

async function check<T>(
  compiled: { validate(a: unknown): ValidationResult<T> | Promise<ValidationResult<T>> },
  args: unknown,
) {
  return await compiled.validate(args);
}

describe("JSON Schema derived from zod", () => {
  const schema = z.object({
    query: z.string().describe("Search terms"),
    limit: z.number().int().min(1).max(50).default(10),
    status: z.enum(["open", "closed"]).optional(),
    kind: z.literal("order"),
    id: z.union([z.string(), z.number()]),
    address: z.object({ city: z.string() }),
    tags: z.array(z.string()).max(5),
    scores: z.record(z.string(), z.number()),
    note: z.string().nullable(),
  });
  const { parameters } = compileInput(schema, opts);
  const props = parameters.properties as Record<string, JsonSchema>;

  it("drops $schema and keeps an object root", () => {
    expect(parameters.$schema).toBeUndefined();
    expect(parameters.type).toBe("object");
  });

  it("keeps descriptions, bounds and defaults", () => {
    expect(props.query).toEqual({ type: "string", description: "Search terms" });
    expect(props.limit).toMatchObject({ type: "integer", minimum: 1, maximum: 50, default: 10 });
    expect(props.tags).toMatchObject({ type: "array", items: { type: "string" }, maxItems: 5 });
  });

  it("keeps enums, literals, unions, nested objects, records and nullable fields", () => {
    expect(props.status).toEqual({ type: "string", enum: ["open", "closed"] });
    expect(props.kind).toMatchObject({ const: "order" });
    expect(props.id).toEqual({ type: ["string", "number"] });
    expect(props.address).toMatchObject({ type: "object", properties: { city: { type: "string" } } });
    expect(props.scores).toMatchObject({ type: "object", additionalProperties: { type: "number" } });
    expect(props.note).toEqual({ type: ["string", "null"] });
  });

  it("makes fields with defaults and optional fields not required", () => {
    expect(parameters.required).toEqual(["query", "kind", "id", "address", "tags", "scores", "note"]);
  });

  it("inlines a reused sub-schema registered with an id instead of leaving a $ref", () => {
    const Address = z.object({ city: z.string() }).meta({ id: "AddressForInlineTest" });
    const { parameters } = compileInput(z.object({ home: Address, work: Address.optional() }), opts);
    expect(JSON.stringify(parameters)).not.toContain("$ref");
    expect(parameters.$defs).toBeUndefined();
    expect((parameters.properties as JsonSchema).work).toMatchObject({
      type: "object",
      properties: { city: { type: "string" } },
    });
  });

  it("keeps a $ref and the $defs it needs for a recursive schema", () => {
    const Category = z.object({
      name: z.string(),
      get children(): z.ZodArray<typeof Category> {
        return z.array(Category);
      },
    });
    const { parameters } = compileInput(z.object({ root: Category }), opts);
    const root = (parameters.properties as Record<string, JsonSchema>).root;
    // The first level is inlined; only the recursion itself stays a reference.
    expect(root).toMatchObject({ type: "object", properties: { name: { type: "string" } } });
    const ref = ((root.properties as Record<string, JsonSchema>).children.items as JsonSchema).$ref;
    expect(ref).toMatch(/^#\/\$defs\//);
    const def = (parameters.$defs as Record<string, JsonSchema>)[String(ref).slice("#/$defs/".length)];
    expect(def).toMatchObject({
      type: "object",
      properties: { name: { type: "string" }, children: { type: "array", items: { $ref: ref } } },
    });
  });

  it("derives the output schema from the output side of a zod schema", () => {
    const out = deriveOutputSchema(z.object({ n: z.number().default(1) }), "t");
    expect(out).toEqual({
      type: "object",
      properties: { n: { type: "number", default: 1 } },
      required: ["n"],
      additionalProperties: false,
    });
  });

  it("validates with zod and returns its output (defaults applied)", async () => {
    const compiled = compileInput(z.object({ a: z.string(), n: z.number().default(3) }), opts);
    expect(await check(compiled, { a: "x" })).toEqual({ ok: true, value: { a: "x", n: 3 } });
  });

  it("supports async zod refinements", async () => {
    const compiled = compileInput(
      z.object({ a: z.string().refine(async (v) => v === "ok", "must be ok") }),
      opts,
    );
    expect(await check(compiled, { a: "ok" })).toEqual({ ok: true, value: { a: "ok" } });
    expect(await check(compiled, { a: "no" })).toEqual({
      ok: false,
      issues: [{ path: "a", message: "must be ok" }],
    });
  });

  it("rejects a non-object root and says to wrap it in an object", () => {
    expect(() => compileInput(z.string(), { toolName: "echo" })).toThrow(UserError);
    expect(() => compileInput(z.string(), { toolName: "echo" })).toThrow(
      /Tool "echo".*Wrap the arguments in an object/,
    );
    expect(() =>
      compileInput(z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]), opts),
    ).toThrow(/must describe an object/);
  });
});

/** A small, complete Standard Schema + Standard JSON Schema implementation for `{ n: number }`. */
function handMadeSchema(): StandardSchemaV1<{ n: number }> & StandardJSONSchemaV1<{ n: number }> {
  const json = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: { n: { type: "number", description: "A number" } },
    required: ["n"],
  };
  return {
    "~standard": {
      version: 1,
      vendor: "handmade",
      validate(value: unknown) {
        const n = (value as { n?: unknown } | null)?.n;
        if (typeof n === "number") return { value: { n } };
        return { issues: [{ message: `expected number, got ${JSON.stringify(n)}`, path: [{ key: "n" }] }] };
      },
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}

describe("JSON Schema derived from a Standard JSON Schema", () => {
  it("uses ~standard.jsonSchema.input for the parameters", () => {
    const { parameters } = compileInput(handMadeSchema(), opts);
    expect(parameters).toEqual({
      type: "object",
      properties: { n: { type: "number", description: "A number" } },
      required: ["n"],
    });
  });

  it("validates through ~standard.validate, after coercion", async () => {
    const compiled = compileInput(handMadeSchema(), opts);
    expect(await check(compiled, { n: "7" })).toEqual({ ok: true, value: { n: 7 } });
    expect(await check(compiled, { n: "x" })).toEqual({
      ok: false,
      issues: [{ path: "n", message: 'expected number, got "x"' }],
    });
  });

  it("awaits a validate that returns a Promise", async () => {
    const base = handMadeSchema();
    const asyncSchema = {
      "~standard": { ...base["~standard"], validate: async (v: unknown) => base["~standard"].validate(v) },
    };
    const result = compileInput(asyncSchema, opts).validate({ n: 1 });
    expect(result).toBeInstanceOf(Promise);
    expect(await result).toEqual({ ok: true, value: { n: 1 } });
  });

  it("refuses a Standard Schema that cannot produce JSON Schema, naming what to pass instead", () => {
    const noJson = { "~standard": { version: 1, vendor: "x", validate: (value: unknown) => ({ value }) } };
    expect(() => compileInput(noJson, opts)).toThrow(UserError);
    expect(() => compileInput(noJson, opts)).toThrow(
      /zod 4 schema, a Standard JSON Schema.*plain JSON Schema/,
    );
  });
});

describe("plain JSON Schema validated by Ajv", () => {
  const schema = {
    type: "object",
    properties: {
      customer_id: { type: "string" },
      status: { type: "string", enum: ["pending", "shipped", "all"], default: "all" },
      limit: { type: "integer", minimum: 1, maximum: 50, default: 10 },
    },
    required: ["customer_id", "status"],
    additionalProperties: false,
  };

  it("takes fields with defaults out of required in the parameters", () => {
    expect(compileInput(schema, opts).parameters.required).toEqual(["customer_id"]);
  });

  it("applies defaults and never mutates the caller's arguments", async () => {
    const args = { customer_id: "c1" };
    expect(await check(compileInput(schema, opts), args)).toEqual({
      ok: true,
      value: { customer_id: "c1", status: "all", limit: 10 },
    });
    expect(args).toEqual({ customer_id: "c1" });
  });

  it("reports every failing path", async () => {
    const result = await check(compileInput(schema, opts), { status: "lost", limit: 99, extra: true });
    expect(result).toEqual({
      ok: false,
      issues: [
        { path: "customer_id", message: "required (string) but missing" },
        { path: "extra", message: "unknown field not allowed" },
        { path: "status", message: 'must be one of "pending" | "shipped" | "all", got "lost"' },
        { path: "limit", message: "must be <= 50, got 99" },
      ],
    });
  });

  it("inlines $refs to definitions and #/$defs in the parameters", () => {
    const { parameters } = compileInput(
      {
        type: "object",
        properties: {
          a: { $ref: "#/definitions/Point" },
          b: { $ref: "#/$defs/Name", description: "The name" },
        },
        definitions: { Point: { type: "object", properties: { x: { type: "number" } } } },
        $defs: { Name: { type: "string", description: "a name" } },
      },
      opts,
    );
    expect(parameters).toEqual({
      type: "object",
      properties: {
        a: { type: "object", properties: { x: { type: "number" } } },
        b: { type: "string", description: "The name" },
      },
    });
  });

  it('keeps a recursive "#" reference as it is', async () => {
    const tree = {
      type: "object",
      properties: { value: { type: "number" }, children: { type: "array", items: { $ref: "#" } } },
    };
    const compiled = compileInput(tree, opts);
    expect((compiled.parameters.properties as Record<string, JsonSchema>).children).toEqual({
      type: "array",
      items: { $ref: "#" },
    });
    expect(await check(compiled, { value: "1", children: [{ value: "2", children: [] }] })).toEqual({
      ok: true,
      value: { value: 1, children: [{ value: 2, children: [] }] },
    });
  });

  it("uses the 2020-12 dialect when $schema says so", async () => {
    const compiled = compileInput(
      {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: {
          pair: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }], items: false },
        },
      },
      opts,
    );
    expect(await check(compiled, { pair: ["a", "2"] })).toEqual({ ok: true, value: { pair: ["a", 2] } });
    expect((await check(compiled, { pair: ["a", 2, 3] })).ok).toBe(false);
  });

  it("checks common formats", async () => {
    const compiled = compileInput(
      { type: "object", properties: { email: { type: "string", format: "email" } } },
      opts,
    );
    expect(await check(compiled, { email: "nope" })).toEqual({
      ok: false,
      issues: [{ path: "email", message: 'must be a valid email, got "nope"' }],
    });
  });

  it("lets two tools use the same $id with different schemas", async () => {
    const first = compileInput({ $id: "args", type: "object", properties: { a: { type: "string" } } }, opts);
    const second = compileInput(
      { $id: "args", type: "object", properties: { a: { type: "boolean" } } },
      opts,
    );
    expect(await check(first, { a: "x" })).toEqual({ ok: true, value: { a: "x" } });
    expect(await check(second, { a: "x" })).toEqual({
      ok: false,
      issues: [{ path: "a", message: 'expected boolean, got "x"' }],
    });
  });

  it("turns an invalid JSON Schema into a UserError at definition", () => {
    expect(() => compileInput({ type: "object", properties: { a: { type: "wrong" } } }, opts)).toThrow(
      UserError,
    );
  });

  it("turns a dangling $ref into a UserError", () => {
    expect(() =>
      compileInput({ type: "object", properties: { a: { $ref: "#/$defs/Missing" } } }, opts),
    ).toThrow(/points at nothing/);
  });

  it("refuses values that are not schemas", () => {
    expect(() => compileInput("string", opts)).toThrow(UserError);
    expect(() => compileInput(null, opts)).toThrow(UserError);
    expect(() => compileInput(() => ({}), opts)).toThrow(UserError);
  });
});

describe("strict mode", () => {
  const input = z.object({
    query: z.string(),
    limit: z.number().optional(),
    filter: z.object({ tag: z.string().optional(), since: z.string() }).optional(),
    kind: z.enum(["a", "b"]).optional(),
    note: z.string().nullable().optional(),
    items: z.array(z.object({ sku: z.string(), qty: z.number().optional() })),
  });
  const compiled = compileInput(input, { toolName: "t", strict: true });
  const params = compiled.parameters;
  const props = params.properties as Record<string, JsonSchema>;

  it("closes every object and requires every property", () => {
    expect(params.additionalProperties).toBe(false);
    expect(params.required).toEqual(["query", "limit", "filter", "kind", "note", "items"]);
    expect(props.filter).toMatchObject({ additionalProperties: false, required: ["tag", "since"] });
    const item = (props.items.items as JsonSchema) ?? {};
    expect(item).toMatchObject({ additionalProperties: false, required: ["sku", "qty"] });
  });

  it("makes optional properties nullable, leaving required ones alone", () => {
    expect(props.query).toEqual({ type: "string" });
    expect(props.limit).toEqual({ type: ["number", "null"] });
    expect(props.kind).toEqual({ type: ["string", "null"], enum: ["a", "b", null] });
    expect(props.filter.type).toEqual(["object", "null"]);
    expect(props.note).toEqual({ type: ["string", "null"] });
  });

  it("adds a null branch to an optional union and wraps other schemas in anyOf", () => {
    const { parameters } = compileInput(
      z.object({
        shape: z.union([z.object({ r: z.number() }), z.object({ w: z.number() })]).optional(),
        fixed: z.literal("x").optional(),
      }),
      { toolName: "t", strict: true },
    );
    const props = parameters.properties as Record<string, JsonSchema>;
    expect(props.shape.anyOf).toHaveLength(3);
    expect((props.shape.anyOf as JsonSchema[])[2]).toEqual({ type: "null" });
    expect(props.fixed).toEqual({ anyOf: [{ type: "string", const: "x" }, { type: "null" }] });
  });

  it("removes nulls sent for optional fields, recursively, before validation", async () => {
    const args = {
      query: "q",
      limit: null,
      filter: { tag: null, since: "2024" },
      kind: null,
      note: null,
      items: [{ sku: "x", qty: null }],
    };
    expect(await check(compiled, args)).toEqual({
      ok: true,
      value: { query: "q", filter: { since: "2024" }, note: null, items: [{ sku: "x" }] },
    });
    expect(args.limit).toBeNull();
  });

  it("lets a zod default apply when the model sends null for a defaulted field", async () => {
    const withDefault = compileInput(z.object({ limit: z.number().default(10) }), {
      toolName: "t",
      strict: true,
    });
    expect(withDefault.parameters.required).toEqual(["limit"]);
    expect(await check(withDefault, { limit: null })).toEqual({ ok: true, value: { limit: 10 } });
  });

  it("keeps a null sent for a required field, so validation reports it", async () => {
    const result = await check(compiled, { query: null, items: [] });
    expect(result).toEqual({ ok: false, issues: [{ path: "query", message: "expected string, got null" }] });
  });

  it("does not strip nulls when the tool is not strict", async () => {
    const loose = compileInput(input, opts);
    const result = await check(loose, { query: "q", limit: null, items: [] });
    expect(result).toEqual({ ok: false, issues: [{ path: "limit", message: "expected number, got null" }] });
  });

  it("refuses a record, naming its path and what to do instead", () => {
    const withRecord = z.object({ meta: z.object({ labels: z.record(z.string(), z.string()) }) });
    expect(() => compileInput(withRecord, { toolName: "t", strict: true })).toThrow(UserError);
    expect(() => compileInput(withRecord, { toolName: "t", strict: true })).toThrow(
      /record \(free-form keys\) at "meta\.labels".*\{ key, value \}/,
    );
  });

  it("makes a plain JSON Schema strict and still validates with the original", async () => {
    const strictJson = compileInput(
      {
        type: "object",
        properties: { a: { type: "string" }, n: { type: "integer", default: 2 } },
        required: ["a"],
      },
      { toolName: "t", strict: true },
    );
    expect(strictJson.parameters).toEqual({
      type: "object",
      properties: { a: { type: "string" }, n: { type: ["integer", "null"], default: 2 } },
      required: ["a", "n"],
      additionalProperties: false,
    });
    expect(await check(strictJson, { a: "x", n: null })).toEqual({ ok: true, value: { a: "x", n: 2 } });
  });
});

describe("coercion before validation", () => {
  const compiled = compileInput(
    z.object({
      count: z.number(),
      page: z.number().int().optional(),
      ratio: z.number().optional(),
      big: z.number().optional(),
      done: z.boolean().optional(),
      name: z.string().optional(),
      either: z.union([z.string(), z.number()]).optional(),
      maybe: z.number().nullable().optional(),
      rows: z.array(z.object({ qty: z.number() })).optional(),
      totals: z.record(z.string(), z.number()).optional(),
    }),
    opts,
  );

  it("turns numeric strings into numbers where the schema wants a number", async () => {
    const result = await check(compiled, {
      count: " 42 ",
      page: "-3",
      ratio: "-3.5",
      big: "1e3",
      maybe: "5",
    });
    expect(result).toEqual({ ok: true, value: { count: 42, page: -3, ratio: -3.5, big: 1000, maybe: 5 } });
  });

  it('turns "true"/"false" into booleans where the schema wants a boolean', async () => {
    expect(await check(compiled, { count: 1, done: "true" })).toEqual({
      ok: true,
      value: { count: 1, done: true },
    });
    expect(await check(compiled, { count: 1, done: "false" })).toEqual({
      ok: true,
      value: { count: 1, done: false },
    });
  });

  it("coerces inside arrays and records", async () => {
    const result = await check(compiled, { count: 0, rows: [{ qty: "2" }], totals: { a: "1.5" } });
    expect(result).toEqual({ ok: true, value: { count: 0, rows: [{ qty: 2 }], totals: { a: 1.5 } } });
  });

  it("does not coerce when the schema also accepts a string", async () => {
    expect(await check(compiled, { count: 1, either: "42" })).toEqual({
      ok: true,
      value: { count: 1, either: "42" },
    });
  });

  it('reports "abc" for a number instead of guessing', async () => {
    expect(await check(compiled, { count: "abc" })).toEqual({
      ok: false,
      issues: [{ path: "count", message: 'expected number, got "abc"' }],
    });
  });

  it("reports 1 for a string instead of converting it", async () => {
    expect(await check(compiled, { count: 1, name: 1 })).toEqual({
      ok: false,
      issues: [{ path: "name", message: "expected string, got 1" }],
    });
  });

  it('does not read "yes" or "1" as a boolean', async () => {
    const result = await check(compiled, { count: 1, done: "yes" });
    expect(result).toEqual({ ok: false, issues: [{ path: "done", message: 'expected boolean, got "yes"' }] });
  });

  it("never mutates the caller's arguments", async () => {
    const args = { count: "1", rows: [{ qty: "2" }] };
    const frozen = structuredClone(args);
    await check(compiled, args);
    expect(args).toEqual(frozen);
  });

  it("coerces plain JSON Schema arguments the same way", async () => {
    const json = compileInput(
      { type: "object", properties: { n: { type: "number" }, b: { type: "boolean" } }, required: ["n"] },
      opts,
    );
    expect(await check(json, { n: "12", b: "true" })).toEqual({ ok: true, value: { n: 12, b: true } });
  });
});
