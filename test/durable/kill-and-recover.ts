/**
 * The steps of the tests that kill a durable run's worker process with SIGKILL halfway and recover the
 * run in another process (durable-processes.test.ts on a file journal, fleet.test.ts on Postgres from
 * network namespaces, dbos-processes.test.ts in a DBOS workflow): start fixtures/durable-worker.ts, kill
 * a worker once its effects file shows it is halfway, decide the unknown outcomes as an operator would,
 * let two recoverers claim at once, and check the effects file.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, vi } from "vitest";
import { FORTY_CALLS_VALUE } from "./helpers.js";

const WORKER = join(import.meta.dirname, "fixtures", "durable-worker.ts");

/** A worker process of fixtures/durable-worker.ts. */
export interface Worker {
  child: ChildProcess;
  /** Resolves once it printed `ready` (WAIT_FOR_LINE=1: it waits for a line on stdin then). */
  ready: Promise<void>;
  /** The JSON the worker printed last, once it exited (rejects when it failed; never settles for SIGKILL). */
  result: Promise<Record<string, unknown>>;
}

/** What a worker runs or recovers: its arguments (see the header of fixtures/durable-worker.ts). */
export interface WorkerArgs {
  mode: "run" | "recover" | "recover-listed";
  /** The file journal's folder, or `-` for Postgres (POSTGRES_URL and POSTGRES_TABLE in its environment). */
  journal: string;
  effects: string;
  /** `-` when it is not to know it (`recover-listed`). */
  runId: string;
}

/**
 * Starts a worker with `env` besides this process's (and a lease of 400 ms), in network namespace
 * `namespace` when one is given (`ip netns exec`); `name` says which one it is when it fails.
 */
export function durableWorker(
  args: WorkerArgs,
  env: Record<string, string>,
  where: { namespace?: string; name?: string } = {},
): Worker {
  const node = [process.execPath, "--no-node-snapshot", "--import", "tsx", WORKER];
  const command = [...node, args.mode, args.journal, args.effects, args.runId];
  const [file, ...rest] = where.namespace ? ["ip", "netns", "exec", where.namespace, ...command] : command;
  const child = spawn(file!, rest, {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, LEASE_MS: "400", ...env },
  });
  let out = "";
  let stderr = "";
  let onReady = () => {};
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.stdout!.on("data", (chunk: Buffer) => {
    out += chunk.toString();
    if (out.split("\n").includes("ready")) onReady();
  });
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const result = new Promise<Record<string, unknown>>((resolve, reject) => {
    child.on("exit", (code, signal) => {
      if (signal === "SIGKILL") return;
      const last = out.trim().split("\n").at(-1) ?? "";
      if (code !== 0)
        reject(new Error(`worker ${where.name ?? args.mode} exited ${code ?? signal}: ${stderr}`));
      else resolve(JSON.parse(last));
    });
  });
  return { child, ready, result };
}

/** The lines of `file`, none when it is not there yet. */
export const linesOf = (file: string) =>
  existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];

/** The idempotency keys of run `runId`'s calls at `indexes`, sorted. */
export const keys = (runId: string, indexes: number[]) => indexes.map((i) => `${runId}:${i}`).sort();

/** `from`, `from + 1`, … up to `to` (not included). */
export const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

/** Kills `child` with SIGKILL once `reached()` holds; it must still be running then (it dies halfway). */
export async function killWhen(child: ChildProcess, reached: () => void | Promise<void>): Promise<void> {
  await vi.waitFor(reached, { timeout: 60_000, interval: 2 });
  expect(child.exitCode).toBeNull();
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

/** Kills `w` with SIGKILL once the effects file has at least `count` lines, before all 40 are there. */
export async function killAt(w: Worker, effects: string, count: number): Promise<void> {
  await killWhen(w.child, () => expect(linesOf(effects).length).toBeGreaterThanOrEqual(count));
  expect(linesOf(effects).length).toBeLessThan(40);
}

/**
 * The decisions an operator makes for a recovery that `paused` with unknown outcomes (each is checked to
 * be one): a call whose key is in the effects file gets its result, the others run again.
 */
export function decideUnknownOutcomes(paused: Record<string, unknown>, effectsFile: string): string {
  const pending = paused.pending as {
    id: string;
    kind: string;
    idempotencyKey: string;
    args: { n: number };
  }[];
  expect(pending.length).toBeGreaterThan(0);
  expect(pending.every((call) => call.kind === "unknown-outcome")).toBe(true);
  const effects = linesOf(effectsFile);
  const decisions = Object.fromEntries(
    pending.map((call) => [
      call.id,
      effects.includes(call.idempotencyKey) ? { result: call.args.n * 2 } : { rerun: true },
    ]),
  );
  return JSON.stringify(decisions);
}

/**
 * Lets recoverers started with WAIT_FOR_LINE=1 go for the claim at the same moment, past the lease, and
 * checks their results: one wins, the other is refused it or, on a loaded machine, reads the run once the
 * winner has ended it and gets the ended run's recorded result (no call goes live again).
 */
export async function claimAtOnce(recoverers: Worker[]): Promise<void> {
  await Promise.all(recoverers.map((w) => w.ready));
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (const w of recoverers) w.child.stdin!.write("go\n");
  const results = await Promise.all(recoverers.map((w) => w.result));
  const ok = results.filter((r) => r.status === "ok");
  const refused = results.filter((r) => r.refused !== undefined);
  expect(ok.length).toBeGreaterThanOrEqual(1);
  expect(ok.length + refused.length).toBe(recoverers.length);
  expect(refused.map((r) => r.refused)).toEqual(refused.map(() => "claimed"));
  expect(ok.map((r) => r.value)).toEqual(ok.map(() => FORTY_CALLS_VALUE));
}
