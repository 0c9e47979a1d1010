// What recorded calls cost a paused or durable run: N sequential `add` calls, then a gated call that
// pauses the run (approval "pause"): the checkpoint's size, and the time of a resume with the approval
// (a fresh sandbox replays the N recorded calls, then runs the approved call); and the same N calls in a
// durable run (memoryJournal): the journal's size as stored (its records' JSON). In-process. Every run is
// checked: paused with exactly the gated call pending, resumed with 2N, the durable run ended with N.

import { type CodeRunResult, codeMode, tool } from "cordon";
import { memoryJournal, type RunJournal } from "cordon/durable";
import { isolateEnvironment } from "cordon/in-process";
import { z } from "zod";
import { expectRun } from "../../check.js";
import { median } from "../../stats.js";
import { findBend } from "../bend.js";
import { describeBend } from "../cause.js";
import { type Curve, cell, type Sample, sizes } from "../curve.js";
import { startProbe } from "../probe.js";
import { add, sequential } from "./tools.js";

const double = tool({
  name: "double",
  description: "Doubles a number, once approved.",
  input: z.object({ x: z.number() }),
  needsApproval: true,
  run: ({ x }) => 2 * x,
});
const KEY = "the scale benchmark's key, 32 bytes or more";
const gated = (n: number) =>
  `let s = 0; for (let i = 0; i < ${n}; i++) s = await tools.add({ a: s, b: 1 }); return await tools.double({ x: s });`;
const resumesFor = (n: number) => (n >= 10_000 ? 3 : n >= 1_000 ? 5 : 15);

function expectPaused(result: CodeRunResult, n: number): { checkpoint: string; id: string } {
  const [pending, ...more] = result.pending ?? [];
  if (result.status === "paused" && typeof result.checkpoint === "string" && more.length === 0) {
    if (pending?.tool === "double" && (pending.args as { x?: unknown }).x === n) {
      return { checkpoint: result.checkpoint, id: pending.id };
    }
  }
  throw new Error(
    `benchmark "journal, ${n} recorded calls": the run did not pause at double({ x: ${n} }) (status ${result.status}; ${JSON.stringify(result.error ?? result.pending ?? result.value).slice(0, 300)})`,
  );
}

/** A memoryJournal that remembers the last run it created, so that its records can be read back. */
function readableJournal(): { store: RunJournal; lastRun: () => string | undefined } {
  const store = memoryJournal();
  let last: string | undefined;
  return {
    store: {
      ...store,
      create: (runId, header, lease) => {
        last = runId;
        return store.create(runId, header, lease);
      },
    },
    lastRun: () => last,
  };
}

/** The journal curve: checkpoint and journal size and resume time against recorded calls. */
export async function journalCurve(): Promise<Curve> {
  const levels = sizes("journal", [1, 10, 100, 1_000, 10_000], [1, 10, 100, 1_000]);
  const limits = { maxToolCalls: Math.max(...levels) + 1 };
  const paused = codeMode({
    tools: [add, double],
    environment: isolateEnvironment(),
    approval: "pause",
    pause: { key: KEY },
    limits,
  });
  const journal = readableJournal();
  const durable = codeMode({
    tools: [add],
    environment: isolateEnvironment(),
    pause: { key: KEY },
    journal: journal.store,
    limits,
  });
  const checkpointKb: Sample[] = [];
  const journalKb: Sample[] = [];
  const resumeMs: Sample[] = [];
  const rows: string[][] = [];
  try {
    for (const n of levels) {
      process.stderr.write(`bench-scale: ${n} recorded calls\n`);
      const { checkpoint, id } = expectPaused(await paused.run(gated(n)), n);
      const resume = async () =>
        expectRun(
          await paused.resume(checkpoint, { decisions: { [id]: true }, fork: true }),
          2 * n,
          `resume of ${n} recorded calls`,
        );
      await resume();
      const probe = startProbe();
      const times: number[] = [];
      for (let i = 0; i < resumesFor(n); i++) {
        const started = performance.now();
        await resume();
        times.push(performance.now() - started);
      }
      const signals = probe.stop();
      expectRun(await durable.run(sequential(n)), n, `durable run of ${n} calls`);
      const stored = await journal.store.read(journal.lastRun() ?? "");
      if (!stored?.ended)
        throw new Error(`benchmark "journal, ${n} calls": the durable run's journal was not ended`);
      const journalSize = JSON.stringify(stored.records).length / 1024;
      checkpointKb.push({ x: n, y: checkpoint.length / 1024, signals });
      journalKb.push({ x: n, y: journalSize, signals });
      resumeMs.push({ x: n, y: median(times), signals });
      rows.push([
        n.toLocaleString("en-US"),
        cell(checkpoint.length / 1024, 1),
        cell(journalSize, 1),
        cell(median(times), 2),
        cell((median(times) * 1000) / n, 1),
      ]);
    }
  } finally {
    await paused.close();
    await durable.close();
  }
  const range = { from: levels[0]!, to: levels.at(-1)! };
  const signalsAt = (x: number) => resumeMs.find((s) => s.x === x)?.signals;
  const per = { per: "recorded calls" };
  return {
    id: "journal",
    title: "checkpoint and journal size, and resume time, against recorded calls (in-process)",
    series: { "checkpoint KB": checkpointKb, "journal KB": journalKb, "resume ms": resumeMs },
    charts: [
      {
        file: "scale-journal-size.svg",
        spec: {
          title: "Checkpoint and journal size against recorded calls",
          xLabel: "recorded calls",
          yLabel: "KB",
          logX: true,
          logY: true,
          series: [
            { name: "checkpoint (paused run)", points: checkpointKb },
            { name: "journal (durable run, memoryJournal)", points: journalKb },
          ],
        },
      },
      {
        file: "scale-journal-resume.svg",
        spec: {
          title: "Resume time against recorded calls (replayed, then the approved call)",
          xLabel: "recorded calls",
          yLabel: "ms per resume",
          logX: true,
          logY: true,
          series: [{ name: "resume", points: resumeMs }],
        },
      },
    ],
    table: {
      columns: ["recorded calls", "checkpoint KB", "journal KB", "resume ms", "µs per replayed call"],
      rows,
    },
    bends: [
      `checkpoint size: ${describeBend(findBend(checkpointKb), { ...per, cost: (v) => `${(v * 1024).toFixed(0)} B` }, signalsAt, range, "size")}`,
      `journal size: ${describeBend(findBend(journalKb), { ...per, cost: (v) => `${(v * 1024).toFixed(0)} B` }, signalsAt, range, "size")}`,
      `resume time: ${describeBend(findBend(resumeMs), { ...per, cost: (v) => `${(v * 1000).toFixed(1)} µs` }, signalsAt, range)}`,
    ],
  };
}
