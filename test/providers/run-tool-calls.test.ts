import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Dispatcher, runToolCalls, Toolset, tool } from "../../src/index.js";

const sleepy = tool({
  name: "sleepy",
  description: "Sleeps for ms milliseconds, then returns its id.",
  input: z.object({ id: z.string(), ms: z.number() }),
  run: ({ id, ms }) => new Promise((resolve) => setTimeout(() => resolve(id), ms)),
});

describe("runToolCalls", () => {
  it("returns the results in the order of the calls, not the order they finished in", async () => {
    const dispatcher = new Dispatcher(new Toolset([sleepy]));
    const { results, stopped } = await runToolCalls(dispatcher, [
      { id: "slow", name: "sleepy", arguments: { id: "slow", ms: 40 } },
      { id: "fast", name: "sleepy", arguments: { id: "fast", ms: 1 } },
      { id: "bad", name: "sleepy", arguments: { id: 3 } },
    ]);
    expect(stopped).toBeUndefined();
    expect(results.map((r) => [r.callId, r.ok])).toEqual([
      ["slow", true],
      ["fast", true],
      ["bad", false],
    ]);
  });

  it("pairs calls that share an id with their results one by one", async () => {
    const dispatcher = new Dispatcher(new Toolset([sleepy]));
    const { results } = await runToolCalls(dispatcher, [
      { id: "same", name: "sleepy", arguments: { id: "a", ms: 20 } },
      { id: "same", name: "sleepy", arguments: { id: "b", ms: 1 } },
    ]);
    expect(results).toHaveLength(2);
    expect(results.map((r) => r.output).sort()).toEqual(["a", "b"]);
  });

  it("a reader that throws stops reading; the error comes once every call has its result", async () => {
    const dispatcher = new Dispatcher(new Toolset([sleepy]));
    let finished = 0;
    const observed = runToolCalls(
      dispatcher,
      [
        { id: "1", name: "sleepy", arguments: { id: "1", ms: 20 } },
        { id: "2", name: "sleepy", arguments: { id: "2", ms: 20 } },
      ],
      {
        onEvent: (event) => {
          if (event.type === "completed") finished++;
        },
        onStreamEvent: (event) => {
          if (event.type === "started") throw new Error("the approval UI crashed");
        },
      },
    );
    await expect(observed).rejects.toThrow("the approval UI crashed");
    expect(finished).toBe(2);
  });

  it("says clearly when it is not given a dispatcher", async () => {
    await expect(runToolCalls(new Toolset([sleepy]) as never, [])).rejects.toThrow(
      "runToolCalls needs a Dispatcher",
    );
  });
});
