/**
 * Durable runs across real processes on a file journal: a worker runs 40 effectful calls and is killed
 * with SIGKILL halfway; another process recovers the run; every effect happens once and the run's value
 * is the one it would have had. Also: the in-flight call not idempotent, two recoverers at once, and a
 * run paused at an approval whose recovery was killed after the decision.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { APPROVAL_CALLS_VALUE, FORTY_CALLS_VALUE } from "./helpers.js";
import {
  claimAtOnce,
  decideUnknownOutcomes,
  durableWorker,
  keys,
  killAt,
  linesOf,
  range,
  type Worker,
} from "./kill-and-recover.js";

const root = mkdtempSync(join(tmpdir(), "cordon-durable-processes-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let made = 0;

interface Place {
  journal: string;
  effects: string;
  runId: string;
}

function place(): Place {
  const dir = join(root, `case-${++made}`);
  return { journal: join(dir, "journal"), effects: join(dir, "effects.txt"), runId: `run-${made}` };
}

/** A worker on the file journal in `at`. */
const worker = (mode: "run" | "recover", at: Place, env: Record<string, string> = {}): Worker =>
  durableWorker({ mode, ...at }, env);

describe("a durable run killed with SIGKILL is recovered by another process", () => {
  it("every effect once (the idempotent calls in flight ran again with their key), and the run's value", async () => {
    const at = place();
    const first = worker("run", at, { IDEMPOTENT: "1" });
    await killAt(first, at.effects, 17);
    const recovered = await worker("recover", at, { IDEMPOTENT: "1" }).result;
    expect(recovered).toMatchObject({ status: "ok", value: FORTY_CALLS_VALUE, runId: at.runId });
    expect(linesOf(at.effects).sort()).toEqual(keys(at.runId, range(0, 40)));
    // Only calls whose outcome the journal did not have ran twice.
    const calls = linesOf(`${at.effects}.calls`);
    expect(new Set(calls).size).toBe(40);
    expect(calls.length - 40).toBeLessThanOrEqual(20);
  }, 120_000);

  it("a call in flight that is not idempotent: the recovery pauses with unknown-outcome, and a decision finishes it", async () => {
    const at = place();
    const first = worker("run", at, { HANG_AT: "15" });
    await killAt(first, at.effects, 15);
    const paused = await worker("recover", at).result;
    expect(paused.status).toBe("paused");
    // The operator looks each key up in the service: done ones get their result, the others run again.
    const decisions = decideUnknownOutcomes(paused, at.effects);
    const finished = await worker("recover", at, { DECISIONS: decisions }).result;
    expect(finished).toMatchObject({ status: "ok", value: FORTY_CALLS_VALUE });
    expect(linesOf(at.effects).sort()).toEqual(keys(at.runId, range(0, 40)));
  }, 120_000);

  it("of two recovering processes at once, exactly one wins", async () => {
    const at = place();
    const first = worker("run", at, { IDEMPOTENT: "1" });
    await killAt(first, at.effects, 22);
    await claimAtOnce([0, 1].map(() => worker("recover", at, { IDEMPOTENT: "1", WAIT_FOR_LINE: "1" })));
    // Either way, the effects happened once.
    expect(linesOf(at.effects).sort()).toEqual(keys(at.runId, range(0, 40)));
  }, 120_000);

  it("a run killed in the middle of reverting its effects: the recovery goes on reverting, every revert exactly once", async () => {
    const at = place();
    const first = worker("run", at, { CODE: "revert", IDEMPOTENT: "1" });
    // Twenty effects and eight of their reverts: then the process dies.
    await killAt(first, at.effects, 28);
    const recovered = await worker("recover", at, { CODE: "revert", IDEMPOTENT: "1" }).result;
    expect(recovered).toMatchObject({
      status: "error",
      error: { message: expect.stringContaining("the last step failed") },
    });
    const reverted = recovered.reverted as { id: string; status: string }[];
    expect(reverted.map((r) => r.status)).toEqual(range(0, 20).map(() => "ok"));
    // Last effect first.
    expect(reverted.map((r) => r.id)).toEqual(
      range(0, 20).map((i) => reverted[0]!.id.replace(/\.\d+$/, `.${20 - i}`)),
    );
    const effects = linesOf(at.effects);
    expect(effects.filter((line) => !line.startsWith("undo ")).sort()).toEqual(keys(at.runId, range(0, 20)));
    expect(effects.filter((line) => line.startsWith("undo "))).toEqual(
      range(0, 20).map((i) => `undo ${at.runId}:${19 - i}.revert`),
    );
    // Only the revert in flight at the kill ran twice (deduped by its key).
    const undos = linesOf(`${at.effects}.calls`).filter((line) => line.startsWith("undo "));
    expect(undos.length - 20).toBeLessThanOrEqual(1);
  }, 120_000);

  it("a run paused at an approval, whose recovery was killed after the decision: each effect once", async () => {
    const at = place();
    const paused = await worker("run", at, { CODE: "approval" }).result;
    expect(paused.status).toBe("paused");
    const [call] = paused.pending as { id: string; kind: string }[];
    expect(call?.kind).toBe("approval");
    const decisions = JSON.stringify({ [call!.id]: true });
    const second = worker("recover", at, { CODE: "approval", IDEMPOTENT: "1", DECISIONS: decisions });
    // Five effects, the send, and a few more: then the recovering process dies too.
    await killAt(second, at.effects, 9);
    const finished = await worker("recover", at, { CODE: "approval", IDEMPOTENT: "1" }).result;
    expect(finished).toMatchObject({ status: "ok", value: APPROVAL_CALLS_VALUE });
    const effects = linesOf(at.effects);
    expect(effects.filter((line) => line.startsWith("sent "))).toEqual([`sent ops ${at.runId}:5`]);
    expect(effects.filter((line) => !line.startsWith("sent ")).sort()).toEqual(
      keys(at.runId, [...range(0, 5), ...range(6, 21)]),
    );
  }, 120_000);
});
