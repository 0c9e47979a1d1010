// The journal stores' cost per write, on this machine's disk: for the memory store and the file store,
// the latency of an append of 1 record (sequential, as a run's calls are; median and 90th percentile of
// 500), of one append of 100 records (a fan-out's records arriving while a write is under way: group
// commit makes them one append; median of 100), and of a renewal and a claim, and the time to read a run
// of 1,000 records back and to list the incomplete runs among 203 (with a new handle, as a recovering
// process would). Records are 300 characters, about a sealed small result. For the file store, the
// floor: the disk's own write of a line and fdatasync, with nothing else. Every write is checked to have
// returned true, and a failed one stops the benchmark. The file store's folder is under the system's
// temporary folder unless CORDON_BENCH_JOURNAL_DIR names one (put it on the disk the journal will use).
// Run: npx tsx bench/journal-stores.ts

import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileJournal } from "../src/codemode/durable/file-journal.js";
import { memoryJournal } from "../src/codemode/durable/memory-journal.js";
import type { JournalRecord, RunJournal } from "../src/codemode/durable/run-journal.js";
import { fmt, median, sample } from "./stats.js";

const TEXT = "x".repeat(300);
const records = (from: number, count: number): JournalRecord[] =>
  Array.from({ length: count }, (_, i) => ({ seq: from + i, text: TEXT }));
const lease = (owner: string, until = Date.now() + 600_000) => ({ owner, until });

/** Throws unless a store's write returned true. */
function expectTrue(done: boolean, what: string): void {
  if (!done) throw new Error(`benchmark "${what}": a measured write was refused`);
}

/** The value at fraction `p` of sorted `values`. */
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length * p)]!;

async function measure(name: string, open: () => RunJournal): Promise<void> {
  const journal = open();
  const stamp = Date.now();
  const single = `single-${stamp}`;
  expectTrue(await journal.create(single, records(0, 1)[0]!, lease("a")), "create");
  let seq = 1;
  for (let i = 0; i < 20; i++) expectTrue(await journal.append(single, records(seq++, 1), "a"), "warm-up");
  const one = await sample(500, async () =>
    expectTrue(await journal.append(single, records(seq++, 1), "a"), "1 record"),
  );

  const batch = `batch-${stamp}`;
  expectTrue(await journal.create(batch, records(0, 1)[0]!, lease("a")), "create");
  let next = 1;
  const hundred = await sample(100, async () => {
    expectTrue(await journal.append(batch, records(next, 100), "a"), "100 records");
    next += 100;
  });

  const renewals = await sample(100, async () =>
    expectTrue(await journal.renew(single, lease("a")), "renew"),
  );
  const claims: number[] = [];
  for (let i = 0; i < 100; i++) {
    const runId = `claim-${stamp}-${i}`;
    expectTrue(await journal.create(runId, records(0, 1)[0]!, lease("dead", 0)), "create");
    claims.push(
      ...(await sample(1, async () =>
        expectTrue(await journal.claim(runId, lease("b"), Date.now()), "claim"),
      )),
    );
  }

  const reader = `read-${stamp}`;
  expectTrue(await journal.create(reader, records(0, 1)[0]!, lease("a")), "create");
  for (let from = 1; from < 1_000; from += 111) {
    expectTrue(await journal.append(reader, records(from, Math.min(111, 1_000 - from)), "a"), "fill");
  }
  const reads = await sample(20, async () => {
    if ((await journal.read(reader))?.records.length !== 1_000) throw new Error("a read lost records");
  });
  for (let i = 0; i < 100; i++) {
    const runId = `idle-${stamp}-${i}`;
    expectTrue(await journal.create(runId, records(0, 1)[0]!, lease("gone", 1)), "create");
    expectTrue(await journal.append(runId, records(1, 10), "gone"), "fill");
  }
  const listings = await sample(10, async () => {
    if ((await open().incomplete(Date.now(), 1_000)).length !== 100) throw new Error("a listing lost runs");
  });

  console.log(`${name} store`);
  console.log(
    `  append, 1 record:       ${fmt(median(one), "µs")} median, ${fmt(percentile(one, 0.9), "µs")} p90 (500 sequential)`,
  );
  console.log(`  append, 100 records:    ${fmt(median(hundred), "µs")} median (one append each, 100 times)`);
  console.log(`  renew:                  ${fmt(median(renewals), "µs")} median`);
  console.log(`  claim (expired lease):  ${fmt(median(claims), "µs")} median`);
  console.log(`  read a run of 1,000:    ${fmt(median(reads) / 1_000, "ms")} median`);
  console.log(
    `  incomplete of 203 runs: ${fmt(median(listings) / 1_000, "ms")} median (100 expired; a new handle each time)`,
  );
}

const memory = memoryJournal();
await measure("memory", () => memory);
const folder = await mkdtemp(join(process.env.CORDON_BENCH_JOURNAL_DIR ?? tmpdir(), "cordon-journal-bench-"));
try {
  await measure("file", () => fileJournal(folder));
  const file = await open(join(folder, "floor"), "a", 0o600);
  const line = `\n${TEXT}\n`;
  const floor = await sample(500, async () => {
    await file.write(line);
    await file.datasync();
  });
  await file.close();
  console.log(
    `  (the disk: write + fdatasync of a line: ${fmt(median(floor), "µs")} median, 500 sequential)`,
  );
} finally {
  await rm(folder, { recursive: true, force: true });
}
