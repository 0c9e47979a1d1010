/**
 * Upstream tools that require task-based execution (`execution.taskSupport: "required"`). They were
 * declared to the model, but every call failed with -32600 "requires task-based execution": the SDK's
 * callTool refuses them. cordon now calls them as tasks (create, then wait for `tasks/result` within the
 * call's timeout) and cancels the task (`tasks/cancel`) when the call times out or is aborted.
 */

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ensureBuilt } from "../cli/helpers.js";
import { type Connected, connectStdio, returnedBy } from "./helpers.js";

const TASK_COMMAND = `${process.execPath} --import tsx ${join(import.meta.dirname, "fixtures/task-server.ts")}`;

let mcp: Connected | undefined;
let scratch: string | undefined;

beforeAll(() => ensureBuilt(), 120_000);

afterEach(async () => {
  await mcp?.close();
  mcp = undefined;
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

/**
 * Starts a run_code call of the task-required tool (with `extraArgs` in its arguments), aborts it from
 * the client once the upstream has created the task, and returns the statuses of the upstream's tasks
 * once one is cancelled (or after 5 s).
 */
async function statusesAfterAbort(extraArgs: string): Promise<unknown> {
  scratch = mkdtempSync(join(tmpdir(), "cordon-tasks-"));
  const marker = join(scratch, "task-created");
  mcp = await connectStdio(["--upstream", `tasks=${TASK_COMMAND}`]);
  const abort = new AbortController();
  const call = mcp.client.callTool(
    {
      name: "run_code",
      arguments: {
        code: `return await tools.tasks__research({ topic: "tides", ms: 60000, ${extraArgs} marker: ${JSON.stringify(marker)} });`,
      },
    },
    undefined,
    { signal: abort.signal },
  );
  call.catch(() => {});
  await vi.waitFor(() => expect(existsSync(marker), "the upstream created the task").toBe(true), {
    timeout: 15_000,
  });
  abort.abort(new Error("the user pressed stop"));
  await expect(call).rejects.toThrow("the user pressed stop");
  return await returnedBy(
    mcp,
    `return Object.values(JSON.parse(await tools.tasks__task_statuses({ status: "cancelled", ms: 5000 })));`,
  );
}

/**
 * Runs code that calls the task-required tool (with `extraArgs` in its arguments) under a 1.5 s upstream
 * timeout; returns how the call failed and the statuses of the upstream's tasks once one is cancelled
 * (or after 5 s).
 */
async function timedOutCall(extraArgs: string): Promise<{ outcome: unknown[]; statuses: string[] }> {
  mcp = await connectStdio(["--upstream", `tasks=${TASK_COMMAND}`, "--upstream-timeout", "1500"]);
  return (await returnedBy(
    mcp,
    `let outcome;
     try { await tools.tasks__research({ topic: "tides", ms: 60000, ${extraArgs} }); outcome = ["answered"]; }
     catch (e) { outcome = [e.kind, e.message]; }
     const statuses = await tools.tasks__task_statuses({ status: "cancelled", ms: 5000 });
     return { outcome, statuses: Object.values(JSON.parse(statuses)) };`,
  )) as { outcome: unknown[]; statuses: string[] };
}

describe("cordon mcp: upstream tools that require task-based execution", () => {
  it("a task-required tool is declared, and a run_code call gets its result (an optional one is called plainly)", async () => {
    mcp = await connectStdio(["--upstream", `tasks=${TASK_COMMAND}`]);
    const { tools } = await mcp.client.listTools();
    expect(tools[0]!.description).toContain("tasks__research");
    const value = await returnedBy(
      mcp,
      `return {
         research: await tools.tasks__research({ topic: "tides", ms: 200 }),
         summary: await tools.tasks__summarize({ text: "a long text about tides" }),
       };`,
    );
    expect(value).toEqual({ research: "findings on tides", summary: "summary: a long tex" });
  });

  it("a task call that times out cancels its task", async () => {
    const { outcome, statuses } = await timedOutCall("");
    expect(outcome).toEqual(["timeout", "tasks__research timed out after 1.5 s."]);
    expect(statuses).toEqual(["cancelled"]);
  });

  it("a task call aborted by the client cancels its task", async () => {
    expect(await statusesAfterAbort("")).toEqual(["cancelled"]);
  });

  it("a task call aborted before the server answered with its task still cancels the task once its id comes", async () => {
    // The task exists and the server holds back its answer for a second: the abort comes in between.
    expect(await statusesAfterAbort("answerAfter: 1000,")).toEqual(["cancelled"]);
  });

  it("a task call that timed out before the server answered with its task still cancels the task", async () => {
    const { outcome, statuses } = await timedOutCall("answerAfter: 2500,");
    expect(outcome[0]).toBe("timeout");
    expect(statuses).toEqual(["cancelled"]);
  });

  it("a server that does not declare task support: its task-required tool is left out, with the reason", async () => {
    mcp = await connectStdio(["--upstream", `tasks=${TASK_COMMAND} --no-task-capability`]);
    const { tools } = await mcp.client.listTools();
    expect(tools[0]!.description).not.toContain("tasks__research");
    expect(tools[0]!.description).toContain("tasks__summarize");
    const connected = mcp;
    await vi.waitFor(
      () =>
        expect(connected.stderr()).toContain(
          "upstream tasks: skipped its tool research: it requires task-based execution",
        ),
      { timeout: 15_000 },
    );
    expect(connected.stderr()).toContain("does not declare task support for tools/call");
  });
});
