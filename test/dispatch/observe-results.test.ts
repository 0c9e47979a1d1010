/** `Dispatcher.observeResults`: told once of each successful call, never of a failure, never in the way. */

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Dispatcher, ToolError, Toolset, tool } from "../../src/index.js";

function flaky() {
  let attempts = 0;
  return tool({
    name: "flaky",
    description: "Fails once, then works.",
    input: z.object({}),
    retries: 2,
    run: () => {
      attempts++;
      if (attempts === 1) throw new Error("first attempt fails");
      return { attempts };
    },
  });
}

const broken = tool({
  name: "broken",
  description: "Always fails.",
  input: z.object({}),
  run: () => {
    throw new ToolError("no");
  },
});

const echo = tool({
  name: "echo",
  description: "Echo.",
  input: z.object({ text: z.string() }),
  run: ({ text }) => ({ text }),
});

describe("Dispatcher.observeResults", () => {
  it("tells the observer once per successful call, after its last attempt, with the tool and the raw value", async () => {
    const dispatcher = new Dispatcher(new Toolset([flaky(), broken, echo]), { retryDelay: 1 });
    const seen: [string, unknown][] = [];
    dispatcher.observeResults((t, value) => seen.push([t.name, value]));
    const results = await dispatcher
      .dispatch([
        { id: "1", name: "flaky", arguments: {} },
        { id: "2", name: "broken", arguments: {} },
        { id: "3", name: "echo", arguments: { text: 5 } },
        { id: "4", name: "echo", arguments: { text: "hi" } },
      ])
      .results();
    expect(
      results
        .filter((r) => r.ok)
        .map((r) => r.callId)
        .sort(),
    ).toEqual(["1", "4"]);
    expect(seen).toEqual(
      expect.arrayContaining([
        ["flaky", { attempts: 2 }],
        ["echo", { text: "hi" }],
      ]),
    );
    expect(seen).toHaveLength(2);
  });

  it("sees calls made as children of a run (what code mode's calls are)", async () => {
    const dispatcher = new Dispatcher(new Toolset([echo]));
    const seen: unknown[] = [];
    dispatcher.observeResults((_t, value) => seen.push(value));
    const run = dispatcher.openRun({ callId: "run" });
    const { result } = await dispatcher.runCall(
      { id: "c", name: "echo", arguments: { text: "x" } },
      { parent: run.context },
    );
    run.close();
    expect(result.ok).toBe(true);
    expect(seen).toEqual([{ text: "x" }]);
  });

  it("an observer that throws changes nothing about the call, and the others are still told", async () => {
    const dispatcher = new Dispatcher(new Toolset([echo]));
    const seen: unknown[] = [];
    dispatcher.observeResults(() => {
      throw new Error("observer bug");
    });
    dispatcher.observeResults((_t, value) => seen.push(value));
    const [result] = await dispatcher
      .dispatch([{ id: "c", name: "echo", arguments: { text: "x" } }])
      .results();
    expect(result).toMatchObject({ ok: true, value: { text: "x" } });
    expect(seen).toEqual([{ text: "x" }]);
  });

  it("the function it returns stops the observer", async () => {
    const dispatcher = new Dispatcher(new Toolset([echo]));
    const seen: unknown[] = [];
    const stop = dispatcher.observeResults((_t, value) => seen.push(value));
    await dispatcher.dispatch([{ id: "a", name: "echo", arguments: { text: "a" } }]).results();
    stop();
    await dispatcher.dispatch([{ id: "b", name: "echo", arguments: { text: "b" } }]).results();
    expect(seen).toEqual([{ text: "a" }]);
  });

  it("refuses an observer that is not a function", () => {
    const dispatcher = new Dispatcher(new Toolset([echo]));
    expect(() => dispatcher.observeResults("log" as never)).toThrow(/takes a function/);
  });
});
