import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type DispatchEvent, Dispatcher, tool, UserError } from "../../src/index.js";
import { deferred, drain, echo, toolsetOf, wait } from "./helpers.js";

const add = tool({
  name: "add",
  description: "Add two numbers.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});

describe("Dispatcher.runCall: one call of a run, through the whole pipeline", () => {
  it("coerces and validates the arguments, runs the tool and tells onEvent its events with the parent's id", async () => {
    const dispatcher = new Dispatcher(toolsetOf(add));
    const run = dispatcher.openRun({ callId: "run-1", toolName: "run_code" });
    const events: DispatchEvent[] = [];
    const { result, runningOn } = await dispatcher.runCall(
      { id: "c1", name: "add", arguments: '{"a": "2", "b": 3}' },
      { parent: run.context, onEvent: (event) => events.push(event) },
    );
    run.close();
    expect(result).toMatchObject({ callId: "c1", name: "add", ok: true, value: 5, parentCallId: "run-1" });
    expect(runningOn).toBeUndefined();
    expect(events.map((event) => event.type)).toEqual(["requested", "started", "completed"]);
    expect(events.every((event) => event.parentCallId === "run-1")).toBe(true);
  });

  it("a call with invalid arguments fails as invalid_arguments and never runs the tool", async () => {
    let ran = false;
    const guarded = tool({
      name: "guarded",
      description: "Runs only with a number.",
      input: z.object({ n: z.number() }),
      run: () => {
        ran = true;
        return "ran";
      },
    });
    const dispatcher = new Dispatcher(toolsetOf(guarded));
    const run = dispatcher.openRun({ callId: "run-1" });
    const { result } = await dispatcher.runCall(
      { id: "c1", name: "guarded", arguments: '{"n": "many"}' },
      { parent: run.context },
    );
    expect(result.ok).toBe(false);
    expect(result.error?.kind).toBe("invalid_arguments");
    expect(ran).toBe(false);
  });

  it("an ungated tool with synchronous validation is running before runCall returns; a gated one is not", async () => {
    const ran: string[] = [];
    const plain = tool({
      name: "plain",
      description: "Records that it ran.",
      input: z.object({}),
      run: () => {
        ran.push("plain");
        return "ok";
      },
    });
    const gated = tool({
      name: "gated_plain",
      description: "Records that it ran, after approval.",
      input: z.object({}),
      needsApproval: true,
      run: () => {
        ran.push("gated");
        return "ok";
      },
    });
    const dispatcher = new Dispatcher(toolsetOf(plain, gated), { approvalHandler: () => "allow" });
    const run = dispatcher.openRun({ callId: "run-1" });
    const first = dispatcher.runCall({ id: "c1", name: "plain", arguments: "{}" }, { parent: run.context });
    // Nothing was awaited yet: the call went from preflight to its tool within this step.
    expect(ran).toEqual(["plain"]);
    const second = dispatcher.runCall(
      { id: "c2", name: "gated_plain", arguments: "{}" },
      { parent: run.context },
    );
    expect(ran).toEqual(["plain"]);
    expect((await first).result.ok).toBe(true);
    expect((await second).result.ok).toBe(true);
    expect(ran).toEqual(["plain", "gated"]);
    run.close();
  });

  it("a gated call waits for the approval of whoever reads the parent turn's events", async () => {
    const gated = tool({
      name: "gated",
      description: "Echo, gated.",
      input: z.object({ text: z.string() }),
      needsApproval: true,
      run: ({ text }) => text,
    });
    const dispatcher = new Dispatcher(toolsetOf(echo, gated));
    const parentTool = tool({
      name: "parent",
      description: "Makes one gated call as a child.",
      input: z.object({}),
      run: async (_args, ctx) => {
        const { result } = await dispatcher.runCall(
          { id: "child", name: "gated", arguments: { text: "hi" } },
          { parent: ctx },
        );
        return result.output;
      },
    });
    dispatcher.toolset.add(parentTool);
    const handle = dispatcher.dispatch([{ id: "p", name: "parent", arguments: {} }]);
    const events: DispatchEvent[] = [];
    for await (const event of handle) {
      events.push(event);
      if (event.type === "approval_required") event.approve();
    }
    const [result] = await handle.results();
    expect(result?.output).toBe("hi");
    expect(events.find((event) => event.type === "approval_required")).toMatchObject({
      callId: "child",
      parentCallId: "p",
    });
  });

  it("a call ended by its timeout resolves with runningOn, which settles when the tool returns", async () => {
    const release = deferred();
    const stubborn = tool({
      name: "stubborn",
      description: "Ignores its signal.",
      input: z.object({}),
      timeout: 10,
      run: async () => {
        await release.promise;
        return "late";
      },
    });
    const dispatcher = new Dispatcher(toolsetOf(stubborn));
    const run = dispatcher.openRun({ callId: "run-1" });
    const { result, runningOn } = await dispatcher.runCall(
      { id: "c1", name: "stubborn", arguments: {} },
      { parent: run.context },
    );
    expect(result.error?.kind).toBe("timeout");
    expect(runningOn).toBeInstanceOf(Promise);
    let settled = false;
    void runningOn?.then(() => {
      settled = true;
    });
    await wait(20);
    expect(settled).toBe(false);
    release.resolve();
    await runningOn;
    expect(settled).toBe(true);
  });

  it("hands on the raw value of a call whose rendered output was truncated", async () => {
    const big = tool({
      name: "big",
      description: "A long list.",
      input: z.object({}),
      maxOutputChars: 50,
      run: () => Array.from({ length: 100 }, (_, i) => i),
    });
    const dispatcher = new Dispatcher(toolsetOf(big));
    const run = dispatcher.openRun({ callId: "run-1" });
    const { result, value, valueJson } = await dispatcher.runCall(
      { id: "c1", name: "big", arguments: {} },
      { parent: run.context },
    );
    run.close();
    expect(result.truncated).toBe(true);
    expect(result.value).toBeUndefined();
    expect(value).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(JSON.parse(valueJson ?? "null")).toEqual(value);
  });

  it("gives the value's JSON when the default rendering made it, and only then", async () => {
    const data = tool({
      name: "data",
      description: "An object.",
      input: z.object({}),
      run: () => ({ when: new Date(0), n: 1 }),
    });
    const text = tool({ name: "text", description: "A string.", input: z.object({}), run: () => "plain" });
    const rendered = tool({
      name: "rendered",
      description: "An object with a renderer of its own.",
      input: z.object({}),
      render: (value) => `n is ${(value as { n: number }).n}`,
      run: () => ({ n: 2 }),
    });
    const dispatcher = new Dispatcher(toolsetOf(data, text, rendered));
    const run = dispatcher.openRun({ callId: "run-1" });
    const call = (name: string) =>
      dispatcher.runCall({ id: name, name, arguments: {} }, { parent: run.context });
    const [a, b, c] = await Promise.all([call("data"), call("text"), call("rendered")]);
    run.close();
    expect(a.valueJson).toBe('{"when":"1970-01-01T00:00:00.000Z","n":1}');
    expect(b.valueJson).toBeUndefined();
    expect(c.result.output).toBe("n is 2");
    expect(c.valueJson).toBeUndefined();
    expect(c.value).toEqual({ n: 2 });
  });

  it("a synchronous tool that ends its own run while it runs is reported cancelled, not ok", async () => {
    const ended = new AbortController();
    const ender = tool({
      name: "ender",
      description: "Cancels the run it belongs to, then returns.",
      input: z.object({}),
      run: () => {
        ended.abort(new Error("stopped from inside"));
        return "done";
      },
    });
    const dispatcher = new Dispatcher(toolsetOf(ender));
    const run = dispatcher.openRun({ callId: "run-1", signal: ended.signal });
    const { result, value } = await dispatcher.runCall(
      { id: "c1", name: "ender", arguments: {} },
      { parent: run.context },
    );
    run.close();
    expect(result.ok).toBe(false);
    expect(result.error?.kind).toBe("cancelled");
    expect(value).toBeUndefined();
  });

  it("a synchronous tool that throws is an error result with its message, and is retried like any other", async () => {
    let attempts = 0;
    const flaky = tool({
      name: "flaky",
      description: "Throws on its first attempt.",
      input: z.object({}),
      retries: 1,
      run: () => {
        attempts++;
        if (attempts === 1) throw new Error("not yet");
        return "second time";
      },
    });
    const dispatcher = new Dispatcher(toolsetOf(flaky), { retryDelay: 1 });
    const run = dispatcher.openRun({ callId: "run-1" });
    const events: DispatchEvent[] = [];
    const { result } = await dispatcher.runCall(
      { id: "c1", name: "flaky", arguments: {} },
      { parent: run.context, onEvent: (event) => events.push(event) },
    );
    run.close();
    expect(result).toMatchObject({ ok: true, value: "second time", attempts: 2 });
    expect(events.map((event) => event.type)).toEqual([
      "requested",
      "started",
      "retrying",
      "started",
      "completed",
    ]);
    expect(events.find((event) => event.type === "retrying")).toMatchObject({
      attempt: 2,
      error: { kind: "error", message: "flaky failed: not yet" },
    });
  });

  it("a tool value whose then getter throws is that call's error, not a rejected dispatch", async () => {
    const hostile = tool({
      name: "hostile",
      description: "Returns a value whose then getter throws.",
      input: z.object({}),
      run: () => ({
        // biome-ignore lint/suspicious/noThenProperty: the hostile thenable is the point of the test.
        get then(): unknown {
          throw new Error("then getter");
        },
      }),
    });
    const dispatcher = new Dispatcher(toolsetOf(hostile));
    const [direct] = await dispatcher.dispatch([{ id: "d1", name: "hostile", arguments: {} }]).results();
    expect(direct).toMatchObject({ ok: false, error: { kind: "error" } });
    expect(direct?.output).toContain("then getter");
    const run = dispatcher.openRun({ callId: "run-1" });
    const { result } = await dispatcher.runCall(
      { id: "c1", name: "hostile", arguments: {} },
      { parent: run.context },
    );
    run.close();
    expect(result).toMatchObject({ ok: false, error: { kind: "error" } });
    expect(result.output).toContain("then getter");
  });

  it("a call made after its run was closed is not run", async () => {
    const dispatcher = new Dispatcher(toolsetOf(add));
    const run = dispatcher.openRun({ callId: "run-1" });
    run.close();
    const { result } = await dispatcher.runCall(
      { id: "c1", name: "add", arguments: { a: 1, b: 2 } },
      { parent: run.context },
    );
    expect(result.ok).toBe(false);
    expect(result.attempts).toBe(0);
    expect(result.output).toMatch(/was not run/);
  });

  it("refuses a parent context the dispatcher did not make, saying what to pass", async () => {
    const dispatcher = new Dispatcher(toolsetOf(add));
    const handle = dispatcher.dispatch([{ id: "x", name: "add", arguments: { a: 1, b: 1 } }]);
    await drain(handle);
    const forged = {
      runId: "r",
      callId: "c",
      toolName: "t",
      signal: new AbortController().signal,
      deps: undefined,
      session: undefined,
      budget: undefined as never,
      parentCallId: undefined,
      attempt: 1,
      idempotencyKey: "c1",
    };
    const attempt = dispatcher.runCall({ id: "c1", name: "add", arguments: {} }, { parent: forged });
    await expect(attempt).rejects.toBeInstanceOf(UserError);
    await expect(attempt).rejects.toThrow(/openRun/);
  });
});
