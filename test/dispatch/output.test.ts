import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DEFAULT_MAX_OUTPUT_CHARS, truncateOutput } from "../../src/dispatch/truncate.js";
import { Dispatcher, renderValue, type ToolPolicy, Toolset, tool } from "../../src/index.js";
import { drain } from "./helpers.js";

const once = (name: string, args: unknown = {}) => [
  { id: "c1", name, arguments: args as Record<string, unknown> },
];

describe("policies", () => {
  it("compose with the first policy outermost", async () => {
    const order: string[] = [];
    const trace =
      (label: string): ToolPolicy =>
      async (invoke, args, ctx) => {
        order.push(`${label} in`);
        const value = await invoke(args, ctx);
        order.push(`${label} out`);
        return value;
      };
    const t = tool({
      name: "t",
      description: "T.",
      input: z.object({}),
      policies: [trace("A"), trace("B")],
      run: () => {
        order.push("run");
      },
    });
    await new Dispatcher(new Toolset([t]), { policies: [trace("D")] }).dispatch(once("t")).results();
    expect(order).toEqual(["D in", "A in", "B in", "run", "B out", "A out", "D out"]);
  });

  it("see raw arguments and may rewrite them, with validation innermost", async () => {
    let seenRaw: unknown;
    const redact: ToolPolicy = (invoke, args, ctx) => {
      seenRaw = args;
      return invoke({ ...(args as object), n: "7" }, ctx);
    };
    const t = tool({
      name: "t",
      description: "T.",
      input: z.object({ n: z.number() }),
      policies: [redact],
      run: ({ n }) => n * 2,
    });
    const results = await new Dispatcher(new Toolset([t])).dispatch(once("t", '{"n":"1"}')).results();
    expect(seenRaw).toEqual({ n: "1" });
    expect(results[0]!.value).toBe(14);
  });

  it("a policy that rewrites arguments into invalid ones gets an InvalidToolArguments result", async () => {
    const breaker: ToolPolicy = (invoke, _args, ctx) => invoke({ n: "not a number" }, ctx);
    const t = tool({
      name: "t",
      description: "T.",
      input: z.object({ n: z.number() }),
      policies: [breaker],
      run: ({ n }) => n,
    });
    const results = await new Dispatcher(new Toolset([t])).dispatch(once("t", { n: 1 })).results();
    expect(results[0]!.error?.kind).toBe("invalid_arguments");
  });

  it("may short-circuit (a cache) so the tool does not run", async () => {
    const cache = new Map<string, unknown>();
    let runs = 0;
    const cached: ToolPolicy = async (invoke, args, ctx) => {
      const key = JSON.stringify(args);
      if (cache.has(key)) return cache.get(key);
      const value = await invoke(args, ctx);
      cache.set(key, value);
      return value;
    };
    const t = tool({
      name: "search",
      description: "Search.",
      input: z.object({ q: z.string() }),
      policies: [cached],
      run: ({ q }) => {
        runs++;
        return [q];
      },
    });
    const d = new Dispatcher(new Toolset([t]));
    await d.dispatch(once("search", { q: "x" })).results();
    const second = await d.dispatch(once("search", { q: "x" })).results();
    expect(runs).toBe(1);
    expect(second[0]!.value).toEqual(["x"]);
  });

  it("may transform the result", async () => {
    const upper: ToolPolicy = async (invoke, args, ctx) => String(await invoke(args, ctx)).toUpperCase();
    const t = tool({
      name: "t",
      description: "T.",
      input: z.object({}),
      policies: [upper],
      run: () => "quiet",
    });
    const results = await new Dispatcher(new Toolset([t])).dispatch(once("t")).results();
    expect(results[0]!.output).toBe("QUIET");
  });

  it("are wrapped by retries and the timeout, so each policy sees one attempt at a time", async () => {
    let policyCalls = 0;
    let runs = 0;
    const count: ToolPolicy = (invoke, args, ctx) => {
      policyCalls++;
      return invoke(args, ctx);
    };
    const t = tool({
      name: "t",
      description: "T.",
      input: z.object({}),
      retries: 2,
      policies: [count],
      run: () => {
        runs++;
        if (runs < 3) throw new Error("again");
        return "done";
      },
    });
    const results = await new Dispatcher(new Toolset([t]), { retryDelay: 1 }).dispatch(once("t")).results();
    expect(results[0]!.ok).toBe(true);
    expect(policyCalls).toBe(3);
  });
});

describe("rendering", () => {
  it("uses the tool's renderer, else the dispatcher's, else the default JSON", async () => {
    const own = tool({
      name: "own",
      description: "O.",
      input: z.object({}),
      render: (v) => `own:${String(v)}`,
      run: () => 1,
    });
    const plain = tool({ name: "plain", description: "P.", input: z.object({}), run: () => ({ a: 1 }) });
    const withRenderer = new Dispatcher(new Toolset([own, plain]), {
      render: (v) => `dispatcher:${JSON.stringify(v)}`,
    });
    const a = await withRenderer
      .dispatch([...once("own"), { id: "c2", name: "plain", arguments: "{}" }])
      .results();
    expect(a.find((r) => r.name === "own")!.output).toBe("own:1");
    expect(a.find((r) => r.name === "plain")!.output).toBe('dispatcher:{"a":1}');
    const b = await new Dispatcher(new Toolset([plain])).dispatch(once("plain")).results();
    expect(b[0]!.output).toBe('{"a":1}');
  });

  it("error results bypass renderers", async () => {
    const t = tool({
      name: "t",
      description: "T.",
      input: z.object({}),
      render: () => "rendered",
      run: () => {
        throw new Error("nope");
      },
    });
    const results = await new Dispatcher(new Toolset([t]), { render: () => "x" })
      .dispatch(once("t"))
      .results();
    expect(results[0]!.output).toBe("Tool error: t failed: nope");
  });

  it("the default renderer handles dates, maps, sets, bigints, buffers, class instances and cycles", () => {
    class Point {
      constructor(
        public x: number,
        public y: number,
      ) {}
    }
    class Money {
      toJSON() {
        return "12.50 EUR";
      }
    }
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = cyclic;
    const value = {
      when: new Date("2026-01-02T03:04:05.000Z"),
      map: new Map([["k", 1]]),
      set: new Set([1, 2]),
      big: 12345678901234567890n,
      bytes: Buffer.from("hi"),
      point: new Point(1, 2),
      money: new Money(),
      cyclic,
    };
    expect(JSON.parse(renderValue(value))).toEqual({
      when: "2026-01-02T03:04:05.000Z",
      map: { k: 1 },
      set: [1, 2],
      big: "12345678901234567890",
      bytes: { bytes: 2, base64: "aGk=" },
      point: { x: 1, y: 2 },
      money: "12.50 EUR",
      cyclic: { name: "loop", self: "[Circular]" },
    });
    expect(renderValue("plain text")).toBe("plain text");
    expect(renderValue(undefined)).toBe("null");
  });

  it("the default renderer keeps a __proto__ key of plain data a key, and reads an own toJSON", () => {
    const parsed = JSON.parse('{"a":1,"__proto__":{"polluted":true},"list":[1,{"b":2}]}') as object;
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { z: 1, skip: undefined });
    const own = { secret: "x", toJSON: () => ({ shown: true }) };
    const rendered = renderValue({ parsed, bare, own, fn: () => 1 });
    expect(rendered).toBe(
      '{"parsed":{"a":1,"__proto__":{"polluted":true},"list":[1,{"b":2}]},"bare":{"z":1},"own":{"shown":true}}',
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(JSON.parse(rendered).parsed)).toBe(Object.prototype);
  });

  it("the raw value still reaches observers in the completed event", async () => {
    const t = tool({
      name: "t",
      description: "T.",
      input: z.object({}),
      render: () => "summary",
      run: () => ({ rows: [1, 2, 3] }),
    });
    const { events } = await drain(new Dispatcher(new Toolset([t])).dispatch(once("t")));
    expect(events.find((e) => e.type === "completed")).toMatchObject({
      value: { rows: [1, 2, 3] },
      output: "summary",
    });
  });
});

describe("truncation", () => {
  it("keeps head and tail with a marker that says how much was cut, within the cap", () => {
    const text = "H".repeat(500) + "M".repeat(1000) + "T".repeat(500);
    const { text: out, truncated } = truncateOutput(text, 300);
    expect(truncated).toBe(true);
    expect(out.length).toBeLessThanOrEqual(300);
    expect(out.startsWith("HHH")).toBe(true);
    expect(out.endsWith("TTT")).toBe(true);
    const cut = Number(/…\[([\d,]+) characters cut\]…/.exec(out)![1]!.replace(/,/g, ""));
    expect(out.length - out.match(/\n…\[[\d,]+ characters cut\]…\n/)![0].length + cut).toBe(text.length);
  });

  it("never splits a surrogate pair", () => {
    const text = "😀".repeat(1000);
    const { text: out } = truncateOutput(text, 101);
    expect(out).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(out).not.toMatch(/(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });

  it("uses the tool's cap, else the dispatcher's, else 200,000, and drops the raw value", async () => {
    expect(DEFAULT_MAX_OUTPUT_CHARS).toBe(200_000);
    const big = tool({
      name: "big",
      description: "Big.",
      input: z.object({}),
      maxOutputChars: 100,
      run: () => "x".repeat(1000),
    });
    const mid = tool({ name: "mid", description: "Mid.", input: z.object({}), run: () => "y".repeat(1000) });
    const huge = tool({
      name: "huge",
      description: "Huge.",
      input: z.object({}),
      run: () => "z".repeat(250_000),
    });
    const d = new Dispatcher(new Toolset([big, mid]), { maxOutputChars: 500 });
    const results = await d.dispatch([...once("big"), { id: "c2", name: "mid", arguments: "{}" }]).results();
    const bigResult = results.find((r) => r.name === "big")!;
    expect(bigResult.output.length).toBeLessThanOrEqual(100);
    expect(bigResult).toMatchObject({ truncated: true });
    expect("value" in bigResult).toBe(false);
    expect(results.find((r) => r.name === "mid")!.output.length).toBeLessThanOrEqual(500);
    const defaults = await new Dispatcher(new Toolset([huge])).dispatch(once("huge")).results();
    expect(defaults[0]!.output.length).toBeLessThanOrEqual(200_000);
    expect(defaults[0]!.output).toContain("characters cut");
  });
});

describe("events", () => {
  it("reports every step of a call with its callId", async () => {
    let runs = 0;
    const t = tool({
      name: "t",
      description: "T.",
      input: z.object({}),
      retries: 1,
      needsApproval: true,
      run: () => {
        runs++;
        if (runs === 1) throw new Error("first");
        return "ok";
      },
    });
    const d = new Dispatcher(new Toolset([t]), { retryDelay: 1 });
    const handle = d.dispatch(once("t"));
    const types: string[] = [];
    for await (const event of handle) {
      expect(event.callId).toBe("c1");
      types.push(event.type);
      if (event.type === "approval_required") event.approve();
    }
    expect(types).toEqual([
      "requested",
      "approval_required",
      "approval_decided",
      "started",
      "retrying",
      "started",
      "completed",
    ]);
  });

  it("reports a failed call with its error and output", async () => {
    const t = tool({
      name: "t",
      description: "T.",
      input: z.object({}),
      run: () => {
        throw new Error("bad");
      },
    });
    const { events } = await drain(new Dispatcher(new Toolset([t])).dispatch(once("t")));
    expect(events.at(-1)).toMatchObject({
      type: "failed",
      callId: "c1",
      error: { kind: "error" },
      output: "Tool error: t failed: bad",
    });
  });
});
