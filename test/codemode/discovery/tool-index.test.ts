/** createToolIndex: ranking, describe, declarations, and what bad input gets. */

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { UserError } from "../../../common/errors.js";
import { toolDeclarations } from "../../../src/codemode/declarations.js";
import { createToolIndex } from "../../../src/codemode/discovery/tool-index.js";
import { tool } from "../../../src/tools/tool.js";

const tools = [
  tool({
    name: "calendar__list_events",
    description: "List events on a calendar between two times.\nRecurring events appear once per occurrence.",
    input: z.object({ time_min: z.string().describe("Window start"), time_max: z.string() }),
    readOnly: true,
    run: () => [],
  }),
  tool({
    name: "calendar__delete_event",
    description: "Delete a calendar event and notify its attendees.",
    input: z.object({ event_id: z.string() }),
    run: () => ({}),
  }),
  tool({
    name: "pagerduty__list_oncalls",
    description: "List who is on call now, per escalation policy.",
    run: () => [],
  }),
  tool({
    name: "slack__create_reminder",
    description: "Create a Slack reminder at a time.",
    input: z.object({ text: z.string(), time: z.string() }),
    run: () => ({}),
  }),
  tool({
    name: "shop.get-order",
    description: "Get one order by its id.",
    input: z.object({ order_id: z.string() }),
    output: z.object({ id: z.string() }),
    run: () => ({ id: "A1" }),
  }),
  tool({
    name: "shop__list_orders",
    description: "List orders by status.",
    input: z.object({ status: z.enum(["open", "shipped"]).optional() }),
    strict: true,
    run: () => [],
  }),
];

describe("createToolIndex", () => {
  const index = createToolIndex(tools);

  it("finds a tool by the words a model uses, best first, with its summary and declaration", () => {
    const [first] = index.search("who is on call");
    expect(first?.name).toBe("pagerduty__list_oncalls");
    expect(first?.description).toBe("List who is on call now, per escalation policy.");
    expect(first?.declaration).toContain("pagerduty__list_oncalls(args?:");
    expect(first?.score).toBeGreaterThan(0);
    const names = index.search("remove the appointment").map((match) => match.name);
    expect(names[0]).toBe("calendar__delete_event");
  });

  it("finds by related words only when queries are expanded", () => {
    expect(index.search("meetings").map((m) => m.name)).toContain("calendar__list_events");
    const plain = createToolIndex(tools, { expandQueries: false });
    expect(plain.search("meetings")).toEqual([]);
  });

  it("matches a longer word by its beginning, below the word itself", () => {
    expect(index.search("remind me").map((m) => m.name)).toEqual(["slack__create_reminder"]);
  });

  it("prefers a listing tool for a plural", () => {
    const names = index.search("calendar events").map((m) => m.name);
    expect(names[0]).toBe("calendar__list_events");
  });

  it("gives at most `limit` matches, the best ones, and nothing for words no tool has", () => {
    expect(index.search("calendar event", { limit: 1 })).toHaveLength(1);
    expect(index.search("weather forecast")).toEqual([]);
    expect(index.search("   ")).toEqual([]);
    expect(index.search("the of and")).toEqual([]);
  });

  it("declares each tool exactly as code mode does, summary aside", () => {
    const whole = toolDeclarations(
      tools.map((t) => ({
        name: t.name.replace(/[^A-Za-z0-9_$]/g, "_"),
        description: t.description,
        parameters: t.looseParameters ?? t.parameters,
        outputSchema: t.outputSchema,
        readOnly: t.options.readOnly,
      })),
    );
    for (const entry of index.entries) {
      const declaration = index.describe(entry.name)!;
      const indented = declaration
        .split("\n")
        .map((line) => `  ${line}`)
        .join("\n");
      expect(whole).toContain(indented);
    }
  });

  it("describes a tool by its identifier in code or by its real name", () => {
    const byIdentifier = index.describe("shop_get_order");
    expect(byIdentifier).toMatch(/^\/\*\* Get one order by its id\. \*\/\nshop_get_order\(args: \{/);
    expect(byIdentifier).toContain("Promise<{");
    expect(index.describe("shop.get-order")).toBe(byIdentifier);
    expect(index.toolName("shop_get_order")).toBe("shop.get-order");
    expect(index.describe("no_such_tool")).toBeUndefined();
  });

  it("declares a strict tool from its loose schema: optional fields stay optional", () => {
    expect(index.describe("shop__list_orders")).toContain('(args?: { status?: "open" | "shipped" })');
  });

  it("adds the observed result type to the JSDoc of tools without an output schema", () => {
    const observed: Record<string, string> = {
      shop__list_orders: "{ id: string; total: number }[]",
      "shop.get-order": "{ never: shown }",
    };
    const learnt = createToolIndex(tools, { observedReturns: (name) => observed[name] });
    expect(learnt.describe("shop__list_orders")).toContain(
      " * Returns (observed): { id: string; total: number }[]\n */\nshop__list_orders(",
    );
    expect(learnt.describe("shop__list_orders")).toContain("): Promise<unknown>;");
    expect(learnt.describe("shop_get_order")).not.toContain("observed");
    observed.shop__list_orders = "{ id: string }[]";
    expect(learnt.search("list orders")[0]?.declaration).toContain("Returns (observed): { id: string }[]");
  });

  it("rejects a query that is not a string and a limit out of range, saying what to send", () => {
    expect(() => index.search(42 as unknown as string)).toThrow(UserError);
    expect(() => index.search(42 as unknown as string)).toThrow(
      /query must be a string of words, got number/,
    );
    expect(() => index.search("orders", { limit: 0 })).toThrow(
      /limit must be a whole number from 1 to 50, got 0/,
    );
    expect(() => index.search("orders", { limit: 2.5 })).toThrow(UserError);
  });

  it("refuses two tools that would share one identifier in code, as code mode does", () => {
    const twin = tool({ name: "shop_get_order", description: "Another.", run: () => null });
    expect(() => createToolIndex([...tools, twin])).toThrow(/both become the identifier "shop_get_order"/);
  });
});
