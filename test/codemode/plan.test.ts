/**
 * Plan, then approve once: `cm.plan` runs the reads live and gives each effect its preview, listing it;
 * `cm.resume` carries the plan out, replaying the reads, running each approved effect once, showing a
 * denial to the code, and pausing for any effect a person did not approve as it is asked now.
 */

import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import { type CodeMode, codeMode, Dispatcher, Toolset, tool, UserError } from "../../src/index.js";

const KEY = "a host secret, 32 bytes at least!";

const opened: CodeMode[] = [];
afterAll(() => Promise.all(opened.map((cm) => cm.close())));

/** Two reads and an effect with a preview, each counting its invocations. */
function shop(options: { liveStatus?: (orderId: string) => string } = {}) {
  const counts = { list: 0, get: 0, refund: 0, notify: 0 };
  const refunds: string[] = [];
  const listOrders = tool({
    name: "list_orders",
    description: "Lists the ids of the orders to refund.",
    run: () => {
      counts.list++;
      return ["A1", "A2", "A3"];
    },
  });
  const getOrder = tool({
    name: "get_order",
    description: "Reads one order.",
    input: z.object({ id: z.string() }),
    run: ({ id }) => {
      counts.get++;
      return { id, amount: Number(id.slice(1)) * 10 };
    },
  });
  const refund = tool({
    name: "refund",
    description: "Refunds an order.",
    input: z.object({ order_id: z.string(), amount: z.number() }),
    output: z.object({ order_id: z.string(), status: z.string() }),
    effect: true,
    preview: ({ order_id }) => ({ order_id, status: "refunded" }),
    run: ({ order_id, amount }) => {
      counts.refund++;
      refunds.push(`${order_id}:${amount}`);
      return { order_id, status: options.liveStatus?.(order_id) ?? "refunded" };
    },
  });
  const notify = tool({
    name: "notify",
    description: "Tells the customer (no preview).",
    input: z.object({ text: z.string() }),
    effect: true,
    run: () => {
      counts.notify++;
      return "sent";
    },
  });
  const tools = new Toolset([listOrders, getOrder, refund, notify]);
  const make = (more: { key?: string } = {}) => {
    const cm = codeMode({ tools, environment: isolateEnvironment(), pause: { key: more.key ?? KEY } });
    opened.push(cm);
    return cm;
  };
  return { counts, refunds, tools, make, cm: make() };
}

/** Two reads, then three refunds; a refund that fails is reported by its kind. */
const TWO_READS_THREE_EFFECTS = `
const ids = await tools.list_orders({});
const first = await tools.get_order({ id: ids[0] });
const done = [];
for (const id of ids) {
  try {
    const r = await tools.refund({ order_id: id, amount: id === first.id ? first.amount : 5 });
    done.push(r.status);
  } catch (error) {
    done.push(error.kind);
  }
}
return done;
`;

describe("cm.plan", () => {
  it("lists the three effects of a program with two reads and runs none; the reads run once", async () => {
    const { cm, counts } = shop();
    const plan = await cm.plan(TWO_READS_THREE_EFFECTS);
    expect(plan.status).toBe("planned");
    expect(plan.checkpoint).toEqual(expect.any(String));
    expect(plan.effects).toEqual([
      { id: expect.any(String), tool: "refund", args: { order_id: "A1", amount: 10 } },
      { id: expect.any(String), tool: "refund", args: { order_id: "A2", amount: 5 } },
      { id: expect.any(String), tool: "refund", args: { order_id: "A3", amount: 5 } },
    ]);
    expect(plan.value).toEqual(["refunded", "refunded", "refunded"]);
    expect(plan.calls.map((call) => call.status)).toEqual(["ok", "ok", "planned", "planned", "planned"]);
    expect(counts).toEqual({ list: 1, get: 1, refund: 0, notify: 0 });
    expect(cm.inspect(plan.checkpoint!).effects).toEqual(plan.effects);
  });

  it("approving all runs each effect exactly once, and the reads are not run again", async () => {
    const { cm, counts, refunds } = shop();
    const plan = await cm.plan(TWO_READS_THREE_EFFECTS);
    const done = await cm.resume(plan.checkpoint!, { decisions: "approve-all" });
    expect(done.status).toBe("ok");
    expect(done.value).toEqual(["refunded", "refunded", "refunded"]);
    expect(refunds).toEqual(["A1:10", "A2:5", "A3:5"]);
    expect(counts).toEqual({ list: 1, get: 1, refund: 3, notify: 0 });
    // The plan is carried out once.
    await expect(cm.resume(plan.checkpoint!, { decisions: "approve-all" })).rejects.toMatchObject({
      problem: "reused",
    });
    expect(counts.refund).toBe(3);
  });

  it("approving each effect by its id does the same as approve-all", async () => {
    const { cm, refunds } = shop();
    const plan = await cm.plan(TWO_READS_THREE_EFFECTS);
    const decisions = Object.fromEntries(plan.effects!.map((effect) => [effect.id, true]));
    const done = await cm.resume(plan.checkpoint!, { decisions });
    expect(done.status).toBe("ok");
    expect(refunds).toEqual(["A1:10", "A2:5", "A3:5"]);
  });

  it("a denied effect is seen by the code as a denial, and the other approved ones run", async () => {
    const { cm, refunds, counts } = shop();
    const plan = await cm.plan(TWO_READS_THREE_EFFECTS);
    const [a1, a2, a3] = plan.effects!;
    const done = await cm.resume(plan.checkpoint!, {
      decisions: { [a1!.id]: true, [a2!.id]: { approved: false, reason: "not this one" }, [a3!.id]: true },
    });
    expect(done.status).toBe("ok");
    expect(done.value).toEqual(["refunded", "denied", "refunded"]);
    expect(refunds).toEqual(["A1:10", "A3:5"]);
    expect(counts).toMatchObject({ list: 1, get: 1 });
  });

  it("an effect left undecided waits again: the run pauses for it, and nothing later runs", async () => {
    const { cm, refunds } = shop();
    const plan = await cm.plan(TWO_READS_THREE_EFFECTS);
    const [a1, a2] = plan.effects!;
    const paused = await cm.resume(plan.checkpoint!, { decisions: { [a1!.id]: true } });
    expect(paused.status).toBe("paused");
    expect(paused.pending).toEqual([
      { id: a2!.id, tool: "refund", args: { order_id: "A2", amount: 5 }, kind: "approval" },
    ]);
    expect(refunds).toEqual(["A1:10"]);
    // Approved now, it runs; the third, which this resume never asked about, waits in turn.
    const again = await cm.resume(paused.checkpoint!, { decisions: { [a2!.id]: true } });
    expect(again.status).toBe("paused");
    expect(again.pending?.map((call) => call.args)).toEqual([{ order_id: "A3", amount: 5 }]);
    expect(refunds).toEqual(["A1:10", "A2:5"]);
    const last = await cm.resume(again.checkpoint!, { decisions: "approve-all" });
    expect(last.value).toEqual(["refunded", "refunded", "refunded"]);
    expect(refunds).toEqual(["A1:10", "A2:5", "A3:5"]);
  });

  it("a preview that differs from the live result pauses the later effect the code now asks for instead of running it", async () => {
    const { cm, refunds } = shop({ liveStatus: (id) => (id === "A1" ? "queued" : "refunded") });
    const code = `
      const r1 = await tools.refund({ order_id: "A1", amount: 10 });
      // The plan saw "refunded" (the preview): the live run sees "queued" and asks for another refund.
      const amount = r1.status === "refunded" ? 20 : 99;
      const r2 = await tools.refund({ order_id: "A2", amount });
      return [r1.status, r2.status];
    `;
    const plan = await cm.plan(code);
    expect(plan.effects?.map((effect) => effect.args)).toEqual([
      { order_id: "A1", amount: 10 },
      { order_id: "A2", amount: 20 },
    ]);
    const paused = await cm.resume(plan.checkpoint!, { decisions: "approve-all" });
    expect(paused.status).toBe("paused");
    expect(paused.pending).toEqual([
      { id: expect.any(String), tool: "refund", args: { order_id: "A2", amount: 99 }, kind: "approval" },
    ]);
    expect(refunds).toEqual(["A1:10"]);
    // What a person approves now runs, and the effect that ran is not run again.
    const done = await cm.resume(paused.checkpoint!, { decisions: "approve-all" });
    expect(done.value).toEqual(["queued", "refunded"]);
    expect(refunds).toEqual(["A1:10", "A2:99"]);
  });

  it("a read the code asks for after it left the plan's path runs live, and an unplanned effect waits", async () => {
    const { cm, refunds, counts } = shop({ liveStatus: () => "queued" });
    const code = `
      const r1 = await tools.refund({ order_id: "A1", amount: 10 });
      const order = await tools.get_order({ id: r1.status === "refunded" ? "A2" : "A3" });
      return await tools.refund({ order_id: order.id, amount: order.amount });
    `;
    const plan = await cm.plan(code);
    expect(counts.get).toBe(1);
    const paused = await cm.resume(plan.checkpoint!, { decisions: "approve-all" });
    expect(counts.get).toBe(2);
    expect(paused.status).toBe("paused");
    expect(paused.pending?.map((call) => call.args)).toEqual([{ order_id: "A3", amount: 30 }]);
    expect(refunds).toEqual(["A1:10"]);
  });

  it("effects asked for together (Promise.all) are planned together and, approved, each runs once", async () => {
    const { cm, refunds, counts } = shop();
    const code = `
      const ids = await tools.list_orders({});
      const done = await Promise.all(ids.map((id) => tools.refund({ order_id: id, amount: 1 })));
      return done.map((r) => r.order_id);
    `;
    const plan = await cm.plan(code);
    expect(plan.effects).toHaveLength(3);
    const done = await cm.resume(plan.checkpoint!, { decisions: "approve-all" });
    expect(done.value).toEqual(["A1", "A2", "A3"]);
    expect([...refunds].sort()).toEqual(["A1:1", "A2:1", "A3:1"]);
    expect(counts).toMatchObject({ list: 1, refund: 3 });
  });

  it("an effect without a preview ends the plan there, paused, with the effects so far listed", async () => {
    const { cm, counts } = shop();
    const code = `
      const r = await tools.refund({ order_id: "A1", amount: 10 });
      await tools.notify({ text: "refund " + r.status });
      return await tools.get_order({ id: "A1" });
    `;
    const plan = await cm.plan(code);
    expect(plan.status).toBe("paused");
    expect(plan.effects?.map((effect) => effect.tool)).toEqual(["refund"]);
    expect(plan.pending).toEqual([
      { id: expect.any(String), tool: "notify", args: { text: "refund refunded" }, kind: "approval" },
    ]);
    expect(counts).toEqual({ list: 0, get: 0, refund: 0, notify: 0 });
    const done = await cm.resume(plan.checkpoint!, { decisions: "approve-all" });
    expect(done.status).toBe("ok");
    expect(done.value).toEqual({ id: "A1", amount: 10 });
    expect(counts).toEqual({ list: 0, get: 1, refund: 1, notify: 1 });
  });

  it("a preview whose result does not match the tool's output schema fails the call in the code", async () => {
    const refund = tool({
      name: "refund",
      description: "Refunds an order.",
      input: z.object({ order_id: z.string() }),
      output: z.object({ status: z.string() }),
      effect: true,
      preview: () => ({ status: 1 }) as unknown as { status: string },
      run: () => ({ status: "refunded" }),
    });
    const cm = codeMode({ tools: [refund], environment: isolateEnvironment(), pause: { key: KEY } });
    opened.push(cm);
    const plan = await cm.plan(`
      try { await tools.refund({ order_id: "A1" }); } catch (error) { return error.message; }
    `);
    expect(plan.value).toMatch(/preview of refund returned a result that does not match .*status/);
    expect(plan.effects).toEqual([]);
  });

  it("a plan's checkpoint tampered with, or resumed with other tools, is refused and runs nothing", async () => {
    const { cm, counts, tools } = shop();
    const plan = await cm.plan(TWO_READS_THREE_EFFECTS);
    const text = plan.checkpoint!;
    for (let i = 0; i < text.length; i += 13) {
      const tampered = text.slice(0, i) + (text[i] === "A" ? "B" : "A") + text.slice(i + 1);
      await expect(cm.resume(tampered, { decisions: "approve-all" })).rejects.toMatchObject({
        name: "CheckpointRefused",
      });
    }
    const otherRefund = tool({
      name: "refund",
      description: "Refunds an order.",
      input: z.object({ order_id: z.string(), amount: z.number(), note: z.string().optional() }),
      effect: true,
      preview: () => ({ status: "refunded" }),
      run: () => {
        counts.refund++;
        return { status: "refunded" };
      },
    });
    const other = codeMode({
      tools: new Toolset([...tools.list().filter((t) => t.name !== "refund"), otherRefund]),
      environment: isolateEnvironment(),
      pause: { key: KEY },
    });
    opened.push(other);
    await expect(other.resume(text, { decisions: "approve-all" })).rejects.toMatchObject({
      problem: "tools",
    });
    expect(counts).toEqual({ list: 1, get: 1, refund: 0, notify: 0 });
  });

  it("a decision naming a call the plan does not list is refused before anything runs", async () => {
    const { cm, counts } = shop();
    const plan = await cm.plan(TWO_READS_THREE_EFFECTS);
    await expect(cm.resume(plan.checkpoint!, { decisions: { "nope.1": true } })).rejects.toThrow(
      /does not wait in this checkpoint/,
    );
    await expect(
      cm.resume(plan.checkpoint!, { decisions: "all" as unknown as "approve-all" }),
    ).rejects.toThrow(/decisions must be an object of decisions by call id, or "approve-all"/);
    expect(counts.refund).toBe(0);
  });

  it("needs the code mode's pause.key", async () => {
    const { tools } = shop();
    const cm = codeMode({ tools, environment: isolateEnvironment() });
    opened.push(cm);
    await expect(cm.plan("return 1")).rejects.toThrow(/plan needs the code mode's pause.key/);
  });
});

describe("run_code of a code mode with approval plan", () => {
  it("fails kind paused with the whole plan: every effect in paused.effects and, as approvals, in pending; resumeCall carries it out", async () => {
    const { tools, refunds, counts } = shop();
    const cm = codeMode({ tools, environment: isolateEnvironment(), approval: "plan", pause: { key: KEY } });
    opened.push(cm);
    const handle = new Dispatcher(new Toolset([cm.tool])).dispatch([
      { id: "call_1", name: "run_code", arguments: { code: TWO_READS_THREE_EFFECTS } },
    ]);
    const [result] = (await handle.outcome()).results;
    expect(result).toMatchObject({ ok: false, error: { kind: "paused" } });
    expect(result!.output).toContain("Planned:");
    const paused = result!.error!.paused!;
    expect(paused.effects?.map((effect) => effect.args)).toEqual([
      { order_id: "A1", amount: 10 },
      { order_id: "A2", amount: 5 },
      { order_id: "A3", amount: 5 },
    ]);
    expect(paused.pending.map((call) => [call.id, call.kind])).toEqual(
      paused.effects!.map((effect) => [effect.id, "approval"]),
    );
    expect(refunds).toEqual([]);
    const final = await cm.resumeCall({ callId: "call_1", paused }, { decisions: "approve-all" });
    expect(final).toMatchObject({ callId: "call_1", ok: true });
    expect(refunds).toEqual(["A1:10", "A2:5", "A3:5"]);
    expect(counts).toMatchObject({ list: 1, get: 1 });
  });

  it("a plan with no effect is carried out at once: the call answers with the run", async () => {
    const { tools, counts } = shop();
    const cm = codeMode({ tools, environment: isolateEnvironment(), approval: "plan", pause: { key: KEY } });
    opened.push(cm);
    const handle = new Dispatcher(new Toolset([cm.tool])).dispatch([
      { id: "call_1", name: "run_code", arguments: { code: `return await tools.get_order({ id: "A1" });` } },
    ]);
    const [result] = (await handle.outcome()).results;
    expect(result).toMatchObject({ ok: true });
    expect(result!.output).toContain('"amount":10');
    expect(counts.get).toBe(1);
  });
});

describe("tool({ effect, preview })", () => {
  const base = { name: "refund", description: "Refunds an order.", run: () => "done" };

  it("a preview needs effect: true", () => {
    expect(() => tool({ ...base, preview: () => "done" })).toThrow(UserError);
    expect(() => tool({ ...base, preview: () => "done" })).toThrow(/set effect: true/);
  });

  it("effect must be a boolean and preview a function", () => {
    expect(() => tool({ ...base, effect: "yes" as unknown as boolean })).toThrow(
      /effect must be true or false/,
    );
    expect(() => tool({ ...base, effect: true, preview: "done" as unknown as () => string })).toThrow(
      /preview must be a function/,
    );
  });
});

describe("a plan and undo", () => {
  it("a plan's previewed effects are nothing to revert; once carried out, each is reverted once", async () => {
    const log: string[] = [];
    const refund = tool({
      name: "refund",
      description: "Refunds an order.",
      input: z.object({ order_id: z.string() }),
      effect: true,
      preview: ({ order_id }) => `refund of ${order_id}`,
      run: ({ order_id }) => {
        log.push(`refund ${order_id}`);
        return `refund of ${order_id}`;
      },
      revert: ({ order_id }) => {
        log.push(`unrefund ${order_id}`);
      },
    });
    const cm = codeMode({ tools: [refund], environment: isolateEnvironment(), pause: { key: KEY } });
    opened.push(cm);
    const code = `return await Promise.all(["A", "B"].map((order_id) => tools.refund({ order_id })))`;
    const plan = await cm.plan(code);
    expect(plan.status).toBe("planned");
    expect(plan.revertToken).toBeUndefined();
    await expect(cm.revert(plan)).rejects.toBeInstanceOf(UserError);
    const done = await cm.resume(plan.checkpoint!, { decisions: "approve-all" });
    expect(done.status).toBe("ok");
    const reverted = await cm.revert(done);
    expect(reverted.reverted.map((effect) => effect.tool)).toEqual(["refund", "refund"]);
    expect(log.filter((line) => line.startsWith("unrefund")).sort()).toEqual(["unrefund A", "unrefund B"]);
    expect(log.filter((line) => line.startsWith("refund"))).toHaveLength(2);
  });
});
