/**
 * The file journal's claims and fencing hold between processes, not only between handles of one: real
 * child processes claim one expired run at once, and one process appends while another claims.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fileJournal } from "../../src/codemode/durable/file-journal.js";

const WORKER = join(import.meta.dirname, "fixtures", "journal-worker.ts");
const directory = mkdtempSync(join(tmpdir(), "cordon-file-journal-processes-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A worker process: its `ready` line, and the JSON of its last line once it exits. */
function worker(args: string[]): { child: ChildProcess; ready: Promise<void>; result: Promise<unknown> } {
  const child = spawn(process.execPath, ["--import", "tsx", WORKER, ...args], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    onReady = resolve;
  });
  child.stdout!.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.split("\n").includes("ready")) onReady();
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const result = new Promise<unknown>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) reject(new Error(`worker ${args.join(" ")} exited ${code}: ${stderr}`));
      else resolve(JSON.parse(stdout.trim().split("\n").at(-1)!));
    });
  });
  // A worker that failed before it was ready ends the wait for it too.
  result.catch(() => onReady());
  return { child, ready, result };
}

describe("the file journal between processes", () => {
  it("of 8 processes claiming the same expired runs at once, exactly one wins each run", async () => {
    const folder = join(directory, "claims");
    const journal = fileJournal(folder);
    const runIds = Array.from({ length: 10 }, (_, i) => `run-${i}`);
    for (const runId of runIds) {
      expect(
        await journal.create(runId, { seq: 0, text: "header" }, { owner: "dead", until: Date.now() - 1 }),
      ).toBe(true);
    }
    const workers = Array.from({ length: 8 }, (_, i) => worker(["claim", folder, `claimer-${i}`, ...runIds]));
    await Promise.all(workers.map((w) => w.ready));
    for (const w of workers) w.child.stdin!.end("go\n");
    const results = (await Promise.all(workers.map((w) => w.result))) as boolean[][];
    for (const [r, runId] of runIds.entries()) {
      const winners = results.flatMap((won, i) => (won[r] ? [`claimer-${i}`] : []));
      expect(winners, runId).toHaveLength(1);
      expect((await fileJournal(folder).read(runId))?.lease.owner).toBe(winners[0]);
    }
  }, 60_000);

  it("an owner appending while another process claims the run: its acknowledged records all stay, then only the new owner's follow", async () => {
    const folder = join(directory, "fencing");
    const journal = fileJournal(folder);
    for (let round = 0; round < 3; round++) {
      const runId = `fenced-${round}`;
      await journal.create(runId, { seq: 0, text: "header" }, { owner: "old", until: Date.now() - 1 });
      const appender = worker(["append", folder, "old", runId]);
      await appender.ready;
      const claimer = worker(["take-over", folder, "new", runId]);
      const [acknowledged, taken] = (await Promise.all([appender.result, claimer.result])) as [
        number,
        number,
      ];
      const run = await fileJournal(folder).read(runId);
      const owners = run!.records.slice(1).map((record) => record.text.split(" ")[0]);
      expect(run!.records.map((record) => record.seq)).toEqual(run!.records.map((_, i) => i));
      expect(run!.records.every((record, i) => i === 0 || record.text.endsWith(` ${i}`))).toBe(true);
      expect(owners).toEqual([...Array(acknowledged).fill("old"), ...Array(taken).fill("new")]);
      expect(taken).toBe(5);
      expect(run!.lease.owner).toBe("new");
    }
  }, 120_000);
});
