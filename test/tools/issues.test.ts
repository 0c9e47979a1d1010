import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InvalidToolArguments } from "../../common/errors.js";
import { formatPath, fromStandardIssues, preview } from "../../src/tools/issues.js";
import { compileInput } from "../../src/tools/schema.js";

async function issuesOf(input: unknown, args: unknown) {
  const result = await compileInput(input, { toolName: "t" }).validate(args);
  if (result.ok) throw new Error("expected validation to fail");
  return result.issues;
}

describe("paths and previews", () => {
  it("formats paths like items[2].qty and quotes keys that are not identifiers", () => {
    expect(formatPath(["items", 2, "qty"])).toBe("items[2].qty");
    expect(formatPath([])).toBe("");
    expect(formatPath(["tags", "a b"])).toBe('tags["a b"]');
  });

  it("caps the preview of a received value at 40 characters", () => {
    expect(preview("abc")).toBe('"abc"');
    expect(preview(undefined)).toBe("undefined");
    const long = preview({ text: "x".repeat(100) });
    expect(long).toHaveLength(40);
    expect(long.endsWith("…")).toBe(true);
  });
});

describe("zod issues", () => {
  const Order = z.strictObject({
    customer: z.string(),
    status: z.enum(["a", "b"]),
    mode: z.literal("fast"),
    limit: z.number().max(50),
    items: z.array(z.object({ qty: z.number().int().min(1) })).min(1),
    code: z.string().length(3).optional(),
    email: z.email().optional(),
    id: z.union([z.string(), z.number()]).optional(),
    slug: z
      .string()
      .regex(/^[a-z]+$/)
      .optional(),
    even: z.number().multipleOf(2).optional(),
    check: z
      .string()
      .refine((s) => s.startsWith("ok"), "must start with ok")
      .optional(),
  });

  it("lists every failing path with what was expected and what was received", async () => {
    const issues = await issuesOf(Order, {
      status: "c",
      mode: "slow",
      limit: 99,
      items: [{ qty: 1 }, { qty: 1 }, { qty: "abc" }],
      code: "toolong",
      email: "nope",
      id: true,
      slug: "ABC",
      even: 3,
      check: "bad",
      extra: 1,
    });
    expect(issues).toEqual([
      {
        path: "extra",
        message:
          "not an argument of this tool. Its arguments are: customer, status, mode, limit, items, code, email, id, slug, even, check.",
      },
      { path: "customer", message: "required (string) but missing" },
      { path: "status", message: 'must be one of "a" | "b", got "c"' },
      { path: "mode", message: 'must be "fast", got "slow"' },
      { path: "limit", message: "must be <= 50, got 99" },
      { path: "items[2].qty", message: 'expected number, got "abc"' },
      { path: "code", message: "must be at most 3 characters, got 7" },
      { path: "email", message: 'must be a valid email, got "nope"' },
      { path: "id", message: "expected string | number, got true" },
      { path: "slug", message: 'must match pattern /^[a-z]+$/, got "ABC"' },
      { path: "even", message: "must be a multiple of 2, got 3" },
      { path: "check", message: "must start with ok" },
    ]);
  });

  it("reports sizes of arrays and lower bounds", async () => {
    expect(await issuesOf(Order.pick({ items: true }), { items: [] })).toEqual([
      { path: "items", message: "must have at least 1 item, got 0" },
    ]);
    expect(await issuesOf(Order.pick({ items: true }), { items: [{ qty: 0 }] })).toEqual([
      { path: "items[0].qty", message: "must be >= 1, got 0" },
    ]);
  });

  it("reports the closest variant of a union of objects", async () => {
    const schema = z.object({
      shape: z.union([
        z.object({ kind: z.literal("circle"), radius: z.number() }),
        z.object({ kind: z.literal("rect"), width: z.number(), height: z.number() }),
      ]),
    });
    expect(await issuesOf(schema, { shape: { kind: "circle", radius: "big" } })).toEqual([
      { path: "shape.radius", message: 'expected number, got "big"' },
    ]);
  });

  it("names the discriminator when no variant of a discriminated union matches", async () => {
    const schema = z.object({
      shape: z.discriminatedUnion("kind", [
        z.object({ kind: z.literal("circle"), radius: z.number() }),
        z.object({ kind: z.literal("rect"), width: z.number() }),
      ]),
    });
    const [issue] = await issuesOf(schema, { shape: { kind: "triangle" } });
    expect(issue.path).toBe("shape.kind");
    expect(issue.message).toMatch(/"circle" \| "rect"|check "kind"/);
  });

  it("reports a non-object argument value at the root", async () => {
    expect(await issuesOf(z.object({ a: z.string() }), [1])).toEqual([
      { path: "", message: "expected object, got [1]" },
    ]);
  });
});

describe("Ajv errors", () => {
  const schema = {
    type: "object",
    properties: {
      name: { type: "string", minLength: 2, pattern: "^[a-z]+$" },
      tags: { type: "array", items: { type: "string" }, maxItems: 2 },
      mode: { const: "x" },
      id: { anyOf: [{ type: "string" }, { type: "integer" }] },
      when: { type: "string", format: "date" },
      n: { type: "number", exclusiveMinimum: 0 },
    },
  };

  it("maps keywords to compact messages for every failing path", async () => {
    const issues = await issuesOf(schema, {
      name: "A",
      tags: ["a", 2, "c"],
      mode: "y",
      id: 1.5,
      when: "yesterday",
      n: 0,
    });
    expect(issues).toEqual([
      { path: "name", message: "must be at least 2 characters, got 1" },
      { path: "name", message: 'must match pattern ^[a-z]+$, got "A"' },
      { path: "tags", message: "must have at most 2 items, got 3" },
      { path: "tags[1]", message: "expected string, got 2" },
      { path: "mode", message: 'must be "x", got "y"' },
      { path: "id", message: "expected string | integer, got 1.5" },
      { path: "when", message: 'must be a valid date, got "yesterday"' },
      { path: "n", message: "must be > 0, got 0" },
    ]);
  });

  it("lists every accepted type for each array item that fails an items union", async () => {
    const issues = await issuesOf(
      {
        type: "object",
        properties: { xs: { type: "array", items: { anyOf: [{ type: "number" }, { type: "boolean" }] } } },
      },
      { xs: ["x", 1, "y"] },
    );
    expect(issues).toEqual([
      { path: "xs[0]", message: 'expected number | boolean, got "x"' },
      { path: "xs[2]", message: 'expected number | boolean, got "y"' },
    ]);
  });

  it("reports the closest variant separately for each array item of a union of objects", async () => {
    const issues = await issuesOf(
      {
        type: "object",
        properties: {
          rows: {
            type: "array",
            items: {
              anyOf: [
                {
                  type: "object",
                  properties: { a: { type: "string" }, d: { type: "string" } },
                  required: ["a", "d"],
                },
                {
                  type: "object",
                  properties: { b: { type: "number" }, c: { type: "number" } },
                  required: ["b", "c"],
                },
              ],
            },
          },
        },
      },
      {
        rows: [
          { a: 1, d: "q" },
          { a: "ok", d: "q" },
          { b: 1, c: "x" },
        ],
      },
    );
    expect(issues).toEqual([
      { path: "rows[0].a", message: "expected string, got 1" },
      { path: "rows[2].c", message: 'expected number, got "x"' },
    ]);
  });
});

describe("Standard Schema issues", () => {
  it("keeps the library's message and converts path segments", () => {
    expect(
      fromStandardIssues([{ message: "bad", path: ["a", { key: 0 }, "b"] }, { message: "root" }]),
    ).toEqual([
      { path: "a[0].b", message: "bad" },
      { path: "", message: "root" },
    ]);
  });
});

describe("InvalidToolArguments", () => {
  it("formats one line per issue, under the tool's name", async () => {
    const issues = await issuesOf(z.object({ a: z.string(), b: z.number() }), { b: "x" });
    expect(new InvalidToolArguments("get_order", issues).message).toBe(
      'Invalid arguments for get_order:\n- a: required (string) but missing\n- b: expected number, got "x"',
    );
  });
});
