/**
 * Undo in a durable run: the reverts are journaled like calls (written ahead, with idempotency keys),
 * and a crash in the middle of reverting recovers like any run, every revert made exactly once.
 */

import { afterAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import { memoryJournal } from "../../src/codemode/durable/memory-journal.js";
import type { RunJournal } from "../../src/codemode/durable/run-journal.js";
import { type CodeMode, codeMode, tool } from "../../src/index.js";
import { crashable, KEY, recordsIn } from "./helpers.js";

const opened: CodeMode[] = [];
afterAll(() => Promise.all(opened.map((cm) => cm.close())));

/**
 * Steps a service keeps: `done` and `undone` hold each idempotency key once (the service dedupes by
 * key), `reverts` every time a revert really ran. `onRevert` is told how many steps are undone.
 */
function steps(options: { idempotent: boolean; onRevert?: (undone: number) => void }) {
  const done: string[] = [];
  const undone: string[] = [];
  const reverts: string[] = [];
  const step = tool({
    name: "step",
    description: "Makes step n.",
    input: z.object({ n: z.number() }),
    idempotent: options.idempotent,
    run: ({ n }, ctx) => {
      if (!done.includes(ctx.idempotencyKey)) done.push(ctx.idempotencyKey);
      return { step: n };
    },
    revert: (args, _result, ctx) => {
      reverts.push(`${(args as { n: number }).n}`);
      if (!undone.includes(ctx.idempotencyKey)) undone.push(ctx.idempotencyKey);
      options.onRevert?.(undone.length);
    },
  });
  return { done, undone, reverts, step };
}

const THREE_STEPS_THEN_FAIL = `
for (let n = 1; n <= 3; n++) await tools.step({ n });
throw new Error("step 4 cannot be made");
`;

function make(tools: ReturnType<typeof steps>["step"][], journal: RunJournal) {
  const cm = codeMode({
    tools,
    environment: isolateEnvironment(),
    pause: { key: KEY },
    journal: { store: journal, leaseMs: 300 },
  });
  opened.push(cm);
  return cm;
}

describe("a durable run that reverts", () => {
  it("journals each revert ahead of it, with its key and how it ended, before the run's end", async () => {
    const store = memoryJournal();
    const world = steps({ idempotent: false });
    const cm = make([world.step], store);
    const result = await cm.run(THREE_STEPS_THEN_FAIL, { runId: "undo-1", onFailure: "revert" });
    expect(result.reverted?.map((r) => r.status)).toEqual(["ok", "ok", "ok"]);
    expect(world.reverts).toEqual(["3", "2", "1"]);
    const records = recordsIn((await store.read("undo-1"))!.records);
    expect(records[0]).toMatchObject({ t: "header", onFailure: "revert" });
    const reverting = records.filter((r) => r.t === "revert" || r.t === "reverted");
    expect(reverting).toEqual([
      { t: "revert", i: 2, key: "undo-1:2.revert" },
      { t: "reverted", i: 2, status: "ok" },
      { t: "revert", i: 1, key: "undo-1:1.revert" },
      { t: "reverted", i: 1, status: "ok" },
      { t: "revert", i: 0, key: "undo-1:0.revert" },
      { t: "reverted", i: 0, status: "ok" },
    ]);
    expect(records.at(-1)).toMatchObject({ t: "end", status: "error" });
  });

  it("a crash in the middle of reverting recovers: an idempotent revert in flight runs again by its key, every revert exactly once", async () => {
    const store = memoryJournal();
    const { journal, crash } = crashable(store);
    // The process dies as the second revert has taken effect, before its end is journaled.
    const world = steps({ idempotent: true, onRevert: (undone) => undone === 2 && crash() });
    const first = make([world.step], journal);
    const crashed = await first.run(THREE_STEPS_THEN_FAIL, { runId: "undo-2", onFailure: "revert" });
    expect(crashed.error?.name).toBe("JournalFailed");
    expect(world.undone).toEqual(["undo-2:2.revert", "undo-2:1.revert"]);
    const second = make([world.step], store);
    await vi.waitFor(async () => expect(await second.incompleteRuns()).toHaveLength(1));
    const recovered = await second.recover("undo-2");
    expect(recovered.status).toBe("error");
    expect(recovered.error?.message).toContain("step 4 cannot be made");
    expect(recovered.reverted?.map((r) => [r.id, r.status])).toEqual([
      [recovered.calls[2]!.callId, "ok"],
      [recovered.calls[1]!.callId, "ok"],
      [recovered.calls[0]!.callId, "ok"],
    ]);
    // The steps were not made again; each was undone once (the one in flight ran again, deduped by key).
    expect(world.done).toEqual(["undo-2:0", "undo-2:1", "undo-2:2"]);
    expect(world.undone).toEqual(["undo-2:2.revert", "undo-2:1.revert", "undo-2:0.revert"]);
    expect(world.reverts).toEqual(["3", "2", "2", "1"]);
    expect((await store.read("undo-2"))?.ended).toBe(true);
    // Recovering the ended run answers with its result, its reverts as its journal has them: none runs.
    const again = await second.recover("undo-2");
    expect(again.reverted).toEqual(recovered.reverted);
    expect(again.notReverted).toBeUndefined();
    expect(world.reverts).toEqual(["3", "2", "2", "1"]);
  });

  it("a revert in flight at the crash that is not idempotent waits for a person, then the reverting goes on", async () => {
    const store = memoryJournal();
    const { journal, crash } = crashable(store);
    const world = steps({ idempotent: false, onRevert: (undone) => undone === 2 && crash() });
    const first = make([world.step], journal);
    await first.run(THREE_STEPS_THEN_FAIL, { runId: "undo-3", onFailure: "revert" });
    const second = make([world.step], store);
    await vi.waitFor(async () => expect(await second.incompleteRuns()).toHaveLength(1));
    const waiting = await second.recover("undo-3");
    expect(waiting.status).toBe("paused");
    const [pending] = waiting.pending!;
    expect(pending).toMatchObject({
      tool: "step.revert",
      kind: "unknown-outcome",
      args: { n: 2 },
      idempotencyKey: "undo-3:1.revert",
    });
    expect(world.reverts).toEqual(["3", "2"]);
    // The person checked: it did take effect.
    const recovered = await second.recover("undo-3", { decisions: { [pending!.id]: { result: null } } });
    expect(recovered.reverted?.map((r) => r.status)).toEqual(["ok", "ok", "ok"]);
    expect(world.reverts).toEqual(["3", "2", "1"]);
    expect(world.undone).toEqual(["undo-3:2.revert", "undo-3:1.revert", "undo-3:0.revert"]);
    expect((await store.read("undo-3"))?.ended).toBe(true);
  });
});
