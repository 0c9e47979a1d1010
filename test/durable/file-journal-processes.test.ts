/**
 * The file journal's claims and fencing hold between processes, not only between handles of one: real
 * child processes claim one expired run at once, and one process appends while another claims.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { fileJournal } from "../../src/codemode/durable/file-journal.js";

const WORKER = join(import.meta.dirname, "fixtures", "journal-worker.ts");
const directory = mkdtempSync(join(tmpdir(), "cordon-file-journal-processes-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A worker process: its `ready` line, the last count it acknowledged, and its last line's JSON once it exits. */
interface Worker {
  child: ChildProcess;
  ready: Promise<void>;
  acked: () => number;
  result: Promise<unknown>;
}

function worker(args: string[], env: NodeJS.ProcessEnv = {}): Worker {
  const child = spawn(process.execPath, ["--import", "tsx", WORKER, ...args], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  let pending = "";
  let last = "";
  let acked = 0;
  let stderr = "";
  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    onReady = resolve;
  });
  child.stdout!.on("data", (chunk: Buffer) => {
    const lines = (pending + chunk.toString()).split("\n");
    pending = lines.pop()!;
    for (const line of lines) {
      if (line === "ready") onReady();
      else if (line.startsWith("acked ")) acked = Number(line.slice("acked ".length));
      else last = line;
    }
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const result = new Promise<unknown>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (code !== 0) reject(new Error(`worker ${args.join(" ")} exited ${code ?? signal}: ${stderr}`));
      else resolve(JSON.parse(last));
    });
  });
  // A worker that failed before it was ready ends the wait for it too.
  result.catch(() => onReady());
  return { child, ready, acked: () => acked, result };
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

  it("a process killed with SIGKILL in the middle of its appends leaves a run that another process claims, reads whole and continues", async () => {
    const folder = join(directory, "killed");
    const journal = fileJournal(folder);
    const runId = "killed";
    const RECORD_CHARS = 1024 * 1024;
    await journal.create(runId, { seq: 0, text: "header" }, { owner: "killed", until: Date.now() - 1 });
    const appender = worker(["append", folder, "killed", runId], {
      JOURNAL_RECORD_CHARS: String(RECORD_CHARS),
    });
    await vi.waitFor(() => expect(appender.acked()).toBeGreaterThanOrEqual(20), {
      timeout: 30_000,
      interval: 5,
    });
    appender.child.kill("SIGKILL");
    await appender.result.catch(() => {});
    const acknowledged = appender.acked();

    const recoverer = fileJournal(folder);
    expect(await recoverer.claim(runId, { owner: "recoverer", until: Date.now() + 60_000 }, Date.now())).toBe(
      true,
    );
    const run = await recoverer.read(runId);
    const records = run!.records.slice(1);
    // Every acknowledged record, whole; at most the one append under way when it died (up to 3) more.
    expect(records.length).toBeGreaterThanOrEqual(acknowledged);
    expect(records.length).toBeLessThanOrEqual(acknowledged + 3);
    records.forEach((record, i) => {
      expect(record.seq).toBe(i + 1);
      expect(record.text === `killed ${i + 1}`.padEnd(RECORD_CHARS, ".")).toBe(true);
    });
    const next = { seq: run!.records.length, text: "recovered" };
    expect(await recoverer.append(runId, [next], "recoverer")).toBe(true);
    expect((await fileJournal(folder).read(runId))!.records.at(-1)).toEqual(next);
  }, 60_000);
});
