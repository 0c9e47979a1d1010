import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Dispatcher, tool } from "../../src/index.js";
import { deferred, toolsetOf, wait } from "./helpers.js";

/** A tool that never looks at its signal: it finishes (and writes) when `release` is resolved. */
function stubbornWriter() {
  const release = deferred();
  const writes: string[] = [];
  const write = tool({
    name: "write",
    description: "Writes after a delay, ignoring cancellation.",
    input: z.object({ text: z.string() }),
    run: async ({ text }) => {
      await release.promise;
      writes.push(text);
      return "written";
    },
  });
  return { write, release, writes };
}

describe("handle.settled(): the dispatch is over only when its tools really finished", () => {
  it("a cancelled dispatch's results come at once, settled() waits for a tool that ignores its signal", async () => {
    const { write, release, writes } = stubbornWriter();
    const controller = new AbortController();
    const handle = new Dispatcher(toolsetOf(write)).dispatch(
      [{ id: "w", name: "write", arguments: { text: "late" } }],
      { signal: controller.signal },
    );
    await wait(10);
    controller.abort();
    await expect(handle.results()).rejects.toThrow(/cancelled/i);
    let settled = false;
    const settling = handle.settled().then(() => {
      settled = true;
    });
    await wait(20);
    expect(settled).toBe(false);
    expect(writes).toEqual([]);
    release.resolve();
    await settling;
    expect(writes).toEqual(["late"]);
  });

  it("a call ended by its timeout is still running for settled() until the tool returns", async () => {
    const { write, release } = stubbornWriter();
    const handle = new Dispatcher(toolsetOf(write), { timeout: 10 }).dispatch([
      { id: "w", name: "write", arguments: { text: "x" } },
    ]);
    const [result] = await handle.results();
    expect(result?.error?.kind).toBe("timeout");
    let settled = false;
    void handle.settled().then(() => {
      settled = true;
    });
    await wait(20);
    expect(settled).toBe(false);
    release.resolve();
    await handle.settled();
  });

  it("settled() resolves (never rejects) for a dispatch whose calls all finished normally", async () => {
    const echo = tool({ name: "echo", description: "Echo.", input: z.object({}), run: () => "ok" });
    const handle = new Dispatcher(toolsetOf(echo)).dispatch([{ id: "e", name: "echo", arguments: {} }]);
    await expect(handle.settled()).resolves.toBeUndefined();
    expect((await handle.results())[0]?.ok).toBe(true);
  });
});

describe("dispatcher.openRun(): many calls over time in one turn", () => {
  it("calls dispatched under a run share its run id and session, and closing the run aborts the ones still running", async () => {
    const seen: { runId: string; session: string | undefined; parentCallId: string | undefined }[] = [];
    let aborted = false;
    const probe = tool({
      name: "probe",
      description: "Records its context.",
      input: z.object({ wait: z.boolean() }),
      run: async ({ wait }, ctx) => {
        seen.push({ runId: ctx.runId, session: ctx.session?.id, parentCallId: ctx.parentCallId });
        if (wait) {
          await new Promise<void>((resolve) =>
            ctx.signal.addEventListener("abort", () => {
              aborted = true;
              resolve();
            }),
          );
        }
        return "ok";
      },
    });
    const dispatcher = new Dispatcher(toolsetOf(probe));
    const run = dispatcher.openRun({ callId: "code-1", session: "s1" });
    await dispatcher
      .dispatch([{ id: "a", name: "probe", arguments: { wait: false } }], { parent: run.context })
      .results();
    const pending = dispatcher.dispatch([{ id: "b", name: "probe", arguments: { wait: true } }], {
      parent: run.context,
    });
    await wait(10);
    run.close();
    await pending.results().catch(() => {});
    expect(aborted).toBe(true);
    expect(seen.map((s) => s.runId)).toEqual([run.context.runId, run.context.runId]);
    expect(seen.every((s) => s.session === "s1" && s.parentCallId === "code-1")).toBe(true);
    // After the run is closed its calls run nothing.
    const late = await dispatcher
      .dispatch([{ id: "c", name: "probe", arguments: { wait: false } }], { parent: run.context })
      .results()
      .catch((error: unknown) => error);
    expect(seen).toHaveLength(2);
    expect(late).toBeDefined();
  });

  it("a run opened under a call's context also aborts its calls when closed, and runs nothing after", async () => {
    let aborted = false;
    let ran = 0;
    const probe = tool({
      name: "probe",
      description: "Waits for its signal when asked.",
      input: z.object({ wait: z.boolean() }),
      run: async ({ wait }, ctx) => {
        ran++;
        if (wait) {
          await new Promise<void>((resolve) =>
            ctx.signal.addEventListener("abort", () => {
              aborted = true;
              resolve();
            }),
          );
        }
        return "ok";
      },
    });
    const dispatcher = new Dispatcher(toolsetOf(probe));
    const outer = dispatcher.openRun({ callId: "rc" });
    const run = dispatcher.openRun({ parent: outer.context, callId: "rc" });
    const pending = dispatcher.dispatch([{ id: "b", name: "probe", arguments: { wait: true } }], {
      parent: run.context,
    });
    await wait(10);
    run.close();
    await pending.results().catch(() => {});
    expect(aborted).toBe(true);
    const [late] = await dispatcher
      .dispatch([{ id: "c", name: "probe", arguments: { wait: false } }], { parent: run.context })
      .results()
      .catch(() => [undefined]);
    expect(ran).toBe(1);
    expect(late?.ok ?? false).toBe(false);
    outer.close();
  });
});
