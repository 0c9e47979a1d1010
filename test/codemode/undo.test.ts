/**
 * Undo: a failed run's effects reverted last first (`onFailure: "revert"`), each a dispatcher call of
 * its own (events, approval), and `cm.revert(result)` on demand, once.
 */

import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import { RevertableRuns } from "../../src/codemode/revert.js";
import {
  type CodeMode,
  type CodeModeOptions,
  codeMode,
  type DispatchEvent,
  Dispatcher,
  renderCodeRunResult,
  Toolset,
  tool,
  UserError,
} from "../../src/index.js";

const opened: CodeMode[] = [];
afterAll(() => Promise.all(opened.map((cm) => cm.close())));

function make(options: Partial<CodeModeOptions>) {
  const cm = codeMode({ environment: isolateEnvironment(), ...options } as CodeModeOptions);
  opened.push(cm);
  return cm;
}

/** A shop: refunds and e-mails that can be taken back, a charge that cannot; `log` says what happened. */
function shop(options: { approveReverts?: boolean; failRevert?: string } = {}) {
  const log: string[] = [];
  const seen: { args: unknown; result: unknown; key: string }[] = [];
  const refund = tool({
    name: "refund",
    description: "Refunds an order.",
    input: z.object({ order: z.string(), amount: z.number() }),
    run: ({ order, amount }) => {
      log.push(`refund ${order}`);
      return { refundId: `R-${order}`, amount };
    },
    revert: (args, result, ctx) => {
      if (options.failRevert === "refund") throw new Error("the refund is settled already");
      seen.push({ args, result, key: ctx.idempotencyKey });
      log.push(`unrefund ${(args as { order: string }).order}`);
    },
    ...(options.approveReverts ? { needsApproval: (args: { amount: number }) => args.amount > 100 } : {}),
  });
  const charge = tool({
    name: "charge",
    description: "Charges a card.",
    input: z.object({ amount: z.number() }),
    effect: true,
    run: ({ amount }) => {
      log.push(`charge ${amount}`);
      return "charged";
    },
  });
  const email = tool({
    name: "email",
    description: "Sends an e-mail.",
    input: z.object({ to: z.string() }),
    run: ({ to }) => {
      log.push(`email ${to}`);
      return { messageId: `M-${to}` };
    },
    revert: (args) => {
      log.push(`recall ${(args as { to: string }).to}`);
    },
  });
  const lookup = tool({
    name: "lookup",
    description: "Reads an order.",
    input: z.object({ order: z.string() }),
    run: ({ order }) => ({ order, total: 10 }),
  });
  return { log, seen, tools: [refund, charge, email, lookup] };
}

const THREE_EFFECTS_THEN_FAIL = `
await tools.lookup({ order: "A1" });
await tools.refund({ order: "A1", amount: 40 });
await tools.charge({ amount: 5 });
await tools.email({ to: "ann" });
throw new Error("the plan went wrong");
`;

describe("onFailure: revert", () => {
  it("a run that fails after three effects reverts the two that have revert, in reverse order, and lists the third as not reverted", async () => {
    const world = shop();
    const cm = make({ tools: world.tools });
    const result = await cm.run(THREE_EFFECTS_THEN_FAIL, { onFailure: "revert" });
    expect(result.status).toBe("error");
    expect(world.log).toEqual(["refund A1", "charge 5", "email ann", "recall ann", "unrefund A1"]);
    const [, refundCall, chargeCall, emailCall] = result.calls;
    expect(result.reverted).toEqual([
      { id: emailCall!.callId, tool: "email", status: "ok" },
      { id: refundCall!.callId, tool: "refund", status: "ok" },
    ]);
    expect(result.notReverted).toEqual([
      { id: chargeCall!.callId, tool: "charge", why: "its tool has no revert" },
    ]);
    // The revert gets the call's arguments and its result as the code received it, and a key of its own.
    expect(world.seen).toEqual([
      {
        args: { order: "A1", amount: 40 },
        result: { refundId: "R-A1", amount: 40 },
        key: `${result.runId}:1.revert`,
      },
    ]);
    // The model reads what was reverted, by tool and call id, never the arguments or results.
    const text = renderCodeRunResult(result, 10_000);
    expect(text).toContain(`effects reverted: 2 (email ${emailCall!.callId}, refund ${refundCall!.callId})`);
    expect(text).toContain(`not reverted: charge ${chargeCall!.callId} (its tool has no revert)`);
    expect(text).not.toContain("R-A1");
  });

  it("reverts after a limit (the call cap) and after a timeout, and never after a run that ended ok", async () => {
    const world = shop();
    const cm = make({ tools: world.tools, limits: { maxToolCalls: 2, timeoutMs: 1_000 } });
    const capped = await cm.run(
      `await tools.refund({ order: "B", amount: 1 }); await tools.email({ to: "bo" }); await tools.lookup({ order: "B" });`,
      { onFailure: "revert" },
    );
    expect(capped.status).toBe("error");
    expect(capped.reverted?.map((r) => r.tool)).toEqual(["email", "refund"]);
    const timedOut = await cm.run(`await tools.refund({ order: "C", amount: 1 }); while (true) {}`, {
      onFailure: "revert",
    });
    expect(timedOut.status).toBe("timeout");
    expect(timedOut.reverted).toEqual([{ id: timedOut.calls[0]!.callId, tool: "refund", status: "ok" }]);
    world.log.length = 0;
    const ok = await cm.run(`await tools.refund({ order: "D", amount: 1 }); return 1`, {
      onFailure: "revert",
    });
    expect(ok).toMatchObject({ status: "ok", value: 1 });
    expect(ok.reverted).toBeUndefined();
    expect(world.log).toEqual(["refund D"]);
  });

  it("keeps the effects of a failed run by default (onFailure: keep), and refuses another onFailure", async () => {
    const world = shop();
    const cm = make({ tools: world.tools });
    const kept = await cm.run(THREE_EFFECTS_THEN_FAIL);
    expect(kept.status).toBe("error");
    expect(kept.reverted).toBeUndefined();
    expect(world.log).toEqual(["refund A1", "charge 5", "email ann"]);
    const bad = await cm.run("return 1", { onFailure: "undo" as "revert" });
    expect(bad.error).toMatchObject({
      name: "UserError",
      message: expect.stringContaining('"keep" or "revert"'),
    });
  });

  it("lists a revert that failed as not reverted, with why, and goes on with the others", async () => {
    const world = shop({ failRevert: "refund" });
    const cm = make({ tools: world.tools });
    const result = await cm.run(THREE_EFFECTS_THEN_FAIL, { onFailure: "revert" });
    expect(result.reverted?.map((r) => [r.tool, r.status])).toEqual([
      ["email", "ok"],
      ["refund", "error"],
    ]);
    // Last effect first: email (reverted), charge (no revert), refund (its revert failed).
    expect(result.notReverted?.map((r) => r.tool)).toEqual(["charge", "refund"]);
    expect(result.notReverted?.[1]?.why).toBe("refund.revert failed: the refund is settled already");
  });
});

describe("each revert is a dispatcher call", () => {
  it("is seen in the events, as a child of the run's call, and asks for approval like any call", async () => {
    const world = shop({ approveReverts: true });
    const toolset = new Toolset(world.tools);
    const dispatcher = new Dispatcher(toolset);
    const cm = make({ dispatcher });
    // A host tool that runs code as run_code does: its run is the call's child.
    const agent = tool({
      name: "agent",
      description: "Runs a plan.",
      run: (_args, ctx) =>
        cm.run(
          `await tools.refund({ order: "big", amount: 500 }); await tools.email({ to: "cy" }); throw new Error("no")`,
          { parent: ctx, onFailure: "revert" },
        ),
    });
    const outer = new Dispatcher(new Toolset([agent]));
    const handle = outer.dispatch([{ id: "turn-1", name: "agent", arguments: "{}" }]);
    const events: DispatchEvent[] = [];
    for await (const event of handle) {
      events.push(event);
      if (event.type === "approval_required") event.approve();
    }
    const [outcome] = await handle.results();
    const result = outcome!.value as Awaited<ReturnType<CodeMode["run"]>>;
    expect(result.reverted?.map((r) => [r.tool, r.status])).toEqual([
      ["email", "ok"],
      ["refund", "ok"],
    ]);
    const reverts = events.filter((e) => e.name.endsWith(".revert"));
    expect(reverts.map((e) => `${e.type} ${e.name}`)).toEqual([
      "requested email.revert",
      "started email.revert",
      "completed email.revert",
      "requested refund.revert",
      "approval_required refund.revert",
      "approval_decided refund.revert",
      "started refund.revert",
      "completed refund.revert",
    ]);
    expect(reverts.every((e) => e.parentCallId === "turn-1")).toBe(true);
    expect(reverts[0]?.callId).toBe(`${result.calls[1]!.callId}.revert`);
    expect(world.log).toEqual(["refund big", "email cy", "recall cy", "unrefund big"]);
  });

  it("a revert nobody approves is denied and listed as not reverted; cm.revert tries it again", async () => {
    const world = shop({ approveReverts: true });
    let allow = false;
    const asked: string[] = [];
    const dispatcher = new Dispatcher(new Toolset(world.tools), {
      approvalHandler: ({ toolName }) => {
        asked.push(toolName);
        return allow || toolName === "refund";
      },
    });
    const cm = make({ dispatcher });
    const result = await cm.run(`await tools.refund({ order: "big", amount: 500 }); throw new Error("no")`, {
      onFailure: "revert",
    });
    expect(asked).toEqual(["refund", "refund.revert"]);
    expect(result.reverted).toEqual([{ id: result.calls[0]!.callId, tool: "refund", status: "denied" }]);
    expect(result.notReverted?.[0]?.why).toMatch(/denied/);
    allow = true;
    const again = await cm.revert(result);
    expect(again.reverted).toEqual([{ id: result.calls[0]!.callId, tool: "refund", status: "ok" }]);
    expect(world.log).toEqual(["refund big", "unrefund big"]);
  });
});

describe("a resumed run", () => {
  it("that fails reverts the effects made before the pause too, from its checkpoint's journal", async () => {
    const world = shop();
    const ship = tool({
      name: "ship",
      description: "Ships an order, once a person allows it.",
      input: z.object({ order: z.string() }),
      needsApproval: true,
      run: ({ order }) => `shipped ${order}`,
    });
    const cm = make({ tools: [...world.tools, ship], pause: { key: "a host secret, 32 bytes at least!" } });
    const code = `
      await tools.refund({ order: "G", amount: 9 });
      await tools.email({ to: "gil" });
      await tools.ship({ order: "G" });
      await tools.email({ to: "gus" });`;
    const paused = await cm.run(code, { approval: "pause", onFailure: "revert" });
    expect(paused.status).toBe("paused");
    expect(paused.reverted).toBeUndefined();
    const [pending] = paused.pending!;
    const denied = await cm.resume(paused.checkpoint!, {
      decisions: { [pending!.id]: false },
      onFailure: "revert",
    });
    expect(denied.status).toBe("error");
    expect(denied.reverted?.map((r) => [r.tool, r.status])).toEqual([
      ["email", "ok"],
      ["refund", "ok"],
    ]);
    expect(world.log).toEqual(["refund G", "email gil", "recall gil", "unrefund G"]);
  });
});

describe("each revert is traced", () => {
  it("has a span of its own, with the revert's call id, in a dispatch of the run's id", async () => {
    const world = shop();
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const dispatcher = new Dispatcher(new Toolset(world.tools), { tracing: { tracerProvider: provider } });
    const cm = make({ dispatcher });
    const result = await cm.run(THREE_EFFECTS_THEN_FAIL, { onFailure: "revert" });
    const spans = exporter.getFinishedSpans();
    const revertSpans = spans.filter((span) => span.name.endsWith(".revert"));
    expect(revertSpans.map((span) => [span.name, span.attributes["gen_ai.tool.call.id"]])).toEqual([
      ["execute_tool email.revert", `${result.calls[3]!.callId}.revert`],
      ["execute_tool refund.revert", `${result.calls[1]!.callId}.revert`],
    ]);
    const parent = spans.find(
      (span) => span.spanContext().spanId === revertSpans[0]!.parentSpanContext?.spanId,
    );
    expect(parent?.attributes["cordon.run_id"]).toBe(result.runId);
  });
});

describe("cm.revert(result)", () => {
  it("reverts a finished run's effects on demand, once: a second revert does nothing and says so", async () => {
    const world = shop();
    const cm = make({ tools: world.tools });
    const result = await cm.run(
      `await tools.refund({ order: "E", amount: 3 }); await tools.charge({ amount: 3 }); return "done"`,
    );
    expect(result.status).toBe("ok");
    expect(typeof result.revertToken).toBe("string");
    // The effects' arguments and results are kept in the host, not in the result.
    expect(JSON.stringify(result)).not.toContain("R-E");
    const first = await cm.revert(result);
    expect(first).toEqual({
      reverted: [{ id: result.calls[0]!.callId, tool: "refund", status: "ok" }],
      notReverted: [{ id: result.calls[1]!.callId, tool: "charge", why: "its tool has no revert" }],
      alreadyReverted: [],
    });
    const second = await cm.revert(result);
    expect(second.reverted).toEqual([]);
    expect(second.alreadyReverted).toEqual([{ id: result.calls[0]!.callId, tool: "refund" }]);
    expect(world.log).toEqual(["refund E", "charge 3", "unrefund E"]);
  });

  it("refuses a result without kept effects, with what to do", async () => {
    const world = shop();
    const cm = make({ tools: world.tools });
    const none = await cm.run(`return await tools.lookup({ order: "F" })`);
    expect(none.revertToken).toBeUndefined();
    await expect(cm.revert(none)).rejects.toBeInstanceOf(UserError);
    await expect(cm.revert(none)).rejects.toThrow(/not kept by this code mode/);
  });
});

describe("the effects a code mode keeps for cm.revert", () => {
  it("are bounded: past 32 MB of arguments and results the oldest run is dropped, and its revert refused", async () => {
    const world = shop();
    const toolset = new Toolset(world.tools);
    const dispatcher = new Dispatcher(toolset);
    const runs = new RevertableRuns();
    const init = { runId: "r", callId: "code-1", toolName: "run_code", toolset };
    const big = (id: string) => [
      {
        index: 0,
        id,
        tool: "refund",
        args: '{"order":"H","amount":1}',
        result: `"${"x".repeat(20 * 1024 * 1024)}"`,
      },
    ];
    const first = runs.keep(big("code-1.1"), init, undefined);
    const second = runs.keep(big("code-2.1"), init, undefined);
    await expect(runs.revert(dispatcher, first, {})).rejects.toThrow(/not kept by this code mode/);
    const outcome = await runs.revert(dispatcher, second, {});
    expect(outcome.reverted).toEqual([{ id: "code-2.1", tool: "refund", status: "ok" }]);
  });

  it("keep only the ids of effects that have no revert, not their arguments or results", async () => {
    const world = shop();
    const toolset = new Toolset(world.tools);
    const runs = new RevertableRuns();
    const init = { runId: "r", callId: "code-1", toolName: "run_code", toolset };
    const huge = `"${"y".repeat(40 * 1024 * 1024)}"`;
    const first = runs.keep(
      [{ index: 0, id: "code-1.1", tool: "charge", args: "{}", result: huge }],
      init,
      undefined,
    );
    runs.keep([{ index: 0, id: "code-2.1", tool: "charge", args: "{}", result: huge }], init, undefined);
    const outcome = await runs.revert(new Dispatcher(toolset), first, {});
    expect(outcome.notReverted).toEqual([{ id: "code-1.1", tool: "charge", why: "its tool has no revert" }]);
  });
});

describe("tool({ revert })", () => {
  it("is checked at definition", () => {
    expect(() =>
      tool({ name: "t", description: "d", run: () => 1, revert: "undo" as unknown as () => void }),
    ).toThrow(/revert must be a function/);
    expect(() =>
      tool({ name: "t", description: "d", run: () => 1, effect: "yes" as unknown as boolean }),
    ).toThrow(/effect must be true or false/);
  });
});
