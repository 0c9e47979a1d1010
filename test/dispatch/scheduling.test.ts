import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Dispatcher, Toolset, tool } from "../../src/index.js";
import { wait } from "./helpers.js";

/** Records the order in which calls start and end, to read concurrency off the log. */
function recorder() {
  const log: string[] = [];
  let active = 0;
  let peak = 0;
  const make = (name: string, parallel: boolean, ms: number) =>
    tool({
      name,
      description: `${name} tool.`,
      input: z.object({ id: z.string() }),
      parallel,
      run: async ({ id }) => {
        active++;
        peak = Math.max(peak, active);
        log.push(`start ${id}`);
        await wait(ms);
        log.push(`end ${id}`);
        active--;
        return id;
      },
    });
  return { log, make, peak: () => peak };
}

const call = (id: string, name: string) => ({ id, name, arguments: { id } });

describe("scheduling", () => {
  it("runs the calls of a turn concurrently by default", async () => {
    const r = recorder();
    const d = new Dispatcher(new Toolset([r.make("slow", true, 30)]));
    await d.dispatch(["a", "b", "c", "d"].map((id) => call(id, "slow"))).results();
    expect(r.peak()).toBe(4);
    expect(r.log.slice(0, 4)).toEqual(["start a", "start b", "start c", "start d"]);
  });

  it("bounds concurrency by maxConcurrency", async () => {
    const r = recorder();
    const d = new Dispatcher(new Toolset([r.make("slow", true, 20)]), { maxConcurrency: 2 });
    await d.dispatch(["a", "b", "c", "d", "e"].map((id) => call(id, "slow"))).results();
    expect(r.peak()).toBe(2);
  });

  it("a parallel: false tool waits for running calls, runs alone, then the rest continue", async () => {
    const r = recorder();
    const d = new Dispatcher(new Toolset([r.make("par", true, 20), r.make("bar", false, 10)]));
    await d
      .dispatch([call("a", "par"), call("b", "par"), call("X", "bar"), call("c", "par"), call("d", "par")])
      .results();
    const xStart = r.log.indexOf("start X");
    const xEnd = r.log.indexOf("end X");
    expect(r.log.slice(0, xStart)).toEqual(expect.arrayContaining(["start a", "start b", "end a", "end b"]));
    expect(xEnd).toBe(xStart + 1);
    expect(r.log.slice(xEnd + 1)).toEqual(expect.arrayContaining(["start c", "start d", "end c", "end d"]));
  });

  it("a turn of only barriers is exactly the serial loop in request order", async () => {
    const r = recorder();
    const d = new Dispatcher(new Toolset([r.make("bar", false, 5)]));
    await d.dispatch(["1", "2", "3"].map((id) => call(id, "bar"))).results();
    expect(r.log).toEqual(["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"]);
  });

  it("returns results in completion order", async () => {
    const sleepy = tool({
      name: "sleepy",
      description: "Sleep.",
      input: z.object({ ms: z.number() }),
      run: async ({ ms }) => {
        await wait(ms);
        return ms;
      },
    });
    const d = new Dispatcher(new Toolset([sleepy]));
    const results = await d
      .dispatch([
        { id: "slow", name: "sleepy", arguments: { ms: 60 } },
        { id: "fast", name: "sleepy", arguments: { ms: 1 } },
      ])
      .results();
    expect(results.map((r) => r.callId)).toEqual(["fast", "slow"]);
  });
});
