/**
 * cordon/dbos across real processes on the Postgres server `make postgres` starts: a DBOS worker runs a
 * workflow whose code makes 40 effectful calls and is killed with SIGKILL halfway; a second worker, with
 * an executor ID of its own, recovers the dead executor's workflow; every effect happens once and the
 * run's value is right. Also: the call in flight not idempotent (the recovery waits for a person, who
 * answers with DBOSClient.send), and an approval answered after the worker waiting for it was killed.
 * The workers' system database is one of this suite's own, dropped after it.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DBOSClient } from "@dbos-inc/dbos-sdk";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { DbosPendingCall } from "../../src/durable/dbos.js";
import { APPROVAL_CALLS_VALUE, FORTY_CALLS_VALUE } from "./helpers.js";
import { keys, killWhen, linesOf, range } from "./kill-and-recover.js";
import {
  databaseUrl,
  dropDatabase,
  freshDatabase,
  POSTGRES_SUITES,
  requirePostgres,
} from "./postgres-server.js";

const WORKER = join(import.meta.dirname, "fixtures", "dbos-worker.ts");
const root = mkdtempSync(join(tmpdir(), "cordon-dbos-processes-"));
const database = freshDatabase();
const url = databaseUrl(database);
let client: DBOSClient | undefined;
let made = 0;

afterAll(async () => {
  await client?.destroy();
  rmSync(root, { recursive: true, force: true });
  if (POSTGRES_SUITES) await dropDatabase(database);
});

/** What a worker printed (`@ {json}` lines), and how it ended. */
interface Worker {
  child: ChildProcess;
  /** Each `pending` list it printed, as it printed them. */
  pending: DbosPendingCall[][];
  /** The workflow's result (rejects when the worker failed; never settles after SIGKILL). */
  result: Promise<Record<string, unknown>>;
}

interface Case {
  effects: string;
  workflowID: string;
  /** Executor IDs of this case's two workers. */
  first: string;
  second: string;
}

function newCase(): Case {
  const n = ++made;
  return {
    effects: join(root, `effects-${n}.txt`),
    workflowID: `wf-${n}`,
    first: `a-${n}`,
    second: `b-${n}`,
  };
}

function worker(at: Case, mode: "start" | "recover", env: Record<string, string> = {}): Worker {
  const executor = mode === "start" ? at.first : at.second;
  const args = [url, executor, at.effects, mode, at.workflowID, ...(mode === "recover" ? [at.first] : [])];
  const child = spawn(process.execPath, ["--no-node-snapshot", "--import", "tsx", WORKER, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  const pending: DbosPendingCall[][] = [];
  let result: unknown;
  let out = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    out += chunk.toString();
    const lines = out.split("\n");
    out = lines.pop()!;
    for (const line of lines.filter((each) => each.startsWith("@ "))) {
      const said = JSON.parse(line.slice(2)) as { pending?: DbosPendingCall[]; result?: unknown };
      if (said.pending) pending.push(said.pending);
      if ("result" in said) result = said.result;
    }
  });
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return {
    child,
    pending,
    result: new Promise((resolve, reject) => {
      child.on("exit", (code, signal) => {
        if (signal === "SIGKILL") return;
        if (code !== 0 || result === undefined) reject(new Error(`worker ${mode} exited ${code}: ${stderr}`));
        else resolve(result as Record<string, unknown>);
      });
    }),
  };
}

describe.runIf(POSTGRES_SUITES)("a DBOS workflow running code, its worker killed with SIGKILL", () => {
  beforeAll(async () => {
    requirePostgres();
    client = await DBOSClient.create({ systemDatabaseUrl: url });
  });

  it("is recovered by a worker of another executor ID: every effect once (the idempotent calls in flight ran again with their key), and the run's value", async () => {
    const at = newCase();
    const first = worker(at, "start", { IDEMPOTENT: "1" });
    await killWhen(first.child, () => expect(linesOf(at.effects).length).toBeGreaterThanOrEqual(17));
    expect(linesOf(at.effects).length).toBeLessThan(40);
    const recovered = await worker(at, "recover", { IDEMPOTENT: "1" }).result;
    expect(recovered).toMatchObject({ status: "ok", value: FORTY_CALLS_VALUE, runId: at.workflowID });
    expect(linesOf(at.effects).sort()).toEqual(keys(at.workflowID, range(0, 40)));
    // Only calls whose outcome the journal did not have ran twice.
    const calls = linesOf(`${at.effects}.calls`);
    expect(new Set(calls).size).toBe(40);
    expect(calls.length - 40).toBeLessThanOrEqual(20);
    expect(await client!.getWorkflow(at.workflowID)).toMatchObject({
      status: "SUCCESS",
      executorId: at.second,
    });
  }, 180_000);

  it("with a call in flight that is not idempotent, the recovery waits as unknown-outcome; the decisions sent with DBOSClient.send finish it, each effect once", async () => {
    const at = newCase();
    // Each effect takes 40 ms, and the worker dies while one has been invoked and not made.
    const first = worker(at, "start", { EFFECT_MS: "40" });
    await killWhen(first.child, () => {
      expect(linesOf(at.effects).length).toBeGreaterThanOrEqual(15);
      expect(linesOf(`${at.effects}.calls`).length).toBeGreaterThan(linesOf(at.effects).length);
    });
    const second = worker(at, "recover");
    await vi.waitFor(() => expect(second.pending).toHaveLength(1), { timeout: 60_000 });
    const pending = second.pending[0]! as (DbosPendingCall & { args: { n: number } })[];
    expect(pending.length).toBeGreaterThan(0);
    expect(pending.every((call) => call.kind === "unknown-outcome")).toBe(true);
    expect(await client!.getEvent(at.workflowID, "cordon.pending")).toEqual(pending);
    // The operator looks each key up in the service: done ones get their result, the others run again.
    const effects = linesOf(at.effects);
    for (const call of pending) {
      const done = effects.includes(call.idempotencyKey!);
      await client!.send(call.workflowID, done ? { result: call.args.n * 2 } : { rerun: true }, call.topic);
    }
    expect(await second.result).toMatchObject({ status: "ok", value: FORTY_CALLS_VALUE });
    expect(linesOf(at.effects).sort()).toEqual(keys(at.workflowID, range(0, 40)));
  }, 180_000);

  it("an approval answered with DBOSClient.send after the worker waiting for it was killed: the approved call runs once", async () => {
    const at = newCase();
    const first = worker(at, "start", { CODE: "approval", IDEMPOTENT: "1" });
    // Killed once it told of the wait and that step is checkpointed: it waits on DBOS.recv.
    await vi.waitFor(() => expect(first.pending).toHaveLength(1), { timeout: 60_000 });
    await killWhen(first.child, async () => {
      const steps = await client!.listWorkflowSteps(at.workflowID);
      expect(steps?.map((step) => step.name)).toContain("cordon.onPending");
    });
    const [call] = first.pending[0]!;
    expect(call).toMatchObject({
      kind: "approval",
      tool: "send",
      args: { to: "ops" },
      workflowID: at.workflowID,
    });
    await client!.send(at.workflowID, { approved: true }, call!.topic);
    const second = worker(at, "recover", { CODE: "approval", IDEMPOTENT: "1" });
    expect(await second.result).toMatchObject({ status: "ok", value: APPROVAL_CALLS_VALUE });
    // The second worker read the wait back from the workflow: it told nobody again.
    expect(second.pending).toEqual([]);
    const effects = linesOf(at.effects);
    expect(effects.filter((line) => line.startsWith("sent "))).toEqual([`sent ops ${at.workflowID}:5`]);
    expect(effects.filter((line) => !line.startsWith("sent ")).sort()).toEqual(
      keys(at.workflowID, [...range(0, 5), ...range(6, 21)]),
    );
    expect(await client!.getEvent(at.workflowID, "cordon.pending")).toEqual([]);
  }, 180_000);
});
