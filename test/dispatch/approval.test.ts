import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  type ApprovalHandler,
  Budget,
  type DispatchEvent,
  Dispatcher,
  RunCancelled,
  tool,
} from "../../src/index.js";
import { drain, resultFor, toolsetOf } from "./helpers.js";

function refundTool(ran: string[]) {
  return tool({
    name: "refund",
    description: "Refund an order.",
    input: z.object({ order_id: z.string(), amount_cents: z.number() }),
    needsApproval: (args) => args.amount_cents > 5_000,
    run: ({ order_id }) => {
      ran.push(order_id);
      return "refunded";
    },
  });
}

const calls = [
  { id: "small", name: "refund", arguments: { order_id: "A", amount_cents: 100 } },
  { id: "big", name: "refund", arguments: { order_id: "B", amount_cents: 9_000 } },
];

describe("approval", () => {
  it("a predicate gates only the calls it returns true for", async () => {
    const ran: string[] = [];
    const d = new Dispatcher(toolsetOf(refundTool(ran)));
    const handle = d.dispatch(calls);
    const required: string[] = [];
    for await (const event of handle) {
      if (event.type === "approval_required") {
        required.push(event.callId);
        event.approve();
      }
    }
    expect(required).toEqual(["big"]);
    expect(ran.sort()).toEqual(["A", "B"]);
  });

  it("the stream consumer's reject denies the call, which never runs", async () => {
    const ran: string[] = [];
    const d = new Dispatcher(toolsetOf(refundTool(ran)));
    const handle = d.dispatch(calls);
    const decided: DispatchEvent[] = [];
    for await (const event of handle) {
      if (event.type === "approval_required") event.reject("too large");
      if (event.type === "approval_decided") decided.push(event);
    }
    const results = await handle.results();
    expect(ran).toEqual(["A"]);
    expect(resultFor(results, "big")).toMatchObject({ ok: false, error: { kind: "denied" } });
    expect(resultFor(results, "big").output).toContain("denied: too large");
    expect(decided[0]).toMatchObject({ callId: "big", approved: false, by: "consumer" });
  });

  it("without a consumer and without a handler, gated calls are denied", async () => {
    const ran: string[] = [];
    const d = new Dispatcher(toolsetOf(refundTool(ran)));
    const results = await d.dispatch(calls).results();
    expect(ran).toEqual(["A"]);
    expect(resultFor(results, "big").error?.kind).toBe("denied");
  });

  it("a consumer that reads past the event without deciding leaves the call to the handler", async () => {
    const ran: string[] = [];
    const handler: ApprovalHandler = () => "allow";
    const d = new Dispatcher(toolsetOf(refundTool(ran)), { approvalHandler: handler });
    const { events } = await drain(d.dispatch(calls));
    expect(ran.sort()).toEqual(["A", "B"]);
    expect(events.find((e) => e.type === "approval_decided")).toMatchObject({
      approved: true,
      by: "handler",
    });
  });

  it.each([
    [true, true],
    ["allow", true],
    [false, false],
    ["deny", false],
  ] as const)("the approval handler's answer %s decides (approved: %s)", async (answer, approved) => {
    const ran: string[] = [];
    const d = new Dispatcher(toolsetOf(refundTool(ran)), { approvalHandler: () => answer });
    const results = await d.dispatch(calls).results();
    expect(resultFor(results, "big").ok).toBe(approved);
    expect(ran.includes("B")).toBe(approved);
  });

  it('a handler answering "ask" defers to the out-of-band approvals channel while the events are read', async () => {
    const ran: string[] = [];
    const d = new Dispatcher(toolsetOf(refundTool(ran)), { approvalHandler: () => "ask" });
    const handle = d.dispatch(calls);
    // The reader forwards events (to a web page, say); the decision arrives later, out of band.
    for await (const event of handle) {
      if (event.type === "approval_required") {
        setTimeout(() => {
          expect(handle.approvals.pending()).toEqual(["big"]);
          expect(handle.approvals.approve("big")).toBe(true);
        }, 20);
      }
    }
    expect(resultFor(await handle.results(), "big").ok).toBe(true);
    expect(ran.sort()).toEqual(["A", "B"]);
  });

  it('a handler answering "ask" denies when nobody reads the events, instead of waiting forever', async () => {
    const ran: string[] = [];
    const d = new Dispatcher(toolsetOf(refundTool(ran)), { approvalHandler: () => "ask" });
    const results = await d.dispatch(calls).results();
    expect(resultFor(results, "big").error?.kind).toBe("denied");
    expect(resultFor(results, "big").output).toContain("nobody reading the events decided");
    expect(ran).toEqual(["A"]);
  });

  it("release(false) denies every call still waiting, and later ones", async () => {
    const ran: string[] = [];
    const d = new Dispatcher(toolsetOf(refundTool(ran)), { approvalHandler: () => "ask" });
    const handle = d.dispatch([
      ...calls,
      { id: "big2", name: "refund", arguments: { order_id: "C", amount_cents: 7_000 } },
    ]);
    for await (const event of handle) {
      if (event.type === "approval_required") setTimeout(() => handle.approvals.release(false), 5);
    }
    const all = await handle.results();
    expect(resultFor(all, "big").error?.kind).toBe("denied");
    expect(resultFor(all, "big2").error?.kind).toBe("denied");
    expect(ran).toEqual(["A"]);
  });

  it("cancelling the dispatch ends a handler that never answers, and the call leaves the board", async () => {
    const controller = new AbortController();
    const d = new Dispatcher(toolsetOf(refundTool([])), { approvalHandler: () => new Promise(() => {}) });
    const handle = d.dispatch(calls, { signal: controller.signal });
    const settled = handle.results();
    await vi.waitFor(() => expect(handle.approvals.pending().length).toBeGreaterThan(0), {
      timeout: 5_000,
      interval: 1,
    });
    controller.abort();
    await expect(settled).rejects.toBeInstanceOf(RunCancelled);
    expect(handle.approvals.pending()).toEqual([]);
  });

  it("calls made from code fall back to the root dispatcher's approval handler", async () => {
    const ran: string[] = [];
    const inner = new Dispatcher(toolsetOf(refundTool(ran)));
    const outerTool = tool({
      name: "outer",
      description: "Makes a nested call.",
      input: z.object({}),
      run: async (_args, ctx) => {
        const [r] = await inner.dispatch([{ ...calls[1]!, id: "nested" }], { parent: ctx }).results();
        return r!.ok;
      },
    });
    const outer = new Dispatcher(toolsetOf(outerTool), { approvalHandler: () => "allow" });
    const [result] = await outer.dispatch([{ id: "o", name: "outer", arguments: "{}" }]).results();
    expect(result!.value).toBe(true);
    expect(ran).toEqual(["B"]);
  });

  it("budget is charged only for calls that run, not for denied ones", async () => {
    const ran: string[] = [];
    const budget = new Budget({ toolCalls: 5 });
    const d = new Dispatcher(toolsetOf(refundTool(ran)));
    await d.dispatch(calls, { budget }).results();
    expect(budget.spent("toolCalls")).toBe(1);
  });

  it("a throwing predicate denies the call", async () => {
    let ran = false;
    const t = tool({
      name: "danger",
      description: "Dangerous.",
      input: z.object({}),
      needsApproval: () => {
        throw new Error("boom");
      },
      run: () => {
        ran = true;
      },
    });
    const d = new Dispatcher(toolsetOf(t), { approvalHandler: () => "allow" });
    const results = await d.dispatch([{ id: "c", name: "danger", arguments: "{}" }]).results();
    expect(ran).toBe(false);
    expect(results[0]!.error?.kind).toBe("denied");
    expect(results[0]!.output).toContain("approval check failed (boom)");
  });

  it("a throwing handler denies the call", async () => {
    const ran: string[] = [];
    const d = new Dispatcher(toolsetOf(refundTool(ran)), {
      approvalHandler: () => {
        throw new Error("handler down");
      },
    });
    const results = await d.dispatch(calls).results();
    expect(resultFor(results, "big").error?.kind).toBe("denied");
    expect(ran).toEqual(["A"]);
  });

  it("approval prompts come in request order even though execution is concurrent", async () => {
    const ran: string[] = [];
    const d = new Dispatcher(toolsetOf(refundTool(ran)));
    const many = Array.from({ length: 6 }, (_, i) => ({
      id: `c${i}`,
      name: "refund",
      arguments: { order_id: `O${i}`, amount_cents: 10_000 },
    }));
    const prompts: string[] = [];
    for await (const event of d.dispatch(many)) {
      if (event.type === "approval_required") {
        prompts.push(event.callId);
        event.approve();
      }
    }
    expect(prompts).toEqual(["c0", "c1", "c2", "c3", "c4", "c5"]);
  });

  it("the predicate sees validated and coerced arguments", async () => {
    let seen: unknown;
    const t = tool({
      name: "pay",
      description: "Pay.",
      input: z.object({ cents: z.number() }),
      needsApproval: (args) => {
        seen = args;
        return false;
      },
      run: () => "ok",
    });
    const d = new Dispatcher(toolsetOf(t));
    await d.dispatch([{ id: "c", name: "pay", arguments: '{"cents":"250"}' }]).results();
    expect(seen).toEqual({ cents: 250 });
  });
});

describe("approval: nobody answers", () => {
  it("a call nobody decides within approvalTimeoutMs is denied, and the result says nobody answered", async () => {
    const ran: string[] = [];
    const d = new Dispatcher(toolsetOf(refundTool(ran)), {
      approvalHandler: () => "ask",
      approvalTimeoutMs: 50,
    });
    // Someone reads the events (so "ask" waits for them), but never decides.
    const { events, results } = await drain(d.dispatch(calls));
    const big = resultFor(results, "big");
    expect(big.ok).toBe(false);
    expect(big.error).toEqual({
      kind: "denied",
      message:
        "refund was not run: the call was denied: nobody answered the approval request within 50 ms (approvalTimeoutMs)",
    });
    expect(events).toContainEqual(
      expect.objectContaining({ type: "approval_decided", callId: "big", approved: false, by: "default" }),
    );
    expect(ran).toEqual(["A"]);
  });

  it("a handler that never settles does not hold the call past approvalTimeoutMs", async () => {
    const ran: string[] = [];
    const d = new Dispatcher(toolsetOf(refundTool(ran)), {
      approvalHandler: () => new Promise(() => {}),
      approvalTimeoutMs: 50,
    });
    const results = await d.dispatch(calls).results();
    expect(resultFor(results, "big").error?.kind).toBe("denied");
  });

  it("rejects an approvalTimeoutMs that is not a positive number", () => {
    expect(() => new Dispatcher(toolsetOf(refundTool([])), { approvalTimeoutMs: 0 })).toThrow(
      /approvalTimeoutMs/,
    );
  });
});
