import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Budget, BudgetExceeded, Dispatcher, RunCancelled, Toolset, tool } from "../../src/index.js";

const noArgs = z.object({});

describe("handle.outcome(): one result per call, whatever the outcome", () => {
  it("a turn that finishes resolves with every result and no stop reason", async () => {
    const t = tool({ name: "one", description: "One.", input: noArgs, run: () => 1 });
    const handle = new Dispatcher(new Toolset([t])).dispatch([
      { id: "a", name: "one", arguments: "{}" },
      { id: "b", name: "missing", arguments: "{}" },
    ]);
    const outcome = await handle.outcome();
    expect(outcome.stopped).toBeUndefined();
    expect(outcome.results.map((r) => [r.callId, r.ok]).sort()).toEqual([
      ["a", true],
      ["b", false],
    ]);
  });

  it("a cancelled turn resolves with a cancelled result for the calls in flight and those never started", async () => {
    const controller = new AbortController();
    const nap = tool({
      name: "nap",
      description: "Naps until cancelled.",
      input: noArgs,
      run: (_args, ctx) =>
        new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve("woke"))),
    });
    const barrier = tool({
      name: "barrier",
      description: "Runs alone.",
      input: noArgs,
      parallel: false,
      run: () => 1,
    });
    const handle = new Dispatcher(new Toolset([nap, barrier])).dispatch(
      [
        { id: "1", name: "nap", arguments: "{}" },
        { id: "2", name: "nap", arguments: "{}" },
        { id: "3", name: "barrier", arguments: "{}" },
      ],
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort("user pressed stop"), 10);

    const outcome = await handle.outcome();
    expect(outcome.stopped).toBeInstanceOf(RunCancelled);
    expect(outcome.results.map((r) => r.callId).sort()).toEqual(["1", "2", "3"]);
    for (const result of outcome.results) {
      expect(result).toMatchObject({ ok: false, error: { kind: "cancelled" } });
    }
    expect(outcome.results.find((r) => r.callId === "3")!.attempts).toBe(0);
    // results() keeps its contract: a stopped turn rejects.
    await expect(handle.results()).rejects.toBeInstanceOf(RunCancelled);
  });

  it("a turn whose budget ran out resolves with budget results for the calls that did not run", async () => {
    const work = tool({
      name: "work",
      description: "Work.",
      input: noArgs,
      parallel: false,
      run: () => "done",
    });
    const handle = new Dispatcher(new Toolset([work])).dispatch(
      ["a", "b", "c"].map((id) => ({ id, name: "work", arguments: "{}" })),
      { budget: new Budget({ toolCalls: 1 }) },
    );
    const outcome = await handle.outcome();
    expect(outcome.stopped).toBeInstanceOf(BudgetExceeded);
    const byId = Object.fromEntries(outcome.results.map((r) => [r.callId, r]));
    expect(byId.a).toMatchObject({ ok: true, output: "done" });
    expect(byId.b).toMatchObject({ ok: false, error: { kind: "budget" } });
    expect(byId.c).toMatchObject({ ok: false, error: { kind: "budget" } });
  });
});
