/**
 * restateRunCode against a real Restate server (scripts/restate-server.sh, from the npm registry) and
 * real service endpoints, each a process of its own (fixtures/restate-code-endpoint.ts): a run of 40
 * effectful calls whose endpoint is killed with SIGKILL in the middle is finished by Restate's retry on
 * another endpoint with every effect once; an approval is an awakeable the test resolves through the
 * ingress, after the endpoint that waited on it was killed; a call in flight that is not idempotent waits
 * on an awakeable as an unknown outcome; a run that ended before its handler returned answers its result.
 */

import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { RestatePendingCall } from "../../src/entries/restate.js";
import { APPROVAL_CALLS_VALUE, FORTY_CALLS_VALUE } from "./helpers.js";
import { lines, RestateService, restateServer } from "./restate-harness.js";

const ENDPOINT = join(import.meta.dirname, "fixtures", "restate-code-endpoint.ts");

let service: RestateService | undefined;
let directory: string;
let made = 0;

beforeAll(async () => {
  service = new RestateService(await restateServer(), `CordonRunCodeTest_${randomUUID().slice(0, 8)}`);
  directory = await mkdtemp(join(tmpdir(), "cordon-restate-run-code-"));
}, 200_000);

afterAll(async () => {
  await service?.cleanUp();
  if (directory !== undefined) await rm(directory, { recursive: true, force: true });
});

const startEndpoint = (tag: string) =>
  service!.startEndpoint(ENDPOINT, [tag], { nodeArgs: ["--no-node-snapshot"] });

/** What the endpoint's handlers answer. */
interface Answer {
  status: string;
  value: unknown;
  error: { name: string; message: string } | null;
  runId: string | null;
  tag: string;
}

/** A told line of `<file>.pending`. */
interface Told {
  tag: string;
  runId: string;
  pending: RestatePendingCall[];
}

const told = async (file: string): Promise<Told[]> =>
  (await lines(`${file}.pending`)).map((line) => JSON.parse(line) as Told);

/** Each key of run `runId`'s 40 effects, once. */
const fortyKeys = (runId: string) => Array.from({ length: 40 }, (_, i) => `${runId}:${i}`).sort();

describe("restateRunCode", () => {
  it("runs 40 effectful calls in a handler; its endpoint killed with SIGKILL halfway, Restate's retry on another endpoint finishes the run with every effect once and the right value", async () => {
    const file = join(directory, `forty-${++made}`);
    const first = await startEndpoint("A");
    await service!.serveFrom(first.url);
    const invocation = await service!.send("forty", { file, delayMs: 30 });
    await vi.waitFor(async () => expect((await lines(file)).length).toBeGreaterThanOrEqual(12), {
      timeout: 30_000,
      interval: 10,
    });
    first.child.kill("SIGKILL");
    expect((await lines(file)).length).toBeLessThan(40);
    await service!.serveFrom((await startEndpoint("B")).url);

    const answer = await service!.attach<Answer>(invocation);
    expect(answer).toMatchObject({ status: "ok", value: FORTY_CALLS_VALUE, tag: "B" });
    expect(answer.runId).toBe(`${invocation}.1`);
    const effects = await lines(file);
    expect([...effects].sort()).toEqual(fortyKeys(answer.runId!));
    const calls = await lines(`${file}.calls`);
    const by = (tag: string) =>
      calls.filter((line) => line.startsWith(`${tag} `)).map((line) => line.slice(2));
    // B made the calls A had not made or not finished; a call A had finished was replayed from the
    // invocation's journal. Only calls in flight at the kill (at most a batch) were made by both.
    expect(by("B").length).toBeGreaterThan(0);
    expect(by("B").filter((key) => by("A").includes(key)).length).toBeLessThanOrEqual(20);
    expect(new Set([...by("A"), ...by("B")]).size).toBe(40);
  }, 120_000);

  it("waits for an approval on an awakeable whose id the app is told; its endpoint killed while it waits, the approval resolved through the ingress, the run goes on elsewhere and the approved call runs once", async () => {
    const file = join(directory, `approval-${++made}`);
    const first = await startEndpoint("C");
    await service!.serveFrom(first.url);
    const invocation = await service!.send("approval", { file });
    await vi.waitFor(async () => expect(await told(file)).toHaveLength(1), { timeout: 30_000, interval: 20 });
    first.child.kill("SIGKILL");
    const [{ pending, runId }] = (await told(file)) as [Told];
    expect(pending).toEqual([
      {
        id: expect.any(String),
        tool: "send",
        args: { to: "ops" },
        kind: "approval",
        awakeableId: expect.stringMatching(/^sign_/),
      },
    ]);
    expect(await lines(file)).toEqual(Array.from({ length: 5 }, (_, i) => `${runId}:${i}`));
    expect(await service!.settleAwakeable(pending[0]!.awakeableId, true)).toBe(202);
    await service!.serveFrom((await startEndpoint("D")).url);

    const answer = await service!.attach<Answer>(invocation);
    expect(answer).toMatchObject({ status: "ok", value: APPROVAL_CALLS_VALUE, tag: "D" });
    const effects = await lines(file);
    expect(effects.filter((line) => line.startsWith("sent "))).toEqual([`sent ops ${runId}:5`]);
    expect(effects.filter((line) => !line.startsWith("sent ")).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `${runId}:${i < 5 ? i : i + 1}`).sort(),
    );
    // Told once: D's attempt replayed the step that told the app.
    expect(await told(file)).toHaveLength(1);
  }, 120_000);

  it("asks again, saying what was wrong, when an awakeable is resolved with what is not a decision; a rejected awakeable denies the approval", async () => {
    const file = join(directory, `asked-again-${++made}`);
    await service!.serveFrom((await startEndpoint("E")).url);
    const code = `
      let sent;
      try { sent = await tools.send({ to: "ops" }); } catch (error) { sent = \`denied: \${error.message}\`; }
      return sent;
    `;
    const invocation = await service!.send("approval", { file, code });
    await vi.waitFor(async () => expect(await told(file)).toHaveLength(1), { timeout: 30_000, interval: 20 });
    const [first] = (await told(file))[0]!.pending;
    expect(await service!.settleAwakeable(first!.awakeableId, "maybe")).toBe(202);
    await vi.waitFor(async () => expect(await told(file)).toHaveLength(2), { timeout: 30_000, interval: 20 });
    const [again] = (await told(file))[1]!.pending;
    expect(again).toMatchObject({ id: first!.id, kind: "approval" });
    expect(again!.awakeableId).not.toBe(first!.awakeableId);
    expect(again!.problem).toBe(
      `Call ${first!.id} (approval of send) takes true, false, or { approved: boolean, reason?: string }; its awakeable was resolved with "maybe".`,
    );
    expect(await service!.settleAwakeable(again!.awakeableId, "not to ops today", true)).toBe(202);
    const answer = await service!.attach<Answer>(invocation);
    expect(answer.status).toBe("ok");
    expect(answer.value).toMatch(/^denied: .*not to ops today/);
    expect(await lines(file)).toEqual([]);
  }, 120_000);

  it("a call in flight that is not idempotent, its endpoint killed, waits on an awakeable as an unknown outcome; decided, the run finishes with every effect once", async () => {
    const file = join(directory, `unknown-${++made}`);
    const first = await startEndpoint("F");
    await service!.serveFrom(first.url);
    const code =
      "let total = 0; for (let n = 0; n < 6; n++) total += await tools.effect({ n }); return total;";
    const invocation = await service!.send("forty", { file, code, idempotent: false, delayMs: 1500 });
    // Killed while call 3 runs: it started (its call line is there), and has made no effect yet.
    await vi.waitFor(async () => expect(await lines(`${file}.calls`)).toHaveLength(3), {
      timeout: 30_000,
      interval: 10,
    });
    first.child.kill("SIGKILL");
    expect(await lines(file)).toHaveLength(2);
    const second = await startEndpoint("G");
    await service!.serveFrom(second.url);
    await vi.waitFor(async () => expect(await told(file)).toHaveLength(1), { timeout: 30_000, interval: 20 });
    const [{ pending, runId }] = (await told(file)) as [Told];
    expect(pending).toEqual([
      {
        id: expect.any(String),
        tool: "effect",
        args: { n: 2 },
        kind: "unknown-outcome",
        idempotencyKey: `${runId}:2`,
        awakeableId: expect.stringMatching(/^sign_/),
      },
    ]);
    // The operator looks the key up: the effect is not there, so it runs again.
    expect(await lines(file)).not.toContain(`${runId}:2`);
    expect(await service!.settleAwakeable(pending[0]!.awakeableId, { rerun: true })).toBe(202);
    // Killed again while the call runs again: the decision was used, and the outcome is unknown anew.
    await vi.waitFor(async () => expect(await lines(`${file}.calls`)).toContain(`G ${runId}:2`), {
      timeout: 30_000,
      interval: 10,
    });
    second.child.kill("SIGKILL");
    await service!.serveFrom((await startEndpoint("J")).url);
    await vi.waitFor(async () => expect(await told(file)).toHaveLength(2), { timeout: 30_000, interval: 20 });
    const [again] = (await told(file))[1]!.pending;
    expect(again).toMatchObject({
      id: pending[0]!.id,
      kind: "unknown-outcome",
      idempotencyKey: `${runId}:2`,
    });
    expect(again!.awakeableId).not.toBe(pending[0]!.awakeableId);
    expect(await lines(file)).not.toContain(`${runId}:2`);
    expect(await service!.settleAwakeable(again!.awakeableId, { rerun: true })).toBe(202);
    const answer = await service!.attach<Answer>(invocation);
    expect(answer).toMatchObject({ status: "ok", value: 30, tag: "J" });
    expect(await lines(file)).toEqual(Array.from({ length: 6 }, (_, i) => `${runId}:${i}`));
    const calls = await lines(`${file}.calls`);
    expect(calls.filter((line) => line.endsWith(`${runId}:2`))).toEqual([
      `F ${runId}:2`,
      `G ${runId}:2`,
      `J ${runId}:2`,
    ]);
  }, 120_000);

  it("ends the invocation with a terminal error, running nothing, when the retry cannot trust the run's journal (sealed with another key)", async () => {
    const file = join(directory, `other-key-${++made}`);
    const first = await startEndpoint("K");
    await service!.serveFrom(first.url);
    const invocation = await service!.send("forty", { file, delayMs: 30 });
    await vi.waitFor(async () => expect((await lines(file)).length).toBeGreaterThanOrEqual(5), {
      timeout: 30_000,
      interval: 10,
    });
    first.child.kill("SIGKILL");
    await service!.serveFrom((await startEndpoint("L-other-key")).url);
    await expect(service!.attach(invocation)).rejects.toThrow(
      /restateRunCode: Run .* journal was sealed with another key/,
    );
    expect((await lines(`${file}.calls`)).filter((line) => line.startsWith("L-other-key "))).toEqual([]);
  }, 120_000);

  it("a run that ended before its handler returned answers its result on the retry, replayed from the journal: no call runs again", async () => {
    const file = join(directory, `ended-${++made}`);
    const first = await startEndpoint("H");
    await service!.serveFrom(first.url);
    const invocation = await service!.send("forty", { file, delayMs: 1, hangAfterOn: "H" });
    await vi.waitFor(async () => expect(await lines(`${file}.returned`)).toHaveLength(1), {
      timeout: 60_000,
      interval: 20,
    });
    first.child.kill("SIGKILL");
    const callsBefore = await lines(`${file}.calls`);
    expect(callsBefore).toHaveLength(40);
    await service!.serveFrom((await startEndpoint("I")).url);

    const answer = await service!.attach<Answer>(invocation);
    expect(answer).toMatchObject({ status: "ok", value: FORTY_CALLS_VALUE, tag: "I" });
    expect(await lines(`${file}.calls`)).toEqual(callsBefore);
    expect([...(await lines(file))].sort()).toEqual(fortyKeys(answer.runId!));
  }, 120_000);
});
