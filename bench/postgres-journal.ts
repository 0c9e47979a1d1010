// The Postgres journal's cost per write, on the server `make postgres` starts (or CORDON_POSTGRES_URL):
// - sequential: one run appends one record at a time, each awaited (the median of 500): the time a run's
//   call waits for its record (aim: at most 2 ms added per sequential call);
// - fan-out: 100 runs append one record each at once, on a pool of 20 connections (the commits of
//   concurrent transactions share WAL flushes): the time until all 100 are durable, and appends per second;
// - batch: one append of 100 records (what group commit writes when 100 calls end during one write).
// Each beside the same write without the journal's rules, timed in turn with it: a bare INSERT of the
// record into a table of one text column, committed (and the floor of any statement: SELECT 1).
// Records are 300 characters, about a sealed call record's size. Every append is checked to be accepted,
// and a refused one stops the benchmark. Run: make bench-postgres (it measures the built package).

import { randomUUID } from "node:crypto";
import { postgresJournal } from "cordon/postgres";
import pg from "pg";
import { fmt, median, sample } from "./stats.js";

const URL = process.env.CORDON_POSTGRES_URL ?? "postgres://cordon:cordon@127.0.0.1:54329/cordon";
const TABLE = `cordon_bench_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
const TEXT = JSON.stringify({ kind: "outcome", call: 7, value: "x".repeat(240), seal: "0".repeat(20) });
const ROUNDS = 500;
const FAN_OUT = 100;
const FAN_OUT_ROUNDS = 20;
const BATCH = 100;
const BATCH_ROUNDS = 100;

const pool = new pg.Pool({ connectionString: URL, max: 20 });
pool.on("error", () => {});
const journal = postgresJournal({ pool, table: TABLE });
const lease = () => ({ owner: "bench", until: Date.now() + 3_600_000 });

/** Throws unless the journal accepted the write. */
function accepted(ok: boolean, what: string): void {
  if (!ok) throw new Error(`benchmark "${what}": the journal refused a write it should have accepted`);
}

/** A new run with its header; gives the run id and the next seq to append. */
async function newRun(): Promise<{ runId: string; next: number }> {
  const runId = `run-${randomUUID()}`;
  accepted(await journal.create(runId, { seq: 0, text: TEXT }, lease()), "create");
  return { runId, next: 1 };
}

try {
  await newRun(); // makes the tables and warms the pool
  await pool.query(`CREATE TABLE "${TABLE}_bare" (id serial PRIMARY KEY, body text NOT NULL)`);
  const bareInsert = () => pool.query(`INSERT INTO "${TABLE}_bare" (body) VALUES ($1)`, [TEXT]);

  // Sequential, each kind of statement in turn, so that all three see the machine in the same state.
  const run = await newRun();
  const floor: number[] = [];
  const bare: number[] = [];
  const sequential: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    floor.push(...(await sample(1, () => pool.query("SELECT 1"))));
    bare.push(...(await sample(1, bareInsert)));
    sequential.push(
      ...(await sample(1, async () => {
        accepted(await journal.append(run.runId, [{ seq: run.next, text: TEXT }], "bench"), "sequential");
        run.next++;
      })),
    );
  }

  // Fan-out: 100 runs, one append each, all at once; beside 100 bare INSERTs at once.
  const fanOut: number[] = [];
  const bareFanOut: number[] = [];
  for (let round = 0; round < FAN_OUT_ROUNDS; round++) {
    const runs = await Promise.all(Array.from({ length: FAN_OUT }, newRun));
    fanOut.push(
      ...(await sample(1, async () => {
        const answers = await Promise.all(
          runs.map((each) => journal.append(each.runId, [{ seq: 1, text: TEXT }], "bench")),
        );
        for (const answer of answers) accepted(answer, "fan-out");
      })),
    );
    bareFanOut.push(...(await sample(1, () => Promise.all(Array.from({ length: FAN_OUT }, bareInsert)))));
  }

  // Batch: 100 records in one append; beside one INSERT of 100 rows.
  const batchRun = await newRun();
  const batch: number[] = [];
  const bareBatch: number[] = [];
  const texts = Array.from({ length: BATCH }, () => TEXT);
  for (let round = 0; round < BATCH_ROUNDS; round++) {
    batch.push(
      ...(await sample(1, async () => {
        const records = texts.map((text, i) => ({ seq: batchRun.next + i, text }));
        accepted(await journal.append(batchRun.runId, records, "bench"), "batch");
        batchRun.next += BATCH;
      })),
    );
    bareBatch.push(
      ...(await sample(1, () =>
        pool.query(`INSERT INTO "${TABLE}_bare" (body) SELECT unnest($1::text[])`, [texts]),
      )),
    );
  }

  const version = (await pool.query("SHOW server_version")).rows[0].server_version;
  const p90 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.9)]!;
  const [one, oneBare, wave, waveBare, many, manyBare] = [
    sequential,
    bare,
    fanOut,
    bareFanOut,
    batch,
    bareBatch,
  ].map(median);
  console.log(`Postgres journal (Postgres ${version}), ${TEXT.length}-character records; medians`);
  console.log(`  SELECT 1 on the pool (the floor of any statement): ${fmt(median(floor), "µs")}`);
  console.log(
    `  1 record appended, sequential (${ROUNDS} rounds):    ${fmt(one, "µs")} (p90 ${fmt(p90(sequential), "µs")}); a bare durable INSERT ${fmt(oneBare, "µs")} (p90 ${fmt(p90(bare), "µs")}): ${(one / oneBare).toFixed(2)}x`,
  );
  console.log(
    `  ${FAN_OUT} appends from ${FAN_OUT} runs at once (${FAN_OUT_ROUNDS} rounds): ${fmt(wave / 1_000, "ms")} in all, ${Math.round((FAN_OUT * 1_000_000) / wave).toLocaleString("en-US")} appends/s; ${FAN_OUT} bare INSERTs at once ${fmt(waveBare / 1_000, "ms")}: ${(wave / waveBare).toFixed(2)}x`,
  );
  console.log(
    `  ${BATCH} records in one append (${BATCH_ROUNDS} rounds):      ${fmt(many / 1_000, "ms")}, ${fmt(many / BATCH, "µs")} a record; one INSERT of ${BATCH} rows ${fmt(manyBare / 1_000, "ms")}: ${(many / manyBare).toFixed(2)}x`,
  );
} finally {
  await pool.query(`DROP TABLE IF EXISTS "${TABLE}_bare", "${TABLE}_records", "${TABLE}"`);
  await pool.end();
}
