import { describe, expect, it } from "vitest";
import { z } from "zod";
import { normalizeToolName, resolveToolName } from "../../src/dispatch/names.js";
import { Dispatcher, tool } from "../../src/index.js";
import { drain, echo, resultFor, toolsetOf } from "./helpers.js";

const getOrder = tool({
  name: "get_order",
  description: "Look up an order.",
  input: z.object({ order_id: z.string() }),
  run: ({ order_id }) => ({ id: order_id, status: "shipped" }),
});

describe("tool name repair", () => {
  it("normalizes case, whitespace, separators, camelCase and a trailing Tool suffix", () => {
    for (const variant of [
      "get_order",
      "getOrder",
      "GetOrder",
      " get-order ",
      "get.order",
      "GET_ORDER",
      "getOrderTool",
      "get_order_tool",
    ]) {
      expect(normalizeToolName(variant)).toBe("get_order");
    }
  });

  it("repairs a name only to an exact match after normalization", () => {
    expect(resolveToolName("getOrder", ["get_order", "list_orders"])).toBe("get_order");
    expect(resolveToolName("get_orders", ["get_order", "list_orders"])).toBeUndefined();
    expect(resolveToolName("order", ["get_order"])).toBeUndefined();
  });

  it("does not repair a name that normalizes to two registered names", () => {
    expect(resolveToolName("getOrder", ["get_order", "get-order"])).toBeUndefined();
  });

  it("dispatches a repaired name to the registered tool", async () => {
    const dispatcher = new Dispatcher(toolsetOf(getOrder));
    const { results } = await drain(
      dispatcher.dispatch([{ id: "c1", name: "getOrderTool", arguments: '{"order_id":"A1"}' }]),
    );
    expect(results[0]).toMatchObject({
      callId: "c1",
      name: "get_order",
      ok: true,
      value: { id: "A1", status: "shipped" },
    });
  });

  it("answers an unknown name with an error result that lists the available tools", async () => {
    const dispatcher = new Dispatcher(toolsetOf(getOrder, echo));
    const { results, events } = await drain(
      dispatcher.dispatch([{ id: "c1", name: "fetch_order", arguments: "{}" }]),
    );
    const result = resultFor(results, "c1");
    expect(result.ok).toBe(false);
    expect(result.error?.kind).toBe("unknown_tool");
    expect(result.output).toContain('There is no tool named "fetch_order"');
    expect(result.output).toContain("Available tools: get_order, echo.");
    expect(events.map((e) => e.type)).toEqual(["requested", "failed"]);
  });
});

describe("argument repair", () => {
  const dispatcher = new Dispatcher(toolsetOf(getOrder));

  it("repairs code fences, trailing commas and Python-style booleans", async () => {
    const flag = tool({
      name: "flag",
      description: "Set a flag.",
      input: z.object({ on: z.boolean(), id: z.string() }),
      run: (args) => args,
    });
    const d = new Dispatcher(toolsetOf(flag));
    const { results } = await drain(
      d.dispatch([{ id: "c1", name: "flag", arguments: '```json\n{"on": True, "id": "x",}\n```' }]),
    );
    expect(results[0]).toMatchObject({ ok: true, value: { on: true, id: "x" } });
  });

  it("turns unrepairable arguments into an InvalidToolArguments result", async () => {
    const { results } = await drain(
      dispatcher.dispatch([{ id: "c1", name: "get_order", arguments: "{order_id: A1" }]),
    );
    expect(results[0]!.ok).toBe(false);
    expect(results[0]!.error?.kind).toBe("invalid_arguments");
    expect(results[0]!.output).toMatch(/^Tool error: Invalid arguments for get_order:/);
  });

  it("accepts arguments already parsed into an object", async () => {
    const { results } = await drain(
      dispatcher.dispatch([{ id: "c1", name: "get_order", arguments: { order_id: "B2" } }]),
    );
    expect(results[0]).toMatchObject({ ok: true, value: { id: "B2" } });
  });
});
