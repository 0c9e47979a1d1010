import { describe, expect, it, vi } from "vitest";
import { UserError } from "../../common/errors.js";
import {
  type DeclaredTool,
  sanitizeToolName,
  schemaToType,
  toolDeclarations,
  toolIdentifiers,
} from "../../src/codemode/declarations.js";
import type { JsonSchema } from "../../src/tools/types.js";
import { checkUsage, diagnose } from "./typescript-check.js";

/** Every given type expression, declared as an alias, so the compiler can say whether it is valid. */
function checkTypes(types: string[]): string[] {
  return diagnose(types.map((type, index) => `export type T${index} = ${type};`).join("\n"));
}

// --- A varied set of tools ---------------------------------------------------------------------------

const getOrder: DeclaredTool = {
  name: "get_order",
  description: "Look up one order by its id.\nReturns the order with its line items.",
  parameters: {
    type: "object",
    properties: {
      order_id: { type: "string", description: "The order id, like A1." },
      include: { type: "array", items: { enum: ["items", "customer"] } },
    },
    required: ["order_id"],
  },
  outputSchema: {
    type: "object",
    properties: {
      id: { type: "string" },
      status: { enum: ["open", "shipped", "cancelled"] },
      total: { type: "number" },
      items: { type: "array", items: { $ref: "#/$defs/item" } },
    },
    required: ["id", "status", "total", "items"],
    $defs: {
      item: {
        type: "object",
        properties: { sku: { type: "string" }, qty: { type: "integer", minimum: 1 } },
        required: ["sku", "qty"],
      },
    },
  },
};

const searchOrders: DeclaredTool = {
  name: "search_orders",
  description: "Search orders. */ tries to close the comment.",
  parameters: {
    type: "object",
    properties: {
      query: { type: "string" },
      limit: { type: "integer", minimum: 1, maximum: 50, default: 10, description: "Page size." },
      since: { type: "string", format: "date-time" },
      status: { type: ["string", "null"], enum: ["open", "shipped", null] },
      "sort-by": { type: "string" },
    },
  },
  outputSchema: {
    type: "array",
    items: { $ref: "#/definitions/summary" },
    definitions: { summary: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } },
  },
};

const setTags: DeclaredTool = {
  name: "set_tags",
  description: "",
  parameters: {
    type: "object",
    properties: {
      target: {
        oneOf: [
          { type: "object", properties: { order: { type: "string" } }, required: ["order"] },
          { type: "object", properties: { customer: { type: "string" } }, required: ["customer"] },
        ],
      },
      tags: { type: "object", additionalProperties: { type: "string" } },
      point: {
        type: "array",
        prefixItems: [{ type: "number" }, { type: "number" }],
        minItems: 2,
        items: false,
      },
    },
    required: ["target", "tags"],
  },
};

const ping: DeclaredTool = {
  name: "ping",
  description: "Check the service.",
  parameters: { type: "object", properties: {} },
};

const variedTools = [getOrder, searchOrders, setTags, ping];

// --- schemaToType --------------------------------------------------------------------------------------

describe("schemaToType", () => {
  it("maps the primitive types to TypeScript types", () => {
    expect(schemaToType({ type: "string" })).toBe("string");
    expect(schemaToType({ type: "number" })).toBe("number");
    expect(schemaToType({ type: "integer" })).toBe("number");
    expect(schemaToType({ type: "boolean" })).toBe("boolean");
    expect(schemaToType({ type: "null" })).toBe("null");
    expect(schemaToType({})).toBe("unknown");
    expect(schemaToType(true)).toBe("unknown");
    expect(schemaToType(false)).toBe("never");
  });

  it("turns type arrays into unions and nullable types into `| null`", () => {
    expect(schemaToType({ type: ["string", "number"] })).toBe("string | number");
    expect(schemaToType({ type: ["integer", "number"] })).toBe("number");
    expect(schemaToType({ type: ["string", "null"] })).toBe("string | null");
    expect(schemaToType({ type: "string", nullable: true })).toBe("string | null");
  });

  it("marks properties outside `required` optional and keeps short objects on one line", () => {
    const type = schemaToType({
      type: "object",
      properties: { id: { type: "string" }, qty: { type: "number" } },
      required: ["id"],
    });
    expect(type).toBe("{ id: string; qty?: number }");
  });

  it("notes integer-ness in JSDoc, since TypeScript has no integer type", () => {
    const type = schemaToType({ type: "object", properties: { n: { type: "integer" } } });
    expect(type).toBe("{\n  /** integer */\n  n?: number;\n}");
  });

  it("writes property descriptions, bounds and defaults as JSDoc on the property", () => {
    const type = schemaToType({
      type: "object",
      properties: {
        limit: { type: "integer", description: "How many to return.", minimum: 1, maximum: 10, default: 5 },
        name: { type: "string", minLength: 1, maxLength: 40, pattern: "^[a-z]+$" },
      },
    });
    expect(type).toContain(
      "/** How many to return. (integer, minimum 1, maximum 10) @default 5 */\n  limit?: number;",
    );
    expect(type).toContain("/** min length 1, max length 40, pattern ^[a-z]+$ */\n  name?: string;");
  });

  it("keeps a multi-line description on separate JSDoc lines with the notes after it", () => {
    const type = schemaToType({
      type: "object",
      properties: { mode: { type: "string", description: "First line.\nSecond line.", default: "fast" } },
    });
    expect(type).toBe(
      '{\n  /**\n   * First line.\n   * Second line.\n   * @default "fast"\n   */\n  mode?: string;\n}',
    );
  });

  it("notes `format` as a JSDoc @format tag", () => {
    const type = schemaToType({
      type: "object",
      properties: { at: { type: "string", format: "date-time" } },
    });
    expect(type).toContain("/** @format date-time */");
  });

  it("escapes `*/` so a description cannot end the JSDoc comment early", () => {
    const type = schemaToType({
      type: "object",
      properties: {
        x: { type: "string", description: "evil */ declare const y: number; /*", default: "*/" },
      },
    });
    expect(type).not.toMatch(/\*\/[^\n]*\*\//); // no comment closes before its own end
    expect(type).toContain("evil *\\/ declare");
    expect(checkTypes([type])).toEqual([]);
  });

  it("quotes property names that are not identifiers", () => {
    const type = schemaToType({
      type: "object",
      properties: {
        "sort-by": { type: "string" },
        "2fa": { type: "boolean" },
        'say "hi"': { type: "null" },
        ok: {},
      },
    });
    expect(type).toBe('{ "sort-by"?: string; "2fa"?: boolean; "say \\"hi\\""?: null; ok?: unknown }');
    expect(checkTypes([type])).toEqual([]);
  });

  it("turns enum into a union of literals, escaping strings", () => {
    expect(schemaToType({ enum: ["a", 'quote"', "back\\slash", "new\nline", 1, -2, true, null] })).toBe(
      '"a" | "quote\\"" | "back\\\\slash" | "new\\nline" | 1 | -2 | true | null',
    );
    expect(schemaToType({ enum: [] })).toBe("never");
  });

  it("turns const into a literal type, including objects and arrays", () => {
    expect(schemaToType({ const: "x" })).toBe('"x"');
    expect(schemaToType({ const: 3 })).toBe("3");
    expect(schemaToType({ const: { kind: "a", "b-c": [1, "2"] } })).toBe('{ kind: "a"; "b-c": [1, "2"] }');
  });

  it("turns anyOf and oneOf into unions and allOf into intersections", () => {
    expect(schemaToType({ anyOf: [{ type: "string" }, { type: "number" }] })).toBe("string | number");
    expect(schemaToType({ oneOf: [{ const: "a" }, { const: "b" }] })).toBe('"a" | "b"');
    const all = schemaToType({
      allOf: [
        { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
        { anyOf: [{ type: "object", properties: { b: { type: "number" } } }, { type: "null" }] },
      ],
    });
    expect(all).toBe("{ a: string } & ({ b?: number } | null)");
    expect(checkTypes([all])).toEqual([]);
  });

  it("parenthesises unions used as array items", () => {
    expect(schemaToType({ type: "array", items: { type: ["string", "number"] } })).toBe(
      "(string | number)[]",
    );
    expect(schemaToType({ type: "array", items: { enum: [-1, 1] } })).toBe("(-1 | 1)[]");
    expect(schemaToType({ type: "array" })).toBe("unknown[]");
  });

  it("resolves local $refs: #, #/$defs, #/definitions and escaped JSON pointers", () => {
    expect(schemaToType({ $ref: "#/$defs/id", $defs: { id: { type: "string" } } })).toBe("string");
    expect(schemaToType({ $ref: "#/definitions/n", definitions: { n: { type: "number" } } })).toBe("number");
    expect(schemaToType({ $ref: "#/$defs/a~1b~0c", $defs: { "a/b~c": { type: "boolean" } } })).toBe(
      "boolean",
    );
    const self = schemaToType({ type: "object", properties: { next: { $ref: "#" } } });
    expect(self).toBe("{ next?: { next?: unknown } }");
  });

  it("takes a property's JSDoc from its $ref target when the property has none", () => {
    const type = schemaToType({
      type: "object",
      properties: { when: { $ref: "#/$defs/when" } },
      $defs: { when: { type: "string", format: "date", description: "A day." } },
    });
    expect(type).toContain("/** A day. @format date */\n  when?: string;");
  });

  it("cuts a recursive $ref cycle to unknown and terminates", () => {
    const tree: JsonSchema = {
      $ref: "#/$defs/node",
      $defs: {
        node: {
          type: "object",
          properties: {
            value: { type: "string" },
            children: { type: "array", items: { $ref: "#/$defs/node" } },
          },
          required: ["value"],
        },
      },
    };
    const type = schemaToType(tree);
    expect(type).toBe("{ value: string; children?: unknown[] }");
    const mutual = schemaToType({
      $defs: { a: { type: "object", properties: { b: { $ref: "#/$defs/b" } } }, b: { $ref: "#/$defs/a" } },
      $ref: "#/$defs/a",
    });
    expect(mutual).toBe("{ b?: unknown }");
    expect(checkTypes([type, mutual])).toEqual([]);
  });

  it("cuts nesting beyond maxDepth to unknown, also for a schema object that contains itself", () => {
    let deep: JsonSchema = { type: "string" };
    for (let i = 0; i < 10; i++) deep = { type: "array", items: deep };
    expect(schemaToType(deep, { maxDepth: 3 })).toBe("unknown[][][]");
    const circular: JsonSchema = { type: "object", properties: {} };
    (circular.properties as Record<string, unknown>).self = circular;
    const type = schemaToType(circular, { maxDepth: 4 });
    expect(type).toContain("self?: unknown");
    expect(checkTypes([type])).toEqual([]);
  });

  it("expresses tuples from prefixItems and from draft-07 array items", () => {
    const closed = {
      type: "array",
      prefixItems: [{ type: "number" }, { type: "string" }],
      minItems: 2,
      items: false,
    };
    expect(schemaToType(closed)).toBe("[number, string]");
    const open = { type: "array", prefixItems: [{ type: "number" }, { type: "string" }], minItems: 1 };
    expect(schemaToType(open)).toBe("[number, string?, ...unknown[]]");
    const withRest = {
      type: "array",
      prefixItems: [{ type: "string" }],
      minItems: 1,
      items: { type: "boolean" },
    };
    expect(schemaToType(withRest)).toBe("[string, ...boolean[]]");
    const draft7 = {
      type: "array",
      items: [{ type: "string" }, { type: "integer" }],
      additionalItems: false,
      minItems: 2,
    };
    expect(schemaToType(draft7)).toBe("[string, number]");
    const maxed = { type: "array", items: [{ type: "string" }], maxItems: 1 };
    expect(schemaToType(maxed)).toBe("[string?]");
    expect(checkTypes([closed, open, withRest, draft7, maxed].map((schema) => schemaToType(schema)))).toEqual(
      [],
    );
    const inObject = schemaToType({
      type: "object",
      properties: { point: closed, list: { type: "array", minItems: 1 } },
    });
    expect(inObject).toContain("/** min items 1 */");
    expect(inObject).toContain("\n  point?: [number, string];");
  });

  it("turns additionalProperties true or a schema into an index signature and false into none", () => {
    expect(schemaToType({ type: "object", additionalProperties: { type: "number" } })).toBe(
      "{ [key: string]: number }",
    );
    expect(schemaToType({ type: "object", additionalProperties: true })).toBe("{ [key: string]: unknown }");
    expect(schemaToType({ type: "object", additionalProperties: false })).toBe("Record<string, never>");
    expect(schemaToType({ type: "object" })).toBe("{ [key: string]: unknown }");
    const closed = schemaToType({
      type: "object",
      properties: { a: { type: "string" } },
      additionalProperties: false,
    });
    expect(closed).toBe("{ a?: string }");
  });

  it("widens an index signature to cover the declared properties so the type stays valid", () => {
    const type = schemaToType({
      type: "object",
      properties: { a: { type: "string" }, b: { type: "boolean" } },
      required: ["b"],
      additionalProperties: { type: "number" },
    });
    expect(type).toBe("{ a?: string; b: boolean; [key: string]: number | string | boolean | undefined }");
    const patterns = schemaToType({ type: "object", patternProperties: { "^x-": { type: "string" } } });
    expect(patterns).toBe("{ [key: string]: string }");
    expect(checkTypes([type, patterns])).toEqual([]);
  });

  it("indents nested multi-line objects under their property", () => {
    const type = schemaToType({
      type: "object",
      properties: {
        outer: { type: "object", properties: { inner: { type: "string", description: "Deep." } } },
      },
    });
    expect(type).toBe("{\n  outer?: {\n    /** Deep. */\n    inner?: string;\n  };\n}");
  });

  it("degrades an unknown $ref or a malformed schema to unknown and reports why", () => {
    const onError = vi.fn();
    expect(schemaToType({ $ref: "#/$defs/missing" }, { onError })).toBe("unknown");
    expect(onError).toHaveBeenLastCalledWith(expect.stringContaining("#/$defs/missing"));
    expect(schemaToType({ $ref: "https://example.com/schema.json" }, { onError })).toBe("unknown");
    expect(schemaToType({ type: "strnig" }, { onError })).toBe("unknown");
    expect(schemaToType({ type: "object", properties: { a: 5 } }, { onError })).toBe("unknown");
    expect(schemaToType({ anyOf: { type: "string" } }, { onError })).toBe("unknown");
    expect(onError).toHaveBeenCalledTimes(5);
  });

  it("never throws, whatever it is given", () => {
    const garbage: unknown[] = [
      null,
      undefined,
      42,
      "string",
      [],
      { type: 7 },
      { enum: "a" },
      { const: () => 1 },
      { items: 3 },
      { prefixItems: "x" },
      { properties: null },
      { $ref: 5 },
      { $ref: "#/%E0%A4%A" },
      { allOf: [null] },
      { patternProperties: [] },
    ];
    for (const schema of garbage) {
      expect(() => schemaToType(schema as JsonSchema)).not.toThrow();
    }
  });

  it("gives up with unknown when $refs expand beyond maxNodes", () => {
    const $defs: Record<string, JsonSchema> = { d0: { type: "string" } };
    for (let i = 1; i <= 30; i++) {
      $defs[`d${i}`] = {
        type: "object",
        properties: { l: { $ref: `#/$defs/d${i - 1}` }, r: { $ref: `#/$defs/d${i - 1}` } },
      };
    }
    const onError = vi.fn();
    expect(schemaToType({ $ref: "#/$defs/d30", $defs }, { maxDepth: 100, onError })).toBe("unknown");
    expect(onError).toHaveBeenCalledWith(expect.stringContaining("nodes"));
  });
});

// --- toolDeclarations ----------------------------------------------------------------------------------

describe("toolDeclarations", () => {
  const declarations = toolDeclarations(variedTools);

  it("declares `tools` with one JSDoc'd method per tool and no blank lines", () => {
    expect(declarations.startsWith("declare const tools: {\n")).toBe(true);
    expect(declarations.endsWith("\n};")).toBe(true);
    expect(declarations).not.toMatch(/\n\s*\n/);
    expect(declarations).toContain(
      "  /**\n   * Look up one order by its id.\n   * Returns the order with its line items.\n   */\n  get_order(args: {",
    );
    expect(declarations).toContain(
      "  /** Check the service. */\n  ping(args?: Record<string, never>): Promise<unknown>;",
    );
    expect(declarations).toContain("/** Search orders. *\\/ tries to close the comment. */");
    expect(declarations).toMatch(/\n {2}set_tags\(args: /); // no JSDoc for an empty description
  });

  it("makes args optional exactly when the parameters require nothing", () => {
    expect(declarations).toContain("get_order(args: {");
    expect(declarations).toContain("set_tags(args: {");
    expect(declarations).toContain("search_orders(args?: {");
    expect(declarations).toContain("ping(args?: ");
  });

  it("compiles without diagnostics for valid usage of every tool", () => {
    const usage = `
      const r = await tools.get_order({ order_id: "A1" });
      const id: string = r.id;
      const status: "open" | "shipped" | "cancelled" = r.status;
      const qty: number = r.items[0].qty + r.total;
      await tools.get_order({ order_id: "A2", include: ["items", "customer"] });
      const found = await tools.search_orders();
      const firstId: string = found[0].id;
      await tools.search_orders({ query: "x", limit: 5, since: "2024-01-01T00:00:00Z", status: null, "sort-by": "date" });
      await tools.set_tags({ target: { order: "A1" }, tags: { color: "red" }, point: [1, 2] });
      await tools.set_tags({ target: { customer: "C1" }, tags: {} });
      const pong: unknown = await tools.ping();
      const [a, b] = await Promise.all([tools.ping(), tools.get_order({ order_id: "A3" })]);
      return [id, status, qty, firstId, pong, a, b.total];
    `;
    expect(checkUsage(declarations, usage)).toEqual([]);
  });

  it.each([
    ["a missing required argument", "await tools.get_order({});"],
    ["a wrongly typed argument", "await tools.get_order({ order_id: 42 });"],
    ["an unknown property", 'await tools.get_order({ order_id: "A1", orderId: "A1" });'],
    ["a value outside the enum", 'await tools.get_order({ order_id: "A1", include: ["everything"] });'],
    ["omitted required args", "await tools.set_tags();"],
    [
      "a tuple of the wrong length",
      'await tools.set_tags({ target: { order: "A" }, tags: {}, point: [1] });',
    ],
    ["a non-string tag value", 'await tools.set_tags({ target: { order: "A" }, tags: { n: 1 } });'],
    ["an argument to a tool that takes none", "await tools.ping({ verbose: true });"],
    ["a tool that does not exist", "await tools.delete_everything({});"],
    ["a field the output does not have", 'const r = await tools.get_order({ order_id: "A1" }); r.nope;'],
  ])("reports a diagnostic for %s", (_what, usage) => {
    expect(checkUsage(declarations, usage).length).toBeGreaterThan(0);
  });

  it("degrades a broken schema to unknown for that tool only", () => {
    const onSchemaError = vi.fn();
    const broken: DeclaredTool = {
      name: "broken",
      description: "Has a dangling ref.",
      parameters: { type: "object", properties: { x: { $ref: "#/$defs/nope" } }, required: ["x"] },
      outputSchema: { type: "nonsense" },
    };
    const text = toolDeclarations([getOrder, broken, ping], { onSchemaError });
    expect(text).toContain("broken(args: unknown): Promise<unknown>;");
    expect(text).toContain("get_order(args: {");
    expect(onSchemaError).toHaveBeenCalledWith(
      "broken",
      "parameters",
      expect.stringContaining("#/$defs/nope"),
    );
    expect(onSchemaError).toHaveBeenCalledWith("broken", "output", expect.stringContaining("nonsense"));
    expect(onSchemaError).toHaveBeenCalledTimes(2);
    expect(
      checkUsage(text, 'await tools.broken({ anything: 1 }); await tools.get_order({ order_id: "A" });'),
    ).toEqual([]);
    expect(checkUsage(text, "await tools.get_order({ order_id: 1 });").length).toBeGreaterThan(0);
  });

  it("terminates and compiles for a tool with a recursive schema", () => {
    const tree: DeclaredTool = {
      name: "tree",
      description: "A tree.",
      parameters: {
        $ref: "#/$defs/node",
        $defs: {
          node: { type: "object", properties: { kids: { type: "array", items: { $ref: "#/$defs/node" } } } },
        },
      },
      outputSchema: { $ref: "#" },
    };
    const text = toolDeclarations([tree]);
    expect(text).toContain("tree(args?: { kids?: unknown[] }): Promise<unknown>;");
    expect(checkUsage(text, "await tools.tree({ kids: [{}, 1] });")).toEqual([]);
  });

  it("uses the $ref'd root's required list to decide whether args are optional", () => {
    const text = toolDeclarations([
      {
        name: "by_ref",
        description: "",
        parameters: {
          $ref: "#/$defs/p",
          $defs: { p: { type: "object", properties: { a: { type: "string" } }, required: ["a"] } },
        },
      },
    ]);
    expect(text).toContain("by_ref(args: { a: string }): Promise<unknown>;");
  });

  it("quotes a method name that is not an identifier and declares an empty toolset", () => {
    const text = toolDeclarations([{ name: "not-an-id", description: "", parameters: { type: "object" } }]);
    expect(text).toContain('"not-an-id"(args?: { [key: string]: unknown }): Promise<unknown>;');
    expect(checkUsage(text, 'await tools["not-an-id"]({ a: 1 });')).toEqual([]);
    expect(checkUsage(toolDeclarations([]), "const t: {} = tools;")).toEqual([]);
  });

  describe("an output schema several tools share, titled with a type name", () => {
    const result: JsonSchema = {
      title: "FileResult",
      anyOf: [
        { type: "string" },
        { type: "array", items: { type: "object", properties: { uri: { type: "string" } } } },
      ],
    };
    const reader = (name: string, output: JsonSchema): DeclaredTool => ({
      name,
      description: "",
      parameters: { type: "object", properties: {} },
      outputSchema: structuredClone(output),
    });

    it("is declared once as a type alias and named in each signature, and the code type-checks", () => {
      const declared = toolDeclarations([reader("read_a", result), reader("read_b", result)]);
      expect(declared.startsWith("type FileResult = string | {")).toBe(true);
      expect(declared.match(/type FileResult =/g)).toHaveLength(1);
      expect(declared).toContain("read_a(args?: Record<string, never>): Promise<FileResult>;");
      expect(declared).toContain("read_b(args?: Record<string, never>): Promise<FileResult>;");
      const usage = `const r = await tools.read_a(); const s: string | undefined = typeof r === "string" ? r : r[0]?.uri;`;
      expect(checkUsage(declared, usage)).toEqual([]);
    });

    it("stays inline when only one tool has it, when two different schemas share the title, or when the title is a built-in type's name", () => {
      expect(toolDeclarations([reader("read_a", result)])).not.toContain("type FileResult");
      const other: JsonSchema = { title: "FileResult", type: "number" };
      const clash = toolDeclarations([
        reader("read_a", result),
        reader("read_b", result),
        reader("count", other),
      ]);
      expect(clash).not.toContain("type FileResult");
      expect(clash).toContain("count(args?: Record<string, never>): Promise<number>;");
      const builtIn: JsonSchema = { ...result, title: "Promise" };
      expect(toolDeclarations([reader("read_a", builtIn), reader("read_b", builtIn)])).not.toContain(
        "type Promise",
      );
    });
  });
});

// --- Names ---------------------------------------------------------------------------------------------

describe("sanitizeToolName", () => {
  it("replaces - and . with _ and keeps valid names as they are", () => {
    expect(sanitizeToolName("get_order")).toBe("get_order");
    expect(sanitizeToolName("orders.get-one")).toBe("orders_get_one");
    expect(sanitizeToolName("CamelCase9")).toBe("CamelCase9");
  });

  it("prefixes _ when the name starts with a digit", () => {
    expect(sanitizeToolName("3d-render")).toBe("_3d_render");
  });

  it("suffixes _ on reserved words", () => {
    expect(sanitizeToolName("delete")).toBe("delete_");
    expect(sanitizeToolName("class")).toBe("class_");
    expect(sanitizeToolName("await")).toBe("await_");
    expect(sanitizeToolName("__proto__")).toBe("__proto___");
  });

  it("always produces a valid JS identifier", () => {
    for (const name of ["a", "0", "-", ".", "a.b.c", "9-9", "_", "return", "x".repeat(64)]) {
      const identifier = sanitizeToolName(name);
      expect(identifier).toMatch(/^[A-Za-z_$][A-Za-z0-9_$]*$/);
      expect(() => new Function(`let ${identifier} = 1; return ${identifier};`)).not.toThrow();
    }
  });
});

describe("toolIdentifiers", () => {
  it("maps each identifier to the real tool name", () => {
    expect(toolIdentifiers(["get-order", "search.orders", "ping", "constructor"])).toEqual({
      get_order: "get-order",
      search_orders: "search.orders",
      ping: "ping",
      constructor: "constructor",
    });
  });

  it("throws a UserError naming both tools when two names map to the same identifier", () => {
    expect(() => toolIdentifiers(["get-order", "ping", "get.order"])).toThrow(UserError);
    expect(() => toolIdentifiers(["get-order", "ping", "get.order"])).toThrow(
      /"get-order" and "get\.order" both become the identifier "get_order"/,
    );
    expect(() => toolIdentifiers(["get_order", "get-order"])).toThrow(/"get_order" and "get-order"/);
  });

  it("throws a UserError when the same name is listed twice", () => {
    expect(() => toolIdentifiers(["ping", "ping"])).toThrow(UserError);
    expect(() => toolIdentifiers(["ping", "ping"])).toThrow(/"ping" is listed twice/);
  });
});
