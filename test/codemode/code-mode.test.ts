import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import { SESSION_REPLACED } from "../../src/codemode/code-mode.js";
import {
  type CodeMode,
  type CodeRunResult,
  codeMode,
  DEFAULT_CODE_MODE_LIMITS,
  type DispatchEvent,
  Dispatcher,
  type ToolPolicy,
  Toolset,
  tool,
  UserError,
} from "../../src/index.js";

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function shop() {
  const log: string[] = [];
  let active = 0;
  let peak = 0;
  const orders = Object.fromEntries(
    Array.from({ length: 10 }, (_, i) => [
      `A${i}`,
      { id: `A${i}`, customer: i % 2 ? "odd" : "even", amount: i * 10 },
    ]),
  );
  const listOrders = tool({
    name: "list_orders",
    description: "List a customer's order ids.",
    input: z.object({ customer: z.string() }),
    output: z.array(z.string()),
    run: ({ customer }) =>
      Object.values(orders)
        .filter((o) => o.customer === customer)
        .map((o) => o.id),
  });
  const getOrder = tool({
    name: "get_order",
    description: "Get one order.",
    input: z.object({ id: z.string() }),
    run: async ({ id }) => {
      active++;
      peak = Math.max(peak, active);
      log.push(id);
      await wait(20);
      active--;
      return orders[id] ?? null;
    },
  });
  const refund = tool({
    name: "refund",
    description: "Refund an order.",
    input: z.object({ id: z.string(), amount: z.number() }),
    needsApproval: ({ amount }) => amount > 50,
    run: ({ id, amount }) => ({ id, refunded: amount }),
  });
  const tick = tool({
    name: "tick",
    description: "Counts calls.",
    input: z.object({}),
    run: async () => {
      log.push("tick");
      await wait(5);
      return log.length;
    },
  });
  return { toolset: new Toolset([listOrders, getOrder, refund, tick]), log, peak: () => peak };
}

const open: CodeMode[] = [];
function make(options: Partial<Parameters<typeof codeMode>[0]> & { toolset: Toolset }): CodeMode {
  const { toolset, ...rest } = options;
  const cm = codeMode({ tools: toolset, environment: isolateEnvironment(), ...rest });
  open.push(cm);
  return cm;
}
afterAll(async () => {
  await Promise.all(open.map((cm) => cm.close()));
});

describe("code mode: the model's side", () => {
  it("runs TypeScript that calls several tools and returns the last expression", async () => {
    const { toolset } = shop();
    const cm = make({ toolset });
    const result = await cm.run(`
      const ids: string[] = await tools.list_orders({ customer: "odd" });
      const orders = await Promise.all(ids.map((id) => tools.get_order({ id })));
      ({ count: orders.length, total: orders.reduce((sum, o: any) => sum + o.amount, 0) })
    `);
    expect(result.status).toBe("ok");
    expect(result.value).toEqual({ count: 5, total: 250 });
    expect(result.calls.map((c) => c.tool).sort()).toEqual([...Array(5).fill("get_order"), "list_orders"]);
    expect(result.calls.every((c) => c.status === "ok")).toBe(true);
  });

  it("Promise.all fan-out runs concurrently, bounded by maxConcurrentCalls", async () => {
    const s = shop();
    const cm = make({ toolset: s.toolset, limits: { maxConcurrentCalls: 3 } });
    const result = await cm.run(
      `await Promise.all(Array.from({ length: 9 }, (_, i) => tools.get_order({ id: "A" + i }))); return "done";`,
    );
    expect(result.value).toBe("done");
    expect(s.peak()).toBe(3);
  });

  it("a failed call rejects with a catchable error carrying tool, kind and message", async () => {
    const { toolset } = shop();
    const cm = make({ toolset });
    const result = await cm.run(`
      const kinds = [];
      try { await tools.get_order({ id: 42 }); } catch (e) { kinds.push([e.tool, e.kind, e.message.includes("expected string")]); }
      try { await tools.refund({ id: "A9", amount: 90 }); } catch (e) { kinds.push([e.tool, e.kind]); }
      return kinds;
    `);
    expect(result.value).toEqual([
      ["get_order", "invalid_arguments", true],
      ["refund", "denied"],
    ]);
  });

  it("reports an uncaught error with the line and column of the model's TypeScript", async () => {
    const { toolset } = shop();
    const cm = make({ toolset });
    const result = await cm.run(
      [
        "type Order = { id: string };",
        "interface X { a: number }",
        "",
        "const o: Order = { id: 'x' };",
        "throw new Error('broken ' + o.id);",
      ].join("\n"),
    );
    expect(result.status).toBe("error");
    expect(result.error).toMatchObject({ name: "Error", message: "broken x", line: 5, column: 7 });
    const indented = await cm.run("const n: number = 1;\nif (n) {\n    missing(n);\n}");
    expect(indented.error).toMatchObject({ name: "ReferenceError", line: 3, column: 5 });
  });

  it("captures console output with its level", async () => {
    const { toolset } = shop();
    const cm = make({ toolset });
    const result = await cm.run(
      `console.log("a", { b: 1 }); console.warn("careful"); console.error("bad"); 1`,
    );
    expect(result.logs.map((l) => l.level)).toEqual(["log", "warn", "error"]);
    expect(result.logs[0]!.text).toContain("a");
    expect(result.logs[1]!.text).toBe("careful");
  });

  it("tools with names that are not identifiers are reachable under sanitized names", async () => {
    const dashed = tool({ name: "get-time", description: "Time.", input: z.object({}), run: () => "noon" });
    const cm = make({ toolset: new Toolset([dashed]) });
    expect(cm.declarations).toContain("get_time");
    expect((await cm.run("await tools.get_time({})")).value).toBe("noon");
  });

  it("rejects two tools whose sanitized names collide, at codeMode() time", () => {
    const a = tool({ name: "get-time", description: "A.", input: z.object({}), run: () => 1 });
    const b = tool({ name: "get.time", description: "B.", input: z.object({}), run: () => 2 });
    expect(() => codeMode({ tools: [a, b], environment: isolateEnvironment() })).toThrow(UserError);
  });

  it("require, process and fetch are absent, with an error that says what to use", async () => {
    const { toolset } = shop();
    const cm = make({ toolset });
    for (const code of ["require('fs')", "process.env", "await fetch('http://127.0.0.1')"]) {
      const result = await cm.run(code);
      expect(result.status).toBe("error");
      expect(result.error!.message).toMatch(/tools/);
    }
    const imported = await cm.run(`import fs from "fs";\nfs`);
    expect(imported.error!.message).toMatch(/import is not available/);
  });
});

describe("code mode: every proxied call is a full dispatcher call", () => {
  it("policies, retries and events apply to calls made from code, with the run_code call as parent", async () => {
    const seen: unknown[] = [];
    let attempts = 0;
    const audit: ToolPolicy = async (invoke, args, ctx) => {
      seen.push(args);
      return invoke(args, ctx);
    };
    const flaky = tool({
      name: "flaky",
      description: "Fails once.",
      input: z.object({ n: z.number() }),
      retries: 1,
      policies: [audit],
      run: ({ n }) => {
        attempts++;
        if (attempts === 1) throw new Error("blip");
        return n * 2;
      },
    });
    const toolset = new Toolset([flaky]);
    const inner = new Dispatcher(toolset, { retryDelay: 1 });
    const cm = make({ toolset, dispatcher: inner });
    const outer = new Dispatcher(new Toolset([cm.tool]));
    const handle = outer.dispatch([
      { id: "rc1", name: "run_code", arguments: { code: "await tools.flaky({ n: '21' })" } },
    ]);
    const events: DispatchEvent[] = [];
    for await (const event of handle) events.push(event);
    const [result] = await handle.results();
    expect(result!.ok).toBe(true);
    expect((result!.value as CodeRunResult).value).toBe(42);
    expect(seen).toEqual([{ n: "21" }, { n: "21" }]);
    const child = events.filter((e) => e.name === "flaky");
    expect(child.map((e) => e.type)).toEqual(["requested", "started", "retrying", "started", "completed"]);
    expect(child.every((e) => e.parentCallId === "rc1")).toBe(true);
    expect(result!.output).toContain("42");
  });

  it("the stream consumer approves calls made from code", async () => {
    const { toolset } = shop();
    const cm = make({ toolset });
    const outer = new Dispatcher(new Toolset([cm.tool]));
    const handle = outer.dispatch([
      { id: "rc", name: "run_code", arguments: { code: "await tools.refund({ id: 'A9', amount: 90 })" } },
    ]);
    for await (const event of handle) if (event.type === "approval_required") event.approve();
    const [result] = await handle.results();
    expect((result!.value as CodeRunResult).value).toEqual({ id: "A9", refunded: 90 });
  });

  it("a run_code call whose code keeps 16 calls in flight prints no MaxListenersExceededWarning", async () => {
    const { toolset } = shop();
    const cm = make({ toolset });
    const outer = new Dispatcher(new Toolset([cm.tool]));
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    try {
      const handle = outer.dispatch([
        {
          id: "rc",
          name: "run_code",
          arguments: { code: "(await Promise.all(Array.from({ length: 40 }, () => tools.tick({})))).length" },
        },
      ]);
      const [result] = await handle.results();
      expect((result!.value as CodeRunResult).value).toBe(40);
      // Node emits process warnings on the next tick.
      await wait(10);
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings.filter((warning) => warning.includes("MaxListeners"))).toEqual([]);
  });

  it("refuses calls beyond maxToolCalls with a limit error", async () => {
    const s = shop();
    const cm = make({ toolset: s.toolset, limits: { maxToolCalls: 3 } });
    const result = await cm.run(`
      let refused;
      for (let i = 0; i < 5; i++) { try { await tools.tick({}); } catch (e) { refused = [e.kind, e.message]; break; } }
      return refused;
    `);
    expect(s.log.filter((l) => l === "tick")).toHaveLength(3);
    expect(result.value).toEqual(["limit", expect.stringContaining("3")]);
  });
});

describe("code mode: a run that has ended causes no further effect", () => {
  it("no tool runs after a timeout", async () => {
    const s = shop();
    const cm = make({ toolset: s.toolset, limits: { timeoutMs: 300 } });
    const result = await cm.run(`
      (async () => { for (;;) await tools.tick({}); })();
      await new Promise(() => {});
    `);
    expect(result.status).toBe("timeout");
    const ticks = s.log.length;
    expect(ticks).toBeGreaterThan(0);
    await wait(200);
    expect(s.log.length).toBe(ticks);
  });

  it("a synchronous infinite loop ends at the wall-clock limit", async () => {
    const { toolset } = shop();
    const cm = make({ toolset, limits: { timeoutMs: 200, cpuTimeMs: 5_000 } });
    const result = await cm.run("for (;;) {}");
    expect(["timeout", "limit"]).toContain(result.status);
    expect(result.error?.message).toMatch(/0\.2 s|200 ms|time/);
  });
});

describe("code mode: review findings that must stay fixed", () => {
  it("a call whose approval check finishes after the run ended never runs its tool", async () => {
    let ran = false;
    const send = tool({
      name: "send_email",
      description: "Send.",
      input: z.object({ to: z.string() }),
      needsApproval: async () => {
        await wait(80);
        return false;
      },
      run: () => {
        ran = true;
      },
    });
    const cm = make({ toolset: new Toolset([send]) });
    const result = await cm.run(`tools.send_email({ to: "x" }).catch(() => {}); return 1;`);
    expect(result.value).toBe(1);
    await wait(150);
    expect(ran).toBe(false);
    expect(result.calls).toEqual([expect.objectContaining({ tool: "send_email", status: "cancelled" })]);
  });

  it("the run_code call takes neither the dispatcher's default retries nor its default timeout", async () => {
    let sleeps = 0;
    const slow = tool({
      name: "slow",
      description: "Slow.",
      input: z.object({}),
      run: async () => {
        sleeps++;
        await wait(300);
        return "done";
      },
    });
    const cm = make({ toolset: new Toolset([slow]), dispatcher: new Dispatcher(new Toolset([slow])) });
    const outer = new Dispatcher(new Toolset([cm.tool]), { retries: 2, timeout: 100, retryDelay: 1 });
    const [result] = await outer
      .dispatch([{ id: "c", name: "run_code", arguments: { code: "await tools.slow({})" } }])
      .results();
    expect(result).toMatchObject({ ok: true, attempts: 1 });
    expect((result!.value as CodeRunResult).value).toBe("done");
    expect(sleeps).toBe(1);
  });

  it("with the default inner dispatcher, calls from code use the outer dispatcher's approval handler", async () => {
    const { toolset } = shop();
    const cm = make({ toolset });
    const outer = new Dispatcher(new Toolset([cm.tool]), { approvalHandler: () => "allow" });
    const [result] = await outer
      .dispatch([
        { id: "rc", name: "run_code", arguments: { code: "await tools.refund({ id: 'A9', amount: 90 })" } },
      ])
      .results();
    expect((result!.value as CodeRunResult).value).toEqual({ id: "A9", refunded: 90 });
  });

  it("calls cut off by a timeout are listed as cancelled in the run's calls", async () => {
    const hang = tool({
      name: "hang",
      description: "Hangs until its call is aborted.",
      input: z.object({}),
      run: (_args, ctx) =>
        new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))),
    });
    const cm = make({ toolset: new Toolset([hang]), limits: { timeoutMs: 200 } });
    const result = await cm.run("await tools.hang({})");
    expect(result.status).toBe("timeout");
    expect(result.calls).toEqual([expect.objectContaining({ tool: "hang", status: "cancelled" })]);
  });

  it("a run cut off while a tool ignores its signal returns only once that tool has finished", async () => {
    let finished = false;
    const lingering = tool({
      name: "linger",
      description: "Ignores its signal and finishes 300 ms after it started.",
      input: z.object({}),
      run: () =>
        new Promise((resolve) =>
          setTimeout(() => {
            finished = true;
            resolve("late");
          }, 300),
        ),
    });
    const cm = make({ toolset: new Toolset([lingering]), limits: { timeoutMs: 100 } });
    const result = await cm.run("await tools.linger({})");
    expect(result.status).toBe("timeout");
    expect(finished).toBe(true);
    expect(result.calls).toEqual([expect.objectContaining({ tool: "linger", status: "cancelled" })]);
  });

  it("a call whose tool ignores its signal and never finishes is recorded as abandoned", async () => {
    const hang = tool({
      name: "hang",
      description: "Hangs forever, ignoring its signal.",
      input: z.object({}),
      run: () => new Promise(() => {}),
    });
    const cm = make({ toolset: new Toolset([hang]), limits: { timeoutMs: 200 } });
    const result = await cm.run("await tools.hang({})");
    expect(result.status).toBe("timeout");
    expect(result.calls).toEqual([expect.objectContaining({ tool: "hang", status: "abandoned" })]);
  });
});

describe("code mode: sessions", () => {
  it("without a session id, session state uses one default session, as the instructions promise", async () => {
    const { toolset } = shop();
    const cm = make({ toolset, state: "session" });
    await cm.run("var remembered = 'yes'");
    expect((await cm.run("remembered")).value).toBe("yes");
  });

  it("a session evicted by the cap comes back empty and says so", async () => {
    const { toolset } = shop();
    const cm = make({ toolset, state: "session", sessions: { max: 1 } });
    await cm.run("var v = 1", { session: "first" });
    await cm.run("var v = 2", { session: "second" });
    const back = await cm.run("typeof v", { session: "first" });
    expect(back.value).toBe("undefined");
    expect(back.logs[0]).toEqual({ level: "warn", text: SESSION_REPLACED });
  });

  it("keeps variables between runs of one session, and restart resets them", async () => {
    const { toolset } = shop();
    const cm = make({ toolset, state: "session" });
    await cm.run("var total = 41;", { session: "s1" });
    expect((await cm.run("total + 1", { session: "s1" })).value).toBe(42);
    expect((await cm.run("typeof total", { session: "s2" })).value).toBe("undefined");
    expect((await cm.run("typeof total", { session: "s1", restart: true })).value).toBe("undefined");
  });

  it("run_code's restart argument resets the session of the dispatch", async () => {
    const { toolset } = shop();
    const cm = make({ toolset, state: "session" });
    const d = new Dispatcher(new Toolset([cm.tool]));
    const run = async (args: object) => {
      const [r] = await d
        .dispatch([{ id: "x", name: "run_code", arguments: args as Record<string, unknown> }], {
          session: "chat-1",
        })
        .results();
      return (r!.value as CodeRunResult).value;
    };
    await run({ code: "var n = 1" });
    expect(await run({ code: "n" })).toBe(1);
    expect(await run({ code: "typeof n", restart: true })).toBe("undefined");
  });

  it("caps live sessions, evicting the least recently used", async () => {
    const { toolset } = shop();
    const cm = make({ toolset, state: "session", sessions: { max: 2 } });
    await cm.run("var v = 'a'", { session: "a" });
    await cm.run("var v = 'b'", { session: "b" });
    await cm.run("var v = 'c'", { session: "c" });
    expect((await cm.run("typeof v === 'undefined' ? 'gone' : v", { session: "b" })).value).toBe("b");
    expect((await cm.run("typeof v === 'undefined' ? 'gone' : v", { session: "a" })).value).toBe("gone");
  });

  it("tells the model when a limit ended its session and the next run started afresh", async () => {
    const { toolset } = shop();
    const cm = make({ toolset, state: "session", limits: { timeoutMs: 300 } });
    await cm.run("var kept = 1", { session: "dies" });
    expect((await cm.run("for (;;) {}", { session: "dies" })).status).not.toBe("ok");
    const next = await cm.run("typeof kept", { session: "dies" });
    expect(next.value).toBe("undefined");
    expect(next.logs[0]).toEqual({ level: "warn", text: SESSION_REPLACED });
    const after = await cm.run("1", { session: "dies" });
    expect(after.logs).toEqual([]);
  });

  it("expires idle sessions", async () => {
    const { toolset } = shop();
    const cm = make({ toolset, state: "session", sessions: { idleMs: 50 } });
    await cm.run("var kept = true", { session: "idle" });
    await wait(200);
    expect((await cm.run("typeof kept", { session: "idle" })).value).toBe("undefined");
  });
});

describe("code mode: declarations and instructions", () => {
  it("declarations are valid TypeScript that types the tools", () => {
    const { toolset } = shop();
    const cm = make({ toolset });
    const source = `${cm.declarations}\nasync function use() { const ids: string[] = await tools.list_orders({ customer: "x" }); return ids; }\nexport {};\n`;
    const host = ts.createCompilerHost({ strict: true, noEmit: true, target: ts.ScriptTarget.ES2022 });
    const original = host.getSourceFile;
    host.getSourceFile = (name, lang) =>
      name === "decl.ts" ? ts.createSourceFile(name, source, ts.ScriptTarget.ES2022) : original(name, lang);
    const program = ts.createProgram(
      ["decl.ts"],
      { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, lib: ["lib.es2022.d.ts"], types: [] },
      host,
    );
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(problems).toEqual([]);
    expect(cm.declarations).toContain("List a customer's order ids.");
  });

  it("instructions state the limits from the code and the environment's own isolation sentence", () => {
    const { toolset } = shop();
    const env = isolateEnvironment();
    const cm = make({ toolset, environment: env, limits: { maxToolCalls: 7 } });
    expect(cm.instructions).toContain("7 tool calls");
    expect(cm.instructions).toContain(`${DEFAULT_CODE_MODE_LIMITS.memoryMb} MB`);
    expect(cm.instructions).toContain(
      `at most ${DEFAULT_CODE_MODE_LIMITS.maxConcurrentCalls} run at the same time`,
    );
    expect(cm.instructions).toContain(env.isolation);
  });

  it("fences the declarations with more backticks than any description contains", () => {
    const quoting = tool({
      name: "quote",
      description: "Use like:\n```\nquote()\n```",
      input: z.object({}),
      run: () => 1,
    });
    const cm = make({ toolset: new Toolset([quoting]), discovery: { declarationsIn: "instructions" } });
    expect(cm.instructions).toContain("````ts\n");
    expect(cm.instructions.trimEnd().endsWith("````")).toBe(true);
  });

  it("session instructions say when a session starts over, with the idle time from the options", () => {
    const { toolset } = shop();
    const cm = make({ toolset, state: "session", sessions: { idleMs: 5 * 60_000 } });
    expect(cm.instructions).toContain("persist between runs in the same session");
    expect(cm.instructions).toContain("A session unused for 5 min");
    expect(make({ toolset }).instructions).toContain("Every run starts in a fresh sandbox");
  });
});
