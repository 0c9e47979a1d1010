// Direct commands (Bub's command prefix): one typed line becomes a validated call of the same tool, run
// through the dispatcher with the same events; a bad command is a usage error for the person who typed it.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type DispatchEvent, Dispatcher, Toolset, tool, UsageError } from "../../src/index.js";
import { commandUsage } from "../../src/tools/command.js";

const getOrder = tool({
  name: "get_order",
  description: "Look up one order.",
  input: z.object({
    order_id: z.string().describe("Full order id, e.g. A123"),
    verbose: z.boolean().optional().describe("Include the history"),
  }),
  run: ({ order_id, verbose }) => ({
    order_id,
    status: "shipped",
    ...(verbose ? { history: ["paid"] } : {}),
  }),
});
const transfer = tool({
  name: "transfer",
  description: "Move money.",
  input: z.object({
    from: z.string(),
    to: z.string(),
    amount: z.number().positive(),
    note: z.string().optional(),
  }),
  run: (args) => args,
});
const tagItems = tool({
  name: "tag_items",
  description: "Tag items.",
  input: z.object({
    ids: z.array(z.number()),
    tag: z.string(),
    meta: z.object({ by: z.string() }).optional(),
  }),
  run: (args) => args,
});
const tools = new Toolset([getOrder, transfer, tagItems]);

describe("Toolset.parseCommand", () => {
  it("maps positional words to required parameters in order, and runs through the dispatcher with the same events", async () => {
    const call = await tools.parseCommand(",get_order A123", { id: "cmd-1" });
    expect(call).toEqual({ id: "cmd-1", name: "get_order", arguments: { order_id: "A123" } });
    const dispatcher = new Dispatcher(tools);
    const handle = dispatcher.dispatch([call!]);
    const events: DispatchEvent["type"][] = [];
    for await (const event of handle) events.push(event.type);
    const [result] = await handle.results();
    expect(events).toEqual(["requested", "started", "completed"]);
    expect(result!.value).toEqual({ order_id: "A123", status: "shipped" });
  });

  it("sets parameters by name with key=value, coerced by the tool's schema on dispatch", async () => {
    const call = await tools.parseCommand(',transfer acct-1 acct-2 note="rent for May" amount=12.5');
    expect(call?.arguments).toEqual({ from: "acct-1", to: "acct-2", amount: "12.5", note: "rent for May" });
    const [result] = await new Dispatcher(tools).dispatch([call!]).results();
    expect(result!.value).toEqual({ from: "acct-1", to: "acct-2", amount: 12.5, note: "rent for May" });
    const verbose = await tools.parseCommand(",get_order A9 verbose=true");
    const [detailed] = await new Dispatcher(tools).dispatch([verbose!]).results();
    expect(detailed!.value).toEqual({ order_id: "A9", status: "shipped", history: ["paid"] });
  });

  it("reads JSON for parameters that take arrays or objects", async () => {
    const call = await tools.parseCommand(`,tag_items [1,2,3] sale meta='{"by":"ann"}'`);
    expect(call?.arguments).toEqual({ ids: [1, 2, 3], tag: "sale", meta: { by: "ann" } });
  });

  it("keeps a quoted word a value, even with = in it", async () => {
    const call = await tools.parseCommand(`,get_order "A=1"`);
    expect(call?.arguments).toEqual({ order_id: "A=1" });
    expect((await tools.parseCommand(`,get_order 'it''s'`))?.arguments).toEqual({ order_id: "its" });
    expect((await tools.parseCommand(`,get_order "say \\"hi\\""`))?.arguments).toEqual({
      order_id: 'say "hi"',
    });
  });

  it("takes another prefix, and says a line without it is not a command", async () => {
    expect(await tools.parseCommand("/get_order A1", { prefix: "/" })).toMatchObject({ name: "get_order" });
    expect(await tools.parseCommand("get_order A1")).toBeUndefined();
    expect(await tools.parseCommand("what is the status of A1?")).toBeUndefined();
    await expect(tools.parseCommand(",x", { prefix: " " })).rejects.toThrow(
      /prefix must be a non-empty string/,
    );
  });

  it.each([
    [",nope 1", 'Unknown command ",nope". Available: get_order, transfer, tag_items.'],
    [",", 'Name a tool after ",". Available: get_order, transfer, tag_items.'],
    [",get_order", "Missing <order_id>."],
    [",transfer a", "Missing <to>, <amount>."],
    [
      ",get_order A1 A2",
      'Too many values: "A2" has no required parameter left to fill; name it (name=value).',
    ],
    [",get_order A1 colour=red", 'get_order has no parameter "colour".'],
    [",get_order order_id=A1 order_id=A2", "order_id is given twice."],
    [",transfer a b -5", "Invalid arguments:\n- amount: must be > 0"],
    [",transfer a b ten", "Invalid arguments:\n- amount: expected number"],
    [',get_order "A1', "Unclosed double quote in the command."],
    [",get_order __proto__=x", 'get_order has no parameter "__proto__".'],
  ])("refuses %j with a usage error", async (line, message) => {
    const error = await tools.parseCommand(line).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain(message);
  });

  it("shows the tool's parameters in the usage error", async () => {
    const error = (await tools.parseCommand(",get_order").catch((e: unknown) => e)) as UsageError;
    expect(error.toolName).toBe("get_order");
    expect(error.message).toBe(
      [
        "Missing <order_id>.",
        "Usage: ,get_order <order_id> [name=value ...]",
        "  order_id (string, required): Full order id, e.g. A123",
        "  verbose (boolean): Include the history",
      ].join("\n"),
    );
    expect(commandUsage(transfer, "/")).toBe(
      [
        "Usage: /transfer <from> <to> <amount> [name=value ...]",
        "  from (string, required)",
        "  to (string, required)",
        "  amount (number, required)",
        "  note (string)",
      ].join("\n"),
    );
  });
});
