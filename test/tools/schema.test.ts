import type { StandardJSONSchemaV1, StandardSchemaV1 } from "@standard-schema/spec";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { UserError } from "../../common/errors.js";
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

  it("refuses a z.date() input field, naming the tool and field and a string-based alternative", () => {
    const define = () => compileInput(z.object({ trip: z.object({ when: z.date() }) }), { toolName: "book" });
    expect(define).toThrow(UserError);
    expect(define).toThrow(/Tool "book": the input field "trip\.when" cannot be sent as JSON/);
    expect(define).toThrow(/z\.iso\.datetime\(\)\.pipe\(z\.coerce\.date\(\)\)/);
    // z.coerce.date() has no JSON Schema either: zod reads its input as a Date.
    expect(() => compileInput(z.object({ when: z.coerce.date() }), opts)).toThrow(/"when" cannot be sent/);
    expect(() => compileInput(z.object({ when: z.instanceof(Date) }), opts)).toThrow(/"when" cannot be sent/);
  });

  it("refuses other input types JSON cannot carry, naming the field", () => {
    const refused: [z.ZodType, RegExp][] = [
      [z.object({ ids: z.array(z.bigint()).optional() }), /"ids\[\]".*z\.number\(\)\.int\(\)/],
      [z.object({ m: z.map(z.string(), z.number()) }), /"m".*z\.record/],
      [z.object({ s: z.set(z.string()) }), /"s".*z\.array/],
      [z.object({ u: z.union([z.string(), z.undefined()]) }), /"u".*\.optional\(\)/],
      [z.object({ v: z.void() }), /"v"/],
      [z.object({ n: z.tuple([z.string(), z.nan()]) }), /"n\[1\]"/],
      [z.object({ sym: z.symbol() }), /"sym"/],
      [z.object({ big: z.literal(1n) }), /"big"/],
      [z.object({ r: z.record(z.string(), z.date()) }), /"r\[\*\]"/],
    ];
    for (const [schema, message] of refused) {
      expect(() => compileInput(schema, { toolName: "t" })).toThrow(UserError);
      expect(() => compileInput(schema, { toolName: "t" })).toThrow(message);
    }
  });

  it("keeps coerced, piped and transformed inputs that have a JSON form on the input side", async () => {
    const compiled = compileInput(
      z.object({
        when: z.iso.datetime().pipe(z.coerce.date()),
        big: z.string().pipe(z.coerce.bigint()),
        length: z.string().transform((s) => s.length),
        n: z.coerce.number(),
        custom: z.custom<string>((v) => typeof v === "string"),
      }),
      opts,
    );
    const props = compiled.parameters.properties as Record<string, JsonSchema>;
    expect(props.when).toMatchObject({ type: "string", format: "date-time" });
    expect(props.big).toEqual({ type: "string" });
    expect(props.length).toEqual({ type: "string" });
    expect(props.n).toEqual({ type: "number" });
    expect(props.custom).toEqual({});
    expect(
      await check(compiled, { when: "2024-05-06T07:08:09Z", big: "12", length: "abc", n: "4", custom: "c" }),
    ).toEqual({
      ok: true,
      value: { when: new Date("2024-05-06T07:08:09Z"), big: 12n, length: 3, n: 4, custom: "c" },
    });
  });

  it("still derives an output schema with a Date in it", () => {
    expect(deriveOutputSchema(z.object({ at: z.date() }), "t")).toMatchObject({
      type: "object",
      properties: { at: {} },
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
        {
          path: "extra",
          message: "not an argument of this tool. Its arguments are: customer_id, status, limit.",
        },
        { path: "customer_id", message: "required (string) but missing" },
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

  it("checks the email format of a 1 MB string (no quadratic backtracking)", async () => {
    const emails = compileInput(
      { type: "object", properties: { to: { type: "string", format: "email" } } },
      opts,
    );
    expect(await check(emails, { to: "ann@example.com" })).toEqual({
      ok: true,
      value: { to: "ann@example.com" },
    });
    const result = await check(emails, { to: `x@${".".repeat(999_000)}@` });
    expect(result).toMatchObject({ ok: false, issues: [{ path: "to" }] });
    expect(result.ok ? "" : result.issues[0].message).toMatch(/^must be a valid email/);
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

  it("turns a $ref with a malformed %-escape into a UserError naming the tool and the ref", () => {
    const schema = {
      type: "object",
      properties: { a: { $ref: "#/$defs/bad%zz" } },
      $defs: { "bad%zz": { type: "string" } },
    };
    expect(() => compileInput(schema, { toolName: "lookup" })).toThrow(UserError);
    expect(() => compileInput(schema, { toolName: "lookup" })).toThrow(
      /Tool "lookup": the schema reference "#\/\$defs\/bad%zz" has a malformed %-escape/,
    );
    const escaped = compileInput(
      { type: "object", properties: { a: { $ref: "#/$defs/a%25b" } }, $defs: { "a%b": { type: "string" } } },
      opts,
    );
    expect((escaped.parameters.properties as JsonSchema).a).toEqual({ type: "string" });
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

  describe("inside a union of objects", () => {
    const Shape = z.discriminatedUnion("kind", [
      z.object({ kind: z.literal("circle"), r: z.number(), label: z.string().optional() }),
      z.object({ kind: z.literal("square"), w: z.number(), label: z.string().nullable() }),
    ]);
    const shapes = compileInput(z.object({ shape: Shape }), { toolName: "t", strict: true });

    it("removes a null sent for an optional field of the branch the discriminator picks", async () => {
      expect(await check(shapes, { shape: { kind: "circle", r: 1, label: null } })).toEqual({
        ok: true,
        value: { shape: { kind: "circle", r: 1 } },
      });
    });

    it("keeps a null where the picked branch declares the field nullable", async () => {
      expect(await check(shapes, { shape: { kind: "square", w: 2, label: null } })).toEqual({
        ok: true,
        value: { shape: { kind: "square", w: 2, label: null } },
      });
    });

    it("coerces inside the branch the discriminator picks", async () => {
      expect(await check(shapes, { shape: { kind: "circle", r: "1.5" } })).toEqual({
        ok: true,
        value: { shape: { kind: "circle", r: 1.5 } },
      });
    });

    it("picks the branch by a one-value enum discriminator in a plain union", async () => {
      const compiled = compileInput(
        z.object({
          op: z.union([
            z.object({ type: z.enum(["add"]), n: z.number(), note: z.string().optional() }),
            z.object({ type: z.enum(["clear"]), note: z.string().optional(), all: z.boolean().optional() }),
          ]),
        }),
        { toolName: "t", strict: true },
      );
      expect(await check(compiled, { op: { type: "add", n: "3", note: null } })).toEqual({
        ok: true,
        value: { op: { type: "add", n: 3 } },
      });
      expect(await check(compiled, { op: { type: "clear", all: "true", note: null } })).toEqual({
        ok: true,
        value: { op: { type: "clear", all: true } },
      });
    });

    it("without a discriminator, removes a null only when every branch with the field has it optional", async () => {
      const compiled = compileInput(
        z.object({
          target: z.union([
            z.object({ id: z.string(), note: z.string().optional(), tag: z.string().nullable() }),
            z.object({ email: z.string(), note: z.string().optional(), tag: z.string().optional() }),
          ]),
        }),
        { toolName: "t", strict: true },
      );
      expect(await check(compiled, { target: { id: "x", note: null, tag: null } })).toEqual({
        ok: true,
        value: { target: { id: "x", tag: null } },
      });
      const result = await check(compiled, { target: { email: "e", tag: null } });
      expect(result.ok).toBe(false);
    });
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

  it("turns oneOf into anyOf for the model, and still validates with the original union", async () => {
    const compiled = compileInput(
      z.object({
        shape: z.discriminatedUnion("kind", [
          z.object({ kind: z.literal("circle"), r: z.number() }),
          z.object({ kind: z.literal("square"), w: z.number() }),
        ]),
      }),
      { toolName: "t", strict: true },
    );
    expect(JSON.stringify(compiled.parameters)).not.toContain("oneOf");
    const shape = (compiled.parameters.properties as Record<string, JsonSchema>).shape;
    expect(shape.anyOf).toHaveLength(2);
    expect((shape.anyOf as JsonSchema[])[0]).toMatchObject({ additionalProperties: false });
    expect(await check(compiled, { shape: { kind: "square", w: 2 } })).toMatchObject({ ok: true });
    expect(await check(compiled, { shape: { kind: "square", r: 2 } })).toMatchObject({ ok: false });
  });

  it("merges an allOf of plain objects into one closed object that can be satisfied", async () => {
    const compiled = compileInput(
      {
        type: "object",
        properties: {
          who: {
            description: "A person",
            allOf: [
              { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
              { type: "object", properties: { age: { type: "integer" } } },
            ],
          },
        },
        required: ["who"],
      },
      { toolName: "t", strict: true },
    );
    expect((compiled.parameters.properties as Record<string, JsonSchema>).who).toEqual({
      type: "object",
      description: "A person",
      properties: { name: { type: "string" }, age: { type: ["integer", "null"] } },
      required: ["name", "age"],
      additionalProperties: false,
    });
    expect(await check(compiled, { who: { name: "a", age: null } })).toEqual({
      ok: true,
      value: { who: { name: "a" } },
    });
    const zodAnd = compileInput(
      z.object({ who: z.object({ name: z.string() }).and(z.object({ age: z.number() }).describe("d")) }),
      { toolName: "t", strict: true },
    );
    expect((zodAnd.parameters.properties as Record<string, JsonSchema>).who).toMatchObject({
      properties: { name: { type: "string" }, age: { type: "number" } },
      required: ["name", "age"],
      additionalProperties: false,
    });
    expect(await check(zodAnd, { who: { name: "a", age: "3" } })).toEqual({
      ok: true,
      value: { who: { name: "a", age: 3 } },
    });
  });

  it("refuses an allOf it cannot merge, naming the tool and path and what to do instead", () => {
    const strict = (schema: unknown) => () => compileInput(schema, { toolName: "lookup", strict: true });
    const intersection = z.object({ id: z.union([z.string(), z.number()]).and(z.number()) });
    expect(strict(intersection)).toThrow(UserError);
    expect(strict(intersection)).toThrow(/Tool "lookup".*"allOf".*at "id".*Merge.*strict: false/);
    const conflicting = {
      type: "object",
      properties: {
        a: {
          allOf: [
            { type: "object", properties: { x: { type: "string" } } },
            { type: "object", properties: { x: { type: "number" } } },
          ],
        },
      },
    };
    expect(strict(conflicting)).toThrow(/Tool "lookup".*"allOf".*at "a"/);
    // Without strict mode the schema is used as it is.
    expect(() => compileInput(conflicting, { toolName: "lookup" })).not.toThrow();
  });

  it("refuses not and if/then/else, naming the tool and path", () => {
    const strict = (schema: unknown) => () => compileInput(schema, { toolName: "lookup", strict: true });
    const withNot = { type: "object", properties: { n: { type: "number", not: { const: 0 } } } };
    expect(strict(withNot)).toThrow(UserError);
    expect(strict(withNot)).toThrow(/Tool "lookup".*"not" at "n".*strict: false/);
    const withIf = {
      type: "object",
      properties: { a: { type: "string" }, b: { type: "string" } },
      if: { properties: { a: { const: "x" } } },
      // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword, not a thenable
      then: { required: ["b"] },
    };
    expect(strict(withIf)).toThrow(/Tool "lookup".*"if" at the arguments object.*strict: false/);
    expect(strict({ type: "object", properties: { v: { else: {} } } })).toThrow(/"else" at "v"/);
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

  it("leaves a numeric string that would lose digits as a string, so validation reports it", async () => {
    expect(await check(compiled, { count: "12345678901234567890" })).toEqual({
      ok: false,
      issues: [{ path: "count", message: 'expected number, got "12345678901234567890"' }],
    });
    expect(await check(compiled, { count: "9007199254740993", ratio: "1e-400" })).toEqual({
      ok: false,
      issues: [
        { path: "count", message: 'expected number, got "9007199254740993"' },
        { path: "ratio", message: 'expected number, got "1e-400"' },
      ],
    });
  });

  it("still coerces numeric strings that convert exactly", async () => {
    const result = await check(compiled, {
      count: "9007199254740991",
      page: "007",
      ratio: "1.10",
      big: "-0.00125e2",
      maybe: "+.5",
    });
    expect(result).toEqual({
      ok: true,
      value: { count: 9007199254740991, page: 7, ratio: 1.1, big: -0.125, maybe: 0.5 },
    });
  });

  it("handles a 1 MB almost-numeric string (no quadratic backtracking)", async () => {
    const digits = "1".repeat(999_000);
    const zeros = `0.${"0".repeat(999_000)}1`;
    const result = await check(compiled, { count: `${digits}x`, ratio: zeros, big: `-${digits}.5e` });
    expect(result).toMatchObject({ ok: false });
    expect(result.ok ? [] : result.issues.map((i) => i.path)).toEqual(["count", "ratio", "big"]);
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
