import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Dispatcher, type RunContext, Toolset, tool, UserError } from "../../src/index.js";

const order = tool({
  name: "get_order",
  description: "Look up an order.",
  input: z.object({ order_id: z.string(), tags: z.record(z.string(), z.string()).optional() }),
  run: (args) => args,
});
const dispatcher = new Dispatcher(new Toolset([order]));

function deep(levels: number): string {
  return `{"order_id":"A","x":${"[".repeat(levels)}${"]".repeat(levels)}}`;
}

const hostile: [string, unknown][] = [
  ["wrong types", '{"order_id": 12}'],
  ["a 2 MB string", JSON.stringify({ order_id: "x".repeat(2_000_000) }).slice(0, -2)],
  ["deep nesting", deep(100_000)],
  ["a __proto__ key", '{"order_id":"A","__proto__":{"polluted":true}}'],
  ["a nested __proto__ key", '{"order_id":"A","tags":{"__proto__":{"polluted":"yes"}}}'],
  ["non-JSON", "order_id=A"],
  ["a JSON array", "[1,2]"],
  ["JSON null", "null"],
  ["a number", 42],
];

describe("hostile model input", () => {
  it.each(hostile)("%s yields an error result, never an exception out of dispatch", async (_label, args) => {
    const results = await dispatcher
      .dispatch([{ id: "c1", name: "get_order", arguments: args as string }])
      .results();
    expect(results).toHaveLength(1);
    expect(results[0]!.ok).toBe(false);
    expect(results[0]!.error?.kind).toBe("invalid_arguments");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("a name that is not a string is an unknown tool, not a crash", async () => {
    const results = await dispatcher
      .dispatch([{ id: "c1", name: 7 as unknown as string, arguments: "{}" }])
      .results();
    expect(results[0]!.error?.kind).toBe("unknown_tool");
  });
});

describe("bad configuration", () => {
  it("dispatch with something that is not an array of calls raises UserError", () => {
    expect(() => dispatcher.dispatch("calls" as never)).toThrow(UserError);
    expect(() => dispatcher.dispatch([{ name: "get_order", arguments: "{}" } as never])).toThrow(/has no id/);
  });

  it("a Dispatcher without a Toolset raises UserError", () => {
    expect(() => new Dispatcher([] as never)).toThrow(UserError);
  });

  it("a negative option raises UserError naming the option", () => {
    expect(() => new Dispatcher(new Toolset([order]), { maxConcurrency: 0 })).toThrow(/maxConcurrency/);
  });
});

describe("run context", () => {
  it("passes run id, call id, tool name, signal, deps, session, budget and no parent", async () => {
    let ctx: RunContext | undefined;
    const t = tool({
      name: "ctx",
      description: "Context.",
      input: z.object({}),
      run: (_args, c) => {
        ctx = c;
        c.session?.state.set("seen", true);
      },
    });
    const d = new Dispatcher(new Toolset([t]), { deps: { db: "main" } });
    const handle = d.dispatch([{ id: "call-9", name: "ctx", arguments: "{}" }], {
      session: "s-1",
      runId: "run-1",
    });
    await handle.results();
    expect(ctx).toMatchObject({
      runId: "run-1",
      callId: "call-9",
      toolName: "ctx",
      deps: { db: "main" },
      attempt: 1,
    });
    expect(ctx!.signal).toBeInstanceOf(AbortSignal);
    expect(ctx!.session?.id).toBe("s-1");
    expect(ctx!.parentCallId).toBeUndefined();
    expect(ctx!.budget.spent("toolCalls")).toBe(1);
    await d.dispatch([{ id: "call-10", name: "ctx", arguments: "{}" }], { session: "s-1" }).results();
    expect(ctx!.session?.state.get("seen")).toBe(true);
  });

  it("fires ctx.signal when the turn ends, and a nested dispatch with a finished turn's context runs nothing", async () => {
    let kept: RunContext | undefined;
    let effects = 0;
    const keep = tool({
      name: "keep",
      description: "Keeps its context.",
      input: z.object({}),
      run: (_a, c) => {
        kept = c;
      },
    });
    const effect = tool({
      name: "effect",
      description: "Has an effect.",
      input: z.object({}),
      run: () => {
        effects++;
      },
    });
    await new Dispatcher(new Toolset([keep]))
      .dispatch([{ id: "k", name: "keep", arguments: "{}" }])
      .results();
    expect(kept!.signal.aborted).toBe(true);
    const late = await new Dispatcher(new Toolset([effect]))
      .dispatch([{ id: "late", name: "effect", arguments: "{}" }], { parent: kept! })
      .results();
    expect(late[0]).toMatchObject({ ok: false, error: { kind: "cancelled" } });
    expect(effects).toBe(0);
  });

  it("never appears in the schema the model sees", () => {
    const t = tool({
      name: "ctx",
      description: "Context.",
      input: z.object({ a: z.string() }),
      run: (_a, _c) => 1,
    });
    expect(Object.keys((t.parameters as { properties: object }).properties)).toEqual(["a"]);
  });

  it("nested dispatches from a tool carry the parent call id and share the turn's events", async () => {
    const inner = tool({
      name: "inner",
      description: "Inner.",
      input: z.object({}),
      run: (_a, c) => c.parentCallId,
    });
    let nestedResult: unknown;
    const toolset = new Toolset([inner]);
    const outer = tool({
      name: "outer",
      description: "Outer.",
      input: z.object({}),
      run: async (_a, c) => {
        const results = await new Dispatcher(toolset)
          .dispatch([{ id: "n1", name: "inner", arguments: "{}" }], { parent: c })
          .results();
        nestedResult = results[0];
        return "done";
      },
    });
    const handle = new Dispatcher(new Toolset([outer])).dispatch([
      { id: "o1", name: "outer", arguments: "{}" },
    ]);
    const seen: string[] = [];
    for await (const event of handle) seen.push(`${event.type}:${event.callId}:${event.parentCallId ?? "-"}`);
    expect(nestedResult).toMatchObject({ callId: "n1", ok: true, value: "o1", parentCallId: "o1" });
    expect(seen).toContain("completed:n1:o1");
    expect(seen).toContain("completed:o1:-");
  });
});
