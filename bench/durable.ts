// The cost of a journaled call from code, on the in-process isolate, with each store of durable runs:
// no journal, memoryJournal(), fileJournal(dir) (fdatasync per append, under the system's temporary
// folder) and postgresJournal({ pool }) (the server `make postgres` starts, or CORDON_POSTGRES_URL; a
// table of the benchmark's own, dropped after it). Three kinds of run:
// - sequential: N calls of a cheap synchronous tool, each awaited (N = 0 and 200); the per-call figure
//   is (run with N calls - run with none) / N, and what the journal adds is that minus the same without;
// - fan-out: one Promise.all of 100 calls of that tool, all at once;
// - fan-out of calls that wait: one Promise.all of 100 calls of a tool that waits 10 ms (an I/O call's
//   shape), 16 at once (the default limit).
// The stores are timed in turn within each round (so drift reaches all alike); medians of 15 rounds,
// each fan-out set against the same run without a journal. Writes (appends and ends) per run are
// counted at the store, to show group commit at work, and a bare durable INSERT on the same server is
// timed in the same rounds: what one commit costs on this disk at the time. Everything twice: with the
// machine idle, and with the other core kept awake by a spinning worker thread (as bench/codemode.ts;
// the thread also takes a core from Postgres, on a 2-core machine). Every measured run is checked for its
// status and value, and a failed one stops the benchmark. Run: make bench (the built package; it
// starts Postgres first), or alone after `npm run build` and `make postgres`:
// TSX_TSCONFIG_PATH=tsconfig.build.json node --no-node-snapshot --import tsx bench/durable.ts

import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CodeMode, codeMode, tool } from "cordon";
import { fileJournal, memoryJournal, type RunJournal } from "cordon/durable";
import { isolateEnvironment } from "cordon/in-process";
import { postgresJournal } from "cordon/postgres";
import pg from "pg";
import { z } from "zod";
import { expectRun, keepOtherCoreAwake } from "./check.js";
import { add, FAN_OUT, sequential } from "./journaled-code.js";
import { fmt, median } from "./stats.js";

const wait = tool({
  name: "wait",
  description: "Waits 10 ms, then answers its number.",
  input: z.object({ n: z.number() }),
  run: ({ n }) => new Promise<number>((resolve) => setTimeout(() => resolve(n), 10)),
});

const N = 200;
const ROUNDS = 15;
const WAITING_CONCURRENCY = 16;
const RUNS = {
  none: { code: "return 0", value: 0 },
  sequential: {
    code: sequential(N),
    value: N,
  },
  fanOut: {
    code: FAN_OUT,
    value: 100,
  },
  waiting: {
    code: "return (await Promise.all(Array.from({ length: 100 }, (_, n) => tools.wait({ n })))).reduce((a, b) => a + b, 0)",
    value: 4_950,
  },
} as const;
type Kind = keyof typeof RUNS;

const URL = process.env.CORDON_POSTGRES_URL ?? "postgres://cordon:cordon@127.0.0.1:54329/cordon";
const TABLE = `cordon_bench_${randomUUID().replaceAll("-", "").slice(0, 12)}`;

/** A store that counts the appends (and ends) it was given and the records in them. */
function counted(store: RunJournal): { store: RunJournal; writes: number; records: number } {
  const counts = { writes: 0, records: 0 };
  const count = (records: readonly unknown[]) => {
    counts.writes++;
    counts.records += records.length;
  };
  return Object.assign(counts, {
    store: {
      ...store,
      append: (runId, records, owner) => {
        count(records);
        return store.append(runId, records, owner);
      },
      end: (runId, records, owner) => {
        count(records);
        return store.end(runId, records, owner);
      },
    } satisfies RunJournal,
  });
}

interface Subject {
  name: string;
  /** Two code modes: the 100 add calls run all at once in one, the waiting calls 16 at once in the other. */
  cm: CodeMode;
  waitingCm: CodeMode;
  counter?: ReturnType<typeof counted>;
  times: Record<Kind, number[]>;
  /** Writes (appends and ends) per run of each kind, from the last round. */
  writes: Partial<Record<Kind, { writes: number; records: number }>>;
}

function subject(name: string, journal: RunJournal | undefined): Subject {
  const counter = journal ? counted(journal) : undefined;
  const options = {
    environment: isolateEnvironment(),
    pause: { key: "a benchmark secret, 32 bytes long" },
    ...(counter ? { journal: counter.store } : {}),
  };
  return {
    name,
    cm: codeMode({
      tools: [add, wait],
      limits: { maxToolCalls: 1_000, maxConcurrentCalls: 100 },
      ...options,
    }),
    waitingCm: codeMode({
      tools: [add, wait],
      limits: { maxToolCalls: 1_000, maxConcurrentCalls: WAITING_CONCURRENCY },
      ...options,
    }),
    ...(counter ? { counter } : {}),
    times: { none: [], sequential: [], fanOut: [], waiting: [] },
    writes: {},
  };
}

async function timed(each: Subject, kind: Kind): Promise<number> {
  const { code, value } = RUNS[kind];
  const before = each.counter ? { writes: each.counter.writes, records: each.counter.records } : undefined;
  const started = performance.now();
  const result = await (kind === "waiting" ? each.waitingCm : each.cm).run(code);
  const took = performance.now() - started;
  expectRun(result, value, `${each.name}, ${kind}`);
  if (each.counter && before) {
    each.writes[kind] = {
      writes: each.counter.writes - before.writes,
      records: each.counter.records - before.records,
    };
  }
  return took;
}

/**
 * Bare durable INSERTs, timed in the same rounds: what one commit costs on this disk at the time. The
 * mean too, as the per-call figure is one (a run's time over its calls), and commits have long tails.
 */
const bareCommits: number[] = [];
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** Runs the rounds, each kind of run on each store in turn, and prints the figures. */
async function measure(subjects: Subject[], bareCommit: () => Promise<unknown>, state: string) {
  bareCommits.length = 0;
  for (const each of subjects) {
    each.times = { none: [], sequential: [], fanOut: [], waiting: [] };
    for (const kind of Object.keys(RUNS) as Kind[]) for (let i = 0; i < 2; i++) await timed(each, kind);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of Object.keys(RUNS) as Kind[]) {
      for (const each of subjects) each.times[kind].push(await timed(each, kind));
    }
    for (let i = 0; i < 10; i++) {
      const started = performance.now();
      await bareCommit();
      bareCommits.push(performance.now() - started);
    }
  }
  console.log(
    `${state}; medians of ${ROUNDS} rounds (a bare durable INSERT on the same Postgres, timed in the same rounds: median ${fmt(median(bareCommits) * 1000, "µs")}, mean ${fmt(mean(bareCommits) * 1000, "µs")})`,
  );
  const perCall = (each: Subject) => (median(each.times.sequential) - median(each.times.none)) / N;
  const base = subjects[0]!;
  for (const each of subjects) {
    const call = perCall(each);
    const ratio = (kind: Kind) => (median(each.times[kind]) / median(base.times[kind])).toFixed(2);
    const writes = (kind: Kind) => {
      const counted = each.writes[kind];
      return counted ? `; ${counted.writes} writes` : "";
    };
    console.log(
      `  ${each.name.padEnd(15)} sequential call ${fmt(call * 1000, "µs")} (+${fmt((call - perCall(base)) * 1000, "µs")}${writes("sequential")} for ${N} calls)` +
        `  fan-out of 100: ${fmt(median(each.times.fanOut), "ms")} (${ratio("fanOut")}x${writes("fanOut")})` +
        `  100 x 10 ms, ${WAITING_CONCURRENCY} at once: ${fmt(median(each.times.waiting), "ms")} (${ratio("waiting")}x${writes("waiting")})`,
    );
  }
}

const folder = await mkdtemp(join(tmpdir(), "cordon-bench-durable-"));
const pool = new pg.Pool({ connectionString: URL, max: 10 });
pool.on("error", () => {});
const subjects = [
  subject("no journal", undefined),
  subject("memoryJournal", memoryJournal()),
  subject("fileJournal", fileJournal(folder)),
  subject("postgresJournal", postgresJournal({ pool, table: TABLE })),
];
try {
  const version = (await pool.query("SHOW server_version")).rows[0].server_version;
  await pool.query(`CREATE TABLE "${TABLE}_bare" (id serial PRIMARY KEY, body text NOT NULL)`);
  const body = "x".repeat(300);
  const bareCommit = () => pool.query(`INSERT INTO "${TABLE}_bare" (body) VALUES ($1)`, [body]);
  console.log(
    `durable runs: what a journal adds to calls from code (in-process isolate; Postgres ${version}, pool of 10)`,
  );
  await measure(subjects, bareCommit, "idle machine: cores sleep between hops");
  const awake = keepOtherCoreAwake();
  try {
    await measure(subjects, bareCommit, "another core kept awake by a spinning worker thread");
  } finally {
    await awake.stop();
  }
} finally {
  for (const each of subjects) await Promise.all([each.cm.close(), each.waitingCm.close()]);
  await pool.query(`DROP TABLE IF EXISTS "${TABLE}_records", "${TABLE}", "${TABLE}_bare"`).catch(() => {});
  await pool.end();
  await rm(folder, { recursive: true, force: true });
}
