import { describe, expect, it } from "vitest";
import { z } from "zod";
import { backoffDelay, MAX_RETRY_DELAY_MS } from "../../src/dispatch/retry.js";
import {
  Budget,
  BudgetExceeded,
  Dispatcher,
  RunCancelled,
  ToolError,
  Toolset,
  tool,
} from "../../src/index.js";
import { drain, wait } from "./helpers.js";

const noArgs = z.object({});
const once = (name: string) => [{ id: "c1", name, arguments: "{}" }];

function flaky(failures: number, error: () => unknown = () => new Error("blip"), retries = 2) {
  let calls = 0;
  const t = tool({
    name: "flaky",
    description: "Fails a few times.",
    input: noArgs,
    retries,
    run: () => {
      calls++;
      if (calls <= failures) throw error();
      return `ok after ${calls}`;
    },
  });
  return { t, calls: () => calls };
}

describe("retries", () => {
  it("retries a failing call and reports each retry as an event", async () => {
    const { t, calls } = flaky(2);
    const d = new Dispatcher(new Toolset([t]), { retryDelay: 1 });
    const { events, results } = await drain(d.dispatch(once("flaky")));
    expect(calls()).toBe(3);
    expect(results[0]).toMatchObject({ ok: true, value: "ok after 3", attempts: 3 });
    expect(
      events.filter((e) => e.type === "retrying").map((e) => (e as { attempt: number }).attempt),
    ).toEqual([2, 3]);
  });

  it("gives up after the configured retries with the last error", async () => {
    const { t, calls } = flaky(10);
    const d = new Dispatcher(new Toolset([t]), { retryDelay: 1 });
    const results = await d.dispatch(once("flaky")).results();
    expect(calls()).toBe(3);
    expect(results[0]).toMatchObject({ ok: false, attempts: 3, output: "Tool error: flaky failed: blip" });
  });

  it("backs off exponentially and caps the wait at 5 s", () => {
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, 100))).toEqual([100, 200, 400, 800]);
    expect(backoffDelay(20, 100)).toBe(MAX_RETRY_DELAY_MS);
    expect(MAX_RETRY_DELAY_MS).toBe(5_000);
  });

  it("falls back to the dispatcher's retries when the tool sets none", async () => {
    let calls = 0;
    const t = tool({
      name: "t",
      description: "Fails.",
      input: noArgs,
      run: () => {
        calls++;
        throw new Error("no");
      },
    });
    await new Dispatcher(new Toolset([t]), { retries: 1, retryDelay: 1 }).dispatch(once("t")).results();
    expect(calls).toBe(2);
  });

  it("never retries invalid arguments", async () => {
    let calls = 0;
    const typed = tool({
      name: "typed",
      description: "Typed.",
      input: z.object({ n: z.number() }),
      retries: 3,
      run: () => {
        calls++;
      },
    });
    const d = new Dispatcher(new Toolset([typed]), { retryDelay: 1 });
    const { results, events } = await drain(d.dispatch([{ id: "c", name: "typed", arguments: '{"n":"x"}' }]));
    expect(results[0]!.error?.kind).toBe("invalid_arguments");
    expect(results[0]!.attempts).toBe(0);
    expect(events.some((e) => e.type === "retrying")).toBe(false);
    expect(calls).toBe(0);
  });

  it("never retries cancellation", async () => {
    const { t, calls } = flaky(5, () => new RunCancelled("stop now"), 3);
    const d = new Dispatcher(new Toolset([t]), { retryDelay: 1 });
    await expect(d.dispatch(once("flaky")).results()).rejects.toBeInstanceOf(RunCancelled);
    expect(calls()).toBe(1);
  });

  it("never retries budget exhaustion", async () => {
    const { t, calls } = flaky(5, () => new BudgetExceeded("out of tokens"), 3);
    const d = new Dispatcher(new Toolset([t]), { retryDelay: 1 });
    const results = await d.dispatch(once("flaky")).results();
    expect(results[0]!.error?.kind).toBe("budget");
    expect(calls()).toBe(1);
  });
});

describe("timeouts", () => {
  it("aborts the tool's signal and returns a clear timeout result", async () => {
    let aborted = false;
    const t = tool({
      name: "hang",
      description: "Never finishes.",
      input: noArgs,
      timeout: 30,
      run: (_args, ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener("abort", () => {
            aborted = true;
            resolve("late");
          });
        }),
    });
    const results = await new Dispatcher(new Toolset([t])).dispatch(once("hang")).results();
    expect(aborted).toBe(true);
    expect(results[0]).toMatchObject({
      ok: false,
      error: { kind: "timeout" },
      output: "Tool error: hang timed out after 30 ms.",
    });
  });

  it("applies the timeout per attempt and retries a timed-out attempt", async () => {
    let attempts = 0;
    const t = tool({
      name: "slow_then_fast",
      description: "Slow once.",
      input: noArgs,
      timeout: 30,
      retries: 1,
      run: async () => {
        attempts++;
        if (attempts === 1) await wait(200);
        return attempts;
      },
    });
    const results = await new Dispatcher(new Toolset([t]), { retryDelay: 1 })
      .dispatch(once("slow_then_fast"))
      .results();
    expect(results[0]).toMatchObject({ ok: true, value: 2, attempts: 2 });
  });

  /** Keeps the event loop busy for at least `ms`, as synchronous work does. */
  const block = (ms: number) => {
    const end = performance.now() + ms;
    while (performance.now() < end) {
      // busy
    }
  };

  it("a synchronous run that blocks past its timeout fails as a timeout saying it blocked the event loop", async () => {
    let aborted = false;
    const t = tool({
      name: "crunch",
      description: "Blocks.",
      input: noArgs,
      timeout: 30,
      run: (_args, ctx) => {
        ctx.signal.addEventListener("abort", () => {
          aborted = true;
        });
        block(150);
        return "done";
      },
    });
    const [result] = await new Dispatcher(new Toolset([t])).dispatch(once("crunch")).results();
    expect(result).toMatchObject({ ok: false, error: { kind: "timeout" } });
    expect(result!.output).toMatch(
      /^Tool error: crunch timed out: its run function blocked the event loop for \d+ ms, longer than its timeout of 30 ms, and a timeout cannot interrupt synchronous work .* It was not retried: it may already have acted\. The tool's author should make run async and move the blocking work off the main thread, for example to a worker thread\.$/,
    );
    expect(Number(/for (\d+) ms/.exec(result!.output)![1])).toBeGreaterThanOrEqual(150);
    expect(aborted).toBe(true);
  });

  it("an async run that blocks the event loop after an await fails as a timeout once it finishes", async () => {
    const t = tool({
      name: "late",
      description: "Blocks after an await.",
      input: noArgs,
      timeout: 30,
      run: async () => {
        await null;
        block(150);
        return "done";
      },
    });
    const [result] = await new Dispatcher(new Toolset([t])).dispatch(once("late")).results();
    expect(result).toMatchObject({ ok: false, error: { kind: "timeout" } });
    expect(result!.output).toMatch(
      /^Tool error: late timed out: it finished after \d+ ms, past its timeout of 30 ms; the timeout could not end it sooner because synchronous work blocked the event loop\. It was not retried: it may already have acted\.$/,
    );
  });

  it("a tool that ran on past its timeout is not retried, so its effect happens once", async () => {
    let effects = 0;
    const t = tool({
      name: "refund",
      description: "Refunds, slowly.",
      input: noArgs,
      timeout: 30,
      retries: 2,
      run: async () => {
        block(80);
        effects++;
        return "refunded";
      },
    });
    const [result] = await new Dispatcher(new Toolset([t]), { retryDelay: 1 })
      .dispatch(once("refund"))
      .results();
    expect(result).toMatchObject({ ok: false, error: { kind: "timeout" }, attempts: 1 });
    expect(effects).toBe(1);
  });

  it("a synchronous run that returns within its timeout succeeds", async () => {
    const t = tool({ name: "quick", description: "Quick.", input: noArgs, timeout: 5_000, run: () => 42 });
    const [result] = await new Dispatcher(new Toolset([t])).dispatch(once("quick")).results();
    expect(result).toMatchObject({ ok: true, value: 42 });
  });

  it("falls back to the dispatcher's timeout when the tool sets none", async () => {
    const t = tool({ name: "nap", description: "Naps.", input: noArgs, run: () => wait(500) });
    const results = await new Dispatcher(new Toolset([t]), { timeout: 20 }).dispatch(once("nap")).results();
    expect(results[0]!.error?.kind).toBe("timeout");
  });
});

describe("exceptions", () => {
  it("a ToolError's message and hint reach the model", async () => {
    const t = tool({
      name: "lookup",
      description: "Lookup.",
      input: noArgs,
      run: () => {
        throw new ToolError("Order A9 does not exist.", { hint: "Order ids look like A123." });
      },
    });
    const results = await new Dispatcher(new Toolset([t])).dispatch(once("lookup")).results();
    expect(results[0]!.output).toBe("Tool error: Order A9 does not exist.\nHint: Order ids look like A123.");
  });

  it("any other exception becomes 'Tool error: ...' without a host stack trace", async () => {
    const t = tool({
      name: "crash",
      description: "Crash.",
      input: noArgs,
      run: () => {
        throw new TypeError("cannot read x of undefined");
      },
    });
    const results = await new Dispatcher(new Toolset([t])).dispatch(once("crash")).results();
    expect(results[0]!.output).toBe("Tool error: crash failed: cannot read x of undefined");
    expect(results[0]!.output).not.toMatch(/ at |\.ts:\d+/);
  });

  it("RunCancelled from a tool ends the turn and aborts the calls in flight", async () => {
    let sawAbort = false;
    let laterRan = false;
    const cancel = tool({
      name: "cancel",
      description: "Cancel.",
      input: noArgs,
      run: async () => {
        await wait(10);
        throw new RunCancelled("user pressed stop");
      },
    });
    const slow = tool({
      name: "slow",
      description: "Slow.",
      input: noArgs,
      run: (_a, ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener("abort", () => {
            sawAbort = true;
            resolve("aborted");
          });
        }),
    });
    const after = tool({
      name: "after",
      description: "After the barrier.",
      input: noArgs,
      parallel: false,
      run: () => {
        laterRan = true;
      },
    });
    const d = new Dispatcher(new Toolset([cancel, slow, after]));
    const handle = d.dispatch([
      { id: "1", name: "slow", arguments: "{}" },
      { id: "2", name: "cancel", arguments: "{}" },
      { id: "3", name: "after", arguments: "{}" },
    ]);
    await expect(handle.results()).rejects.toThrow("user pressed stop");
    expect(sawAbort).toBe(true);
    expect(laterRan).toBe(false);
  });

  it("aborting the dispatch signal cancels the turn", async () => {
    const controller = new AbortController();
    const t = tool({
      name: "nap",
      description: "Naps.",
      input: noArgs,
      run: (_a, ctx) => wait(1000).then(() => ctx.signal.aborted),
    });
    const handle = new Dispatcher(new Toolset([t])).dispatch(once("nap"), { signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    await expect(handle.results()).rejects.toBeInstanceOf(RunCancelled);
  });

  it("the run's own budget ends the turn at the next safe point", async () => {
    const ran: string[] = [];
    const t = tool({
      name: "work",
      description: "Work.",
      input: z.object({ id: z.string() }),
      parallel: false,
      run: ({ id }) => {
        ran.push(id);
      },
    });
    const budget = new Budget({ toolCalls: 2 });
    const handle = new Dispatcher(new Toolset([t])).dispatch(
      ["a", "b", "c", "d"].map((id) => ({ id, name: "work", arguments: { id } })),
      { budget },
    );
    await expect(handle.results()).rejects.toBeInstanceOf(BudgetExceeded);
    expect(ran).toEqual(["a", "b"]);
  });

  it("a BudgetExceeded from another budget (a nested run's) is an error result", async () => {
    const other = new Budget({ tokens: 1 });
    const t = tool({
      name: "delegate",
      description: "Delegate.",
      input: noArgs,
      run: () => other.charge("tokens", 5),
    });
    const results = await new Dispatcher(new Toolset([t])).dispatch(once("delegate")).results();
    expect(results[0]).toMatchObject({ ok: false, error: { kind: "budget" } });
  });
});
