// An argument the tool does not have is refused, never silently dropped: the attack was a model's
// partial refund, `refund_order({ order_id, reason, amount: 23 })`, where zod stripped `amount`, a
// person approved "23", and the whole order was refunded.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { codeMode } from "../../src/defaults.js";
import { Dispatcher } from "../../src/dispatch/dispatcher.js";
import { isolateEnvironment } from "../../src/entries/in-process.js";
import { compileInput } from "../../src/tools/schema.js";
import { tool } from "../../src/tools/tool.js";
import { Toolset } from "../../src/tools/toolset.js";
import type { ValidationResult } from "../../src/tools/types.js";

const opts = { toolName: "t" };

async function check(input: unknown, args: unknown): Promise<ValidationResult<unknown>> {
  return await compileInput(input, opts).validate(args);
}

function refundTool(refunds: { order_id: string; reason: string }[]) {
  return tool({
    name: "refund_order",
    description: "Refund an order in full.",
    input: z.object({ order_id: z.string(), reason: z.string() }),
    needsApproval: true,
    run: (args) => {
      refunds.push(args);
      return { refunded: args.order_id };
    },
  });
}

describe("an argument the tool does not have", () => {
  it("a partial refund's amount is refused before anyone is asked, and the tool never runs", async () => {
    const refunds: { order_id: string; reason: string }[] = [];
    let asked = 0;
    const dispatcher = new Dispatcher(new Toolset([refundTool(refunds)]), {
      approvalHandler: () => {
        asked++;
        return true;
      },
    });
    const [result] = await dispatcher
      .dispatch([
        {
          id: "c1",
          name: "refund_order",
          arguments: { order_id: "A1", reason: "late", amount: 23 },
        },
      ])
      .results();
    expect(result!.ok).toBe(false);
    expect(result!.error?.kind).toBe("invalid_arguments");
    expect(result!.output).toContain(
      "- amount: not an argument of this tool. Its arguments are: order_id, reason.",
    );
    expect(asked).toBe(0);
    expect(refunds).toEqual([]);
  });

  it("the same call from code rejects with kind invalid_arguments, and nothing is refunded", async () => {
    const refunds: { order_id: string; reason: string }[] = [];
    const tools = new Toolset([refundTool(refunds)]);
    const cm = codeMode({
      dispatcher: new Dispatcher(tools, { approvalHandler: () => true }),
      environment: isolateEnvironment(),
    });
    try {
      const result = await cm.run(`
        try {
          await tools.refund_order({ order_id: "A1", reason: "late", amount: 23 });
          return "refunded";
        } catch (error) {
          return [error.kind, error.message];
        }
      `);
      expect(result.value).toEqual([
        "invalid_arguments",
        expect.stringContaining("amount: not an argument of this tool"),
      ]);
      expect(refunds).toEqual([]);
    } finally {
      await cm.close();
    }
  });

  it("names the closest real argument", async () => {
    const result = await check(z.object({ order_id: z.string(), amount_cents: z.number() }), {
      orderId: "A1",
      amount_cents: 5,
    });
    expect(result).toEqual({
      ok: false,
      issues: [
        {
          path: "orderId",
          message:
            'not an argument of this tool. Did you mean "order_id"? Its arguments are: order_id, amount_cents.',
        },
        { path: "order_id", message: "required (string) but missing" },
      ],
    });
  });

  it("is refused at any depth, inside arrays and in the branch of a discriminated union", async () => {
    const input = z.object({
      items: z.array(z.object({ sku: z.string(), qty: z.number() })),
      delivery: z.discriminatedUnion("kind", [
        z.object({ kind: z.literal("pickup"), store: z.string() }),
        z.object({ kind: z.literal("post"), address: z.string() }),
      ]),
    });
    const result = await check(input, {
      items: [
        { sku: "a", qty: 1 },
        { sku: "b", qty: 2, colour: "red" },
      ],
      delivery: { kind: "pickup", store: "north", address: "here" },
    });
    expect(result.ok).toBe(false);
    const issues = result.ok ? [] : result.issues;
    expect(issues.map((issue) => issue.path)).toEqual(["items[1].colour", "delivery.address"]);
    expect(issues[0]!.message).toBe("not a field here. The fields are: sku, qty.");
  });

  it("a tool with no arguments says so", async () => {
    const result = await check(z.object({}), { force: true });
    expect(result).toEqual({
      ok: false,
      issues: [{ path: "force", message: "not an argument of this tool. This tool takes no arguments." }],
    });
  });

  it("a strict schema's own refusal is not repeated", async () => {
    const result = await check(z.strictObject({ a: z.string() }), { a: "x", b: 1 });
    expect(result).toEqual({
      ok: false,
      issues: [{ path: "b", message: "not an argument of this tool. Its arguments are: a." }],
    });
  });

  it("a plain JSON Schema without additionalProperties refuses them too", async () => {
    const schema = { type: "object", properties: { q: { type: "string" } } };
    const result = await check(schema, { q: "x", limit: 5 });
    expect(result.ok).toBe(false);
  });
});

describe("extra keys a schema explicitly allows", () => {
  it("pass through zod's loose objects, catchall and records", async () => {
    expect(await check(z.looseObject({ a: z.string() }), { a: "x", b: 1 })).toEqual({
      ok: true,
      value: { a: "x", b: 1 },
    });
    expect(await check(z.object({ a: z.string() }).catchall(z.number()), { a: "x", b: 1 })).toMatchObject({
      ok: true,
    });
    expect(await check(z.object({ tags: z.record(z.string(), z.number()) }), { tags: { x: 1 } })).toEqual({
      ok: true,
      value: { tags: { x: 1 } },
    });
  });

  it("pass JSON Schema's additionalProperties: true, a schema for them, or a matching patternProperties", async () => {
    const base = { type: "object", properties: { q: { type: "string" } } };
    expect((await check({ ...base, additionalProperties: true }, { q: "x", n: 1 })).ok).toBe(true);
    expect((await check({ ...base, additionalProperties: { type: "number" } }, { q: "x", n: 1 })).ok).toBe(
      true,
    );
    const patterned = { ...base, patternProperties: { "^x-": { type: "string" } } };
    expect((await check(patterned, { q: "x", "x-trace": "1" })).ok).toBe(true);
    expect((await check(patterned, { q: "x", trace: "1" })).ok).toBe(false);
  });

  it("a free-form object (no properties declared) is not checked", async () => {
    const input = { type: "object", properties: { options: { type: "object" } } };
    expect(await check(input, { options: { anything: 1 } })).toEqual({
      ok: true,
      value: { options: { anything: 1 } },
    });
  });
});
