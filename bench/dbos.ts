// The cost of a durable run inside a DBOS workflow (cordon/dbos), on the Postgres server `make postgres`
// starts (or CORDON_POSTGRES_URL), with a system database of its own (dropped after), on the in-process
// isolate: in each round, one workflow runs code with dbosRunCode (its journal in the workflow's steps)
// and one runs the same code with cm.run and no journal, timed inside the workflow (the workflow's own
// start and end are not counted):
// - sequential: runs of N calls of a cheap tool (N = 0 and 50): per call, (run with N - run with 0) / N;
// - fan-out: one Promise.all of 100 calls, and its ratio to the same run without a journal.
// Beside them, one bare DBOS step that returns a value (the floor of any checkpoint), and a recovery of a
// run of N calls that had ended (DBOS's fork of its workflow with every step: the run is read back from
// its steps, and its result with it). Medians of the rounds; every run is checked (status ok, the right
// value) and a failed one stops the benchmark.
// Run: make bench-dbos (it measures the built package).

import { DBOS } from "@dbos-inc/dbos-sdk";
import { dbosRunCode } from "cordon/dbos";
import pg from "pg";
import { benchCodeMode, FAN_OUT, perCall, sequential } from "./journaled-code.js";
import { fmt, median } from "./stats.js";

const SERVER = process.env.CORDON_POSTGRES_URL ?? "postgres://cordon:cordon@127.0.0.1:54329/cordon";
const DATABASE = `cordon_bench_dbos_${process.pid}`;
const ROUNDS = 9;
const N = 50;
const STEPS = 200;

const cm = benchCodeMode();

/** Runs `code` in the workflow, journaled in its steps or not; gives how long the run took, in ms. */
const timedRun = DBOS.registerWorkflow(
  async (code: string, journaled: boolean, expected: number) => {
    const started = performance.now();
    const result = journaled ? await dbosRunCode(cm, code) : await cm.run(code);
    const took = performance.now() - started;
    if (result.status !== "ok" || result.value !== expected) {
      throw new Error(`benchmark run failed: ${JSON.stringify(result.error ?? result.value)}`);
    }
    return took;
  },
  { name: "cordon-bench-run" },
);

/** `STEPS` bare steps in a row, each returning a small value; gives the time per step, in ms. */
const bareSteps = DBOS.registerWorkflow(
  async () => {
    const started = performance.now();
    for (let i = 0; i < STEPS; i++) {
      const value = await DBOS.runStep(async () => ({ i }), { name: "bench.step" });
      if (value.i !== i) throw new Error("a step gave back another value");
    }
    return (performance.now() - started) / STEPS;
  },
  { name: "cordon-bench-steps" },
);

const run = async (code: string, journaled: boolean, expected: number) =>
  (await DBOS.startWorkflow(timedRun)(code, journaled, expected)).getResult();

const url = new URL(SERVER);
url.pathname = `/${DATABASE}`;
DBOS.setConfig({ name: "cordon-bench", systemDatabaseUrl: url.toString(), logLevel: "error" });
await DBOS.launch();
try {
  for (let i = 0; i < 2; i++) {
    await run(sequential(N), true, N);
    await run(FAN_OUT, true, 100);
  }
  const rows = { none: { zero: [], many: [], fan: [] }, dbos: { zero: [], many: [], fan: [] } } as Record<
    "none" | "dbos",
    Record<"zero" | "many" | "fan", number[]>
  >;
  for (let i = 0; i < ROUNDS; i++) {
    for (const [name, journaled] of [
      ["none", false],
      ["dbos", true],
    ] as const) {
      rows[name].zero.push(await run(sequential(0), journaled, 0));
      rows[name].many.push(await run(sequential(N), journaled, N));
      rows[name].fan.push(await run(FAN_OUT, journaled, 100));
    }
  }
  const readBack: number[] = [];
  let stepCount = 0;
  for (let i = 0; i < 3; i++) {
    const handle = await DBOS.startWorkflow(timedRun)(sequential(N), true, N);
    await handle.getResult();
    stepCount = (await DBOS.listWorkflowSteps(handle.workflowID))!.length;
    readBack.push(await (await DBOS.forkWorkflow<number>(handle.workflowID, stepCount)).getResult());
  }
  const steps: number[] = [];
  for (let i = 0; i < 3; i++) steps.push(await (await DBOS.startWorkflow(bareSteps)()).getResult());
  const callOf = (name: "none" | "dbos") => perCall(rows[name].zero, rows[name].many, N);
  const base = { perCall: callOf("none"), fan: median(rows.none.fan) };
  for (const name of ["none", "dbos"] as const) {
    const fan = median(rows[name].fan);
    console.log(
      `${(name === "none" ? "no journal" : "dbosRunCode").padEnd(12)} run of 0 calls ${fmt(median(rows[name].zero), "ms")}  ` +
        `sequential call ${fmt(callOf(name), "ms")} (+${fmt(callOf(name) - base.perCall, "ms")})  ` +
        `fan-out of 100 ${fmt(fan, "ms")} (${(fan / base.fan).toFixed(2)}x)`,
    );
  }
  console.log(`bare DBOS step ${fmt(median(steps), "ms")} (median of 3 workflows of ${STEPS} steps)`);
  console.log(
    `recovery of an ended run of ${N} calls: ${stepCount} steps read back in ${fmt(median(readBack), "ms")} (${fmt(median(readBack) / stepCount, "ms")} a step)`,
  );
} finally {
  await DBOS.shutdown();
  await cm.close();
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${DATABASE}" WITH (FORCE)`);
  await admin.end();
}
