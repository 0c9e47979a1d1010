/**
 * The Restate journal store against a real Restate server (started by scripts/restate-server.sh, from the
 * npm registry) and a real service endpoint in a process of its own (fixtures/restate-endpoint.ts): a
 * run's records are steps of the invocation, the endpoint is killed with SIGKILL in the middle, and
 * Restate's retry, on an endpoint started afresh on another port, reads back exactly what was written.
 */

import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { JournalRecord } from "../../src/codemode/durable/run-journal.js";
import { recordText } from "./fixtures/restate-record-text.js";
import { lines, RestateService, restateServer } from "./restate-harness.js";

const ENDPOINT = join(import.meta.dirname, "fixtures", "restate-endpoint.ts");

let service: RestateService | undefined;
let directory: string;

beforeAll(async () => {
  // A service name of this test run's own: the server may be shared with other checkouts' runs.
  service = new RestateService(await restateServer(), `CordonJournalTest_${randomUUID().slice(0, 8)}`);
  directory = await mkdtemp(join(tmpdir(), "cordon-restate-journal-"));
}, 200_000);

afterAll(async () => {
  await service?.cleanUp();
  if (directory !== undefined) await rm(directory, { recursive: true, force: true });
});

const startEndpoint = (tag: string) => service!.startEndpoint(ENDPOINT, [tag]);
const serveFrom = (url: string) => service!.serveFrom(url);
const send = (handler: string, input: object) => service!.send(handler, input);
const attach = <T>(invocation: string) => service!.attach<T>(invocation);
const lastFailure = (invocation: string) => service!.lastFailure(invocation);

const expected = (count: number, textOf: (seq: number) => string): JournalRecord[] => [
  { seq: 0, text: "header" },
  ...Array.from({ length: count }, (_, i) => ({ seq: i + 1, text: textOf(i + 1) })),
];

describe("a run journaled in a Restate invocation", () => {
  it("survives SIGKILL of its endpoint: the retry on another endpoint reads back exactly what was written, claims the run once, and writes on", async () => {
    const file = join(directory, "killed");
    const first = await startEndpoint("A");
    await serveFrom(first.url);
    const invocation = await send("write", { file, count: 12, stepMs: 100 });
    await vi.waitFor(
      async () =>
        expect((await lines(`${file}.attempts`)).filter((l) => l.startsWith("A appended"))).toHaveLength(4),
      { timeout: 15_000, interval: 20 },
    );
    first.child.kill("SIGKILL");
    const writtenBeforeKill = (await lines(`${file}.attempts`)).filter((l) =>
      l.startsWith("A appended"),
    ).length;
    await serveFrom((await startEndpoint("B")).url);

    const records = await attach<JournalRecord[]>(invocation);
    expect(records).toEqual(expected(12, (seq) => recordText(seq)));
    const log = await lines(`${file}.attempts`);
    const read = Number(/^B read (\d+)$/.exec(log.find((l) => l.startsWith("B read")) ?? "")?.[1]);
    // The header and every append A saw acknowledged (one more when A died between an append and its log).
    expect(read).toBeGreaterThanOrEqual(1 + writtenBeforeKill);
    expect(read).toBeLessThanOrEqual(2 + writtenBeforeKill);
    expect(log).toContain("B claimed true second claim false");
    const appended = log.filter((l) => / appended /.test(l)).map((l) => l.split(" ").at(-1));
    expect(new Set(appended).size).toBe(appended.length);
    expect(log.at(-1)).toBe("B ended");
  }, 60_000);

  it("pauses for an awakeable across a SIGKILL: the retry stops reading at the pause, waits on the same awakeable, resolved through the ingress, and goes on", async () => {
    const file = join(directory, "paused");
    const first = await startEndpoint("C");
    await serveFrom(first.url);
    const invocation = await send("write", { file, count: 6, pauseAt: 3, stepMs: 20 });
    await vi.waitFor(async () => expect(await lines(`${file}.awakeables`)).toHaveLength(1), {
      timeout: 15_000,
      interval: 20,
    });
    first.child.kill("SIGKILL");
    const [awakeable] = await lines(`${file}.awakeables`);
    expect(await service!.settleAwakeable(awakeable!, "approved")).toBe(202);
    await serveFrom((await startEndpoint("D")).url);

    const records = await attach<JournalRecord[]>(invocation);
    expect(records).toEqual(expected(6, (seq) => recordText(seq, seq > 3 ? "approved" : "")));
    expect(await lines(`${file}.awakeables`)).toEqual([awakeable]);
    const log = await lines(`${file}.attempts`);
    expect(log).toContain("D read 4 paused");
    expect(log).toContain("D answer approved");
    expect(log.filter((l) => l.startsWith("D appended"))).toEqual([
      "D appended 4",
      "D appended 5",
      "D appended 6",
    ]);
  }, 60_000);

  it("stops with an error that says why when a step it reads back is not one it wrote (the handler changed between attempts)", async () => {
    const first = await startEndpoint("changed-1");
    await serveFrom(first.url);
    const file = join(directory, "changed");
    const invocation = await send("changed", { file });
    await vi.waitFor(async () => expect(await lines(file)).toEqual(["stepped"]), {
      timeout: 15_000,
      interval: 20,
    });
    first.child.kill("SIGKILL");
    await serveFrom((await startEndpoint("changed-2")).url);
    await vi.waitFor(
      async () =>
        expect(await lastFailure(invocation)).toContain(
          "is not one cordon wrote for it: the handler made other steps before or during the run than the attempt that wrote them",
        ),
      { timeout: 15_000, interval: 100 },
    );
  }, 60_000);

  it("refuses what every journal store refuses: a second create, gaps and repeats, another owner, a live lease's claim, writes while paused or after the end", async () => {
    await serveFrom((await startEndpoint("E")).url);
    const results = await attach<Record<string, unknown>>(await send("rules", {}));
    const record = (seq: number) => ({ seq, text: `record ${seq}` });
    expect(results).toEqual({
      create: true,
      createAgain: false,
      createOther: false,
      append: true,
      appendGap: false,
      appendRepeat: false,
      appendByOther: false,
      appendOtherRun: false,
      readOtherRun: "none",
      renewByOther: false,
      claimWhileLeased: false,
      incompleteWhileLeased: [],
      incompleteAfterLease: [
        { runId: expect.stringMatching(/^run-inv_/), leaseExpired: expect.any(Number), records: 3 },
      ],
      appendWhilePaused: false,
      appendAfterPause: true,
      end: true,
      appendAfterEnd: false,
      claimAfterEnd: false,
      incompleteAfterEnd: [],
      records: [record(0), record(1), record(2), record(3), record(4)],
    });
  }, 60_000);
});
