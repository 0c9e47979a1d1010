/**
 * The journal cordon/dbos keeps in a workflow's steps, on checkpoints kept as DBOS keeps them (a step
 * that has an output gives it back without running; a new one runs and is checkpointed): what DBOS
 * itself cannot show on demand, an execution that stalled while its workflow was recovered elsewhere,
 * and a workflow whose steps changed between executions.
 */

import { describe, expect, it } from "vitest";
import { type WorkflowSteps, workflowJournal } from "../../src/durable/dbos-journal.js";

/** One workflow's checkpoints, and its executions, each counting its steps from the first. */
function checkpoints() {
  const outputs: { name: string; value: unknown }[] = [];
  const execution = (): WorkflowSteps => {
    let next = 0;
    return {
      async run(name, action) {
        const at = next++;
        const had = outputs[at];
        if (had !== undefined) {
          if (had.name !== name) throw new Error(`step ${at} was ${had.name}, not ${name}`);
          return structuredClone(had.value) as ReturnType<typeof action>;
        }
        const value = await action();
        outputs[at] = { name, value: structuredClone(value) };
        return value;
      },
    };
  };
  return { outputs, execution };
}

const header = { seq: 0, text: "header" };
const lease = (owner: string) => ({ owner, until: Date.now() + 60_000 });

describe("the journal in a workflow's steps", () => {
  it("refuses a write where the workflow gives back another execution's step: the stalled execution stops", async () => {
    const workflow = checkpoints();
    const stalled = await workflowJournal(workflow.execution());
    expect(await stalled.create("run-1", header, lease("a"))).toBe(true);
    expect(await stalled.append("run-1", [{ seq: 1, text: "start 0" }], "a")).toBe(true);
    // DBOS recovers the workflow elsewhere: that execution reads the run back and goes on.
    const recovering = await workflowJournal(workflow.execution());
    expect(recovering.runId).toBe("run-1");
    expect(await recovering.claim("run-1", lease("b"), Date.now())).toBe(true);
    expect(await recovering.append("run-1", [{ seq: 2, text: "start 1 (b)" }], "b")).toBe(true);
    // The stalled execution's next write meets the other's steps.
    expect(await stalled.append("run-1", [{ seq: 2, text: "start 1 (a)" }], "a")).toBe(false);
    const read = await workflowJournal(workflow.execution());
    expect((await read.read("run-1"))?.records.map((record) => record.text)).toEqual([
      "header",
      "start 0",
      "start 1 (b)",
    ]);
  });

  it("refuses to read back a step that is not its own where the run was: the workflow's steps changed", async () => {
    const workflow = checkpoints();
    const first = await workflowJournal(workflow.execution());
    await first.create("run-1", header, lease("a"));
    workflow.outputs.push({ name: "cordon.journal", value: { something: "else" } });
    await expect(workflowJournal(workflow.execution())).rejects.toThrow(/not one it wrote for that run/);
  });

  it("writes the run's end with its result in one step: read back, the run has ended with that result", async () => {
    const workflow = checkpoints();
    const first = await workflowJournal(workflow.execution());
    await first.create("run-1", header, lease("a"));
    expect(await first.end("run-1", [{ seq: 1, text: "end" }], "a")).toBe(true);
    // A recovery from the steps so far (on a copy of them, as DBOS's fork makes): until the result is
    // written, the end is not, and the recovery replays the run to its end.
    const copy = checkpoints();
    copy.outputs.push(...structuredClone(workflow.outputs));
    const before = await workflowJournal(copy.execution());
    expect((await before.read("run-1"))?.ended).toBe(false);
    await first.finish("run-1", { status: "ok", value: 1 });
    const after = await workflowJournal(workflow.execution());
    expect(after.result).toEqual({ status: "ok", value: 1 });
    expect(await after.read("run-1")).toMatchObject({
      ended: true,
      records: [header, { seq: 1, text: "end" }],
    });
  });
});
