/**
 * cordon/dbos in one process, with DBOS launched here on a system database of this suite's own (on the
 * server `make postgres` starts, dropped after): the run's journal in the workflow's steps, a workflow
 * executed again from its checkpoints (DBOS's fork: as a recovery after a crash at that step) answering
 * with the same result and no call made again, the approval flow on DBOS.recv, a cancelled workflow, and
 * dbosRunCode outside a workflow.
 */

import { DBOS, Error as DBOSErrors } from "@dbos-inc/dbos-sdk";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { UserError } from "../../common/errors.js";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import type { CodeRunResult } from "../../src/codemode/result.js";
import { DBOS_PENDING_EVENT, type DbosPendingCall, dbosRunCode } from "../../src/durable/dbos.js";
import { codeMode, tool } from "../../src/index.js";
import { effectWorld, FORTY_CALLS, FORTY_CALLS_VALUE, KEY, recordsIn } from "./helpers.js";
import {
  databaseUrl,
  dropDatabase,
  freshDatabase,
  POSTGRES_SUITES,
  requirePostgres,
} from "./postgres-server.js";

const database = freshDatabase();
const world = effectWorld({ idempotent: false });
const sent: string[] = [];
/** Text Postgres's `text` cannot hold as it is: a NUL, and half of a surrogate pair. */
const ODD_TEXT = "a\u0000b\uD800c";

const echo = tool({
  name: "echo",
  description: "Gives its text back.",
  input: z.object({ text: z.string() }),
  run: ({ text }) => text,
});
const send = tool({
  name: "send",
  description: "Sends, once approved.",
  input: z.object({ to: z.string() }),
  needsApproval: true,
  run: ({ to }) => {
    sent.push(to);
    return `sent to ${to}`;
  },
});
const cm = codeMode({
  tools: [world.effect, echo, send],
  environment: isolateEnvironment(),
  pause: { key: KEY },
});

/** What DBOS told each call of `probe` about the workflow it ran in. */
const probed: unknown[] = [];
const probe = tool({
  name: "probe",
  description: "Tells which DBOS workflow it runs in.",
  input: z.object({}),
  run: () => {
    probed.push(DBOS.workflowID ?? null);
    return 1;
  },
});
// In the default environment (the sandbox host process), whose calls come back on its own connection.
const probing = codeMode({ tools: [probe], pause: { key: KEY } });
const runProbe = DBOS.registerWorkflow(
  async () => dbosRunCode(probing, "await tools.probe({}); return await tools.probe({})"),
  { name: "cordon-test-probe" },
);

const runCodeNotifying = DBOS.registerWorkflow(
  async (code: string) =>
    dbosRunCode(cm, code, {
      onPending: () => {
        throw new Error("the mail server is down");
      },
    }),
  { name: "cordon-test-run-code-notifying" },
);

/** The errors that reached the workflows, by workflow id. */
const thrown = new Map<string, unknown>();
const runCode = DBOS.registerWorkflow(
  async (code: string) => {
    try {
      return await dbosRunCode(cm, code);
    } catch (error) {
      thrown.set(DBOS.workflowID!, error);
      throw error;
    }
  },
  { name: "cordon-test-run-code" },
);
const twoRuns = DBOS.registerWorkflow(
  async () => [
    await dbosRunCode(cm, "return await tools.effect({ n: 1 })", { runId: `${DBOS.workflowID}/first` }),
    await dbosRunCode(cm, "return await tools.effect({ n: 2 })", { runId: `${DBOS.workflowID}/second` }),
  ],
  { name: "cordon-test-two-runs" },
);

/** FORTY_CALLS, reading the clock and Math.random before a last call (ahead of which they are journaled). */
const ODD_CALLS = FORTY_CALLS.replace(
  /return \{ total,.*/,
  "const dice = Math.random(); const at = Date.now();\nconst odd = await tools.echo({ text: 'a\\u0000b\\uD800c' });\nreturn { odd, total, dice, at };",
);

let workflows = 0;
const started = (code: string) => DBOS.startWorkflow(runCode, { workflowID: `wf-${++workflows}` })(code);

describe.runIf(POSTGRES_SUITES)("dbosRunCode in a DBOS workflow", () => {
  beforeAll(async () => {
    requirePostgres();
    DBOS.setConfig({
      name: "cordon-dbos-test",
      systemDatabaseUrl: databaseUrl(database),
      applicationVersion: "cordon-test",
      logLevel: "error",
    });
    await DBOS.launch();
  }, 60_000);

  afterAll(async () => {
    await DBOS.shutdown();
    await Promise.all([cm.close(), probing.close()]);
    await dropDatabase(database);
  });

  it("keeps the run's journal in the workflow's steps; the run's id is the workflow's, and its result the workflow's", async () => {
    const handle = await started(FORTY_CALLS);
    const result = await handle.getResult();
    expect(result).toMatchObject({ status: "ok", value: FORTY_CALLS_VALUE, runId: handle.workflowID });
    expect(world.effects.filter((key) => key.startsWith(`${handle.workflowID}:`))).toHaveLength(40);
    const steps = (await DBOS.listWorkflowSteps(handle.workflowID))!;
    expect(new Set(steps.map((step) => step.name))).toEqual(new Set(["cordon.journal"]));
    // A marker (nothing to read back), the header, the calls' records (a few at a time), the result.
    const outputs = steps.map(
      (step) => step.output as { records: { seq: number; text: string }[]; result?: unknown } | null,
    );
    expect(outputs[0]).toBeNull();
    expect(outputs[1]?.records.map((record) => record.seq)).toEqual([0]);
    const seqs = outputs.slice(1).flatMap((output) => output!.records.map((record) => record.seq));
    expect(seqs).toEqual(seqs.map((_, i) => i));
    const records = recordsIn(outputs.slice(1).flatMap((output) => output!.records));
    expect(records.filter((record) => record.t === "start")).toHaveLength(40);
    expect(records.filter((record) => record.t === "outcome")).toHaveLength(40);
    expect(outputs.at(-1)?.result).toEqual(result);
  });

  it("executed again from its steps (as DBOS recovers it): after the last one, the result is read back; before it, the run is replayed to its end; no call is made again, and the clock, randomness and odd text are the same", async () => {
    const handle = await started(ODD_CALLS);
    const first = (await handle.getResult()) as CodeRunResult;
    expect(first.status).toBe("ok");
    expect((first.value as { odd: string }).odd).toBe(ODD_TEXT);
    const invocations = world.invocations.length;
    const steps = (await DBOS.listWorkflowSteps(handle.workflowID))!;
    for (const startStep of [steps.length, steps.length - 1]) {
      const again = await DBOS.forkWorkflow<CodeRunResult>(handle.workflowID, startStep);
      const result = await again.getResult();
      expect(result).toMatchObject({ status: "ok", value: first.value, runId: handle.workflowID });
    }
    expect(world.invocations).toHaveLength(invocations);
  });

  it("waits on DBOS.recv for a decision, named in the workflow's pending event; a message it cannot take is logged and it waits on", async () => {
    const handle = await started(
      'try { return await tools.send({ to: "ops" }); } catch (error) { return "not sent: " + error.message; }',
    );
    let pending: DbosPendingCall[] = [];
    await vi.waitFor(async () => {
      pending = (await DBOS.getEvent<DbosPendingCall[]>(handle.workflowID, DBOS_PENDING_EVENT, 0)) ?? [];
      expect(pending).toHaveLength(1);
    });
    const [call] = pending;
    expect(call).toMatchObject({ kind: "approval", tool: "send", workflowID: handle.workflowID });
    expect(call!.topic).toBe(`cordon:${call!.id}`);
    const warn = vi.spyOn(DBOS.logger, "warn").mockImplementation(() => {});
    await DBOS.send(handle.workflowID, "yes please", call!.topic);
    await vi.waitFor(() =>
      expect(warn.mock.calls.flat().join("\n")).toMatch(/send true, false, or \{ approved/),
    );
    warn.mockRestore();
    await DBOS.send(handle.workflowID, { approved: false, reason: "not today" }, call!.topic);
    const result = (await handle.getResult()) as CodeRunResult;
    expect(result.status).toBe("ok");
    expect(result.value).toMatch(/^not sent: .*not today/);
    expect(sent).toEqual([]);
    expect(await DBOS.getEvent(handle.workflowID, DBOS_PENDING_EVENT, 0)).toEqual([]);
  });

  it("waits all the same when onPending fails, and says so in DBOS's log", async () => {
    const error = vi.spyOn(DBOS.logger, "error").mockImplementation(() => {});
    const handle = await DBOS.startWorkflow(runCodeNotifying, { workflowID: "notifying" })(
      'return await tools.send({ to: "notified" })',
    );
    await vi.waitFor(() => expect(error.mock.calls.flat().join("\n")).toMatch(/the mail server is down/));
    error.mockRestore();
    const [call] = (await DBOS.getEvent<DbosPendingCall[]>("notifying", DBOS_PENDING_EVENT, 0)) ?? [];
    await DBOS.send("notifying", true, call!.topic);
    expect(await handle.getResult()).toMatchObject({ status: "ok", value: "sent to notified" });
    expect(sent.filter((to) => to === "notified")).toHaveLength(1);
  });

  it("gives each run of a workflow that runs code twice its own id and keys", async () => {
    const handle = await DBOS.startWorkflow(twoRuns, { workflowID: "two-runs" })();
    const [first, second] = await handle.getResult();
    expect([first?.runId, second?.runId]).toEqual(["two-runs/first", "two-runs/second"]);
    expect(world.effects.filter((key) => key.startsWith("two-runs/"))).toEqual([
      "two-runs/first:0",
      "two-runs/second:0",
    ]);
    // A fork (another workflow id) goes on with the runs its steps hold, under their ids.
    const again = await DBOS.forkWorkflow<CodeRunResult[]>("two-runs", 1_000);
    expect((await again.getResult()).map((result) => [result.runId, result.value])).toEqual([
      ["two-runs/first", 2],
      ["two-runs/second", 4],
    ]);
    expect(world.effects.filter((key) => key.startsWith("two-runs/"))).toHaveLength(2);
  });

  it("a cancelled workflow's run stops at its next step, with DBOS's own error", async () => {
    const handle = await started(
      "for (let i = 0; i < 400; i++) await tools.effect({ n: i }); return 'all made'",
    );
    const made = () => world.effects.filter((key) => key.startsWith(`${handle.workflowID}:`)).length;
    await vi.waitFor(() => expect(made()).toBeGreaterThanOrEqual(3));
    await DBOS.cancelWorkflow(handle.workflowID);
    await vi.waitFor(() => expect(thrown.get(handle.workflowID)).toBeDefined());
    // Cancelled, or no longer owned (the cancel took the workflow from this execution): DBOS's error.
    expect(thrown.get(handle.workflowID)).toBeInstanceOf(DBOSErrors.DBOSError);
    expect(String(thrown.get(handle.workflowID))).toMatch(/cancelled|no longer owned/);
    expect(made()).toBeLessThan(400);
  });

  it("calls the tools outside the workflow's DBOS context, in every workflow: a tool's DBOS calls are not taken for the workflow's", async () => {
    for (const workflowID of ["probe-1", "probe-2"]) {
      const result = await (await DBOS.startWorkflow(runProbe, { workflowID })()).getResult();
      expect(result).toMatchObject({ status: "ok", value: 1 });
    }
    expect(probed).toEqual([null, null, null, null]);
  });

  it("is refused outside a workflow", async () => {
    await expect(dbosRunCode(cm, "return 1")).rejects.toThrow(UserError);
    await expect(dbosRunCode(cm, "return 1")).rejects.toThrow(/inside a DBOS workflow/);
  });
});
