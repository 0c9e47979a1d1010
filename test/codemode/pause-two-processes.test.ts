/**
 * The durable pause, as a deployment sees it: process A runs the code until it pauses at a person and
 * exits; process B, started afresh with the same tools and key, resumes it. Every tool appends a line to
 * a file, so the file says whether each effect happened exactly once.
 */

import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CodeRunResult } from "../../src/index.js";

const AGENT = join(import.meta.dirname, "fixtures", "pausing-agent.ts");
let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "cordon-two-processes-"));
});
afterAll(() => rm(directory, { recursive: true, force: true }));

/** Runs the agent in a process of its own and gives back the result it printed. */
function agent(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CodeRunResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--no-node-snapshot", "--import", "tsx", AGENT, ...args],
      {
        env: { ...process.env, CORDON_CHECKPOINT_KEY: "two processes, one 32-byte secret", ...env },
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout.trim().split("\n").at(-1)!) as CodeRunResult);
      },
    );
  });
}

/** A scenario's files, and the steps: pause in one process, then resume in another with `decide`. */
function scenario(name: string, env: NodeJS.ProcessEnv = {}) {
  const effects = join(directory, `${name.replace(/ /g, "-")}.effects`);
  const checkpoint = join(directory, `${name.replace(/ /g, "-")}.ckpt`);
  return {
    pause: () => agent(["pause", name, effects, checkpoint], env),
    resume: (decisions: object) =>
      agent(["resume", name, effects, checkpoint, JSON.stringify(decisions)], env),
    lines: async () => (await readFile(effects, "utf8")).trim().split("\n"),
  };
}

describe("a run paused in one process and resumed in another", () => {
  it("approved: before, beside and after happen once, and the resumed code sees the time and random numbers it saw", async () => {
    const s = scenario("approval");
    const paused = await s.pause();
    expect(paused.status).toBe("paused");
    // "beside" may have started before the approval paused: then it finished before process A exited.
    expect((await s.lines())[0]).toBe("before");
    expect(await s.lines()).not.toContain("after");
    const resumed = await s.resume({ decisions: { [paused.pending![0]!.id]: true } });
    expect(resumed.status).toBe("ok");
    const value = resumed.value as { seen: unknown; sent: string };
    expect(value.sent).toBe("sent to ann");
    expect(JSON.stringify(value.seen)).toBe(paused.logs[0]?.text);
    expect((await s.lines()).sort()).toEqual(["after", "before", "beside", "sent to ann"]);
    expect((await s.lines()).at(-1)).toBe("after");
  }, 60_000);

  it("denied: the call rejects in the code with kind denied, and every other effect happens once", async () => {
    const s = scenario("approval");
    await rm(join(directory, "approval.effects"), { force: true });
    const paused = await s.pause();
    const resumed = await s.resume({ decisions: { [paused.pending![0]!.id]: false } });
    expect(resumed.status).toBe("ok");
    expect((resumed.value as { sent: string }).sent).toBe("refused: denied");
    expect((resumed.value as { seen: unknown }).seen).toEqual(JSON.parse(paused.logs[0]!.text));
    expect((await s.lines()).sort()).toEqual(["after", "before", "beside"]);
  }, 60_000);

  it("two gated calls in one Promise.all: both wait, both are decided, each runs once", async () => {
    const s = scenario("two approvals");
    const paused = await s.pause();
    expect(paused.pending?.map((call) => call.args)).toEqual([{ to: "bo" }, { to: "cy" }]);
    const [bo, cy] = paused.pending!;
    const resumed = await s.resume({ decisions: { [bo!.id]: true, [cy!.id]: true } });
    expect(resumed).toMatchObject({ status: "ok", value: { sent: ["sent to bo", "sent to cy"] } });
    expect(await s.lines()).toEqual(["before", "sent to bo", "sent to cy", "after"]);
  }, 60_000);

  it("an ask_human question: the answer given in the second process is the call's value", async () => {
    const s = scenario("question");
    const paused = await s.pause();
    expect(paused.pending?.[0]).toMatchObject({ tool: "ask_human", kind: "question" });
    const resumed = await s.resume({ answers: { [paused.pending![0]!.id]: "green" } });
    expect(resumed).toMatchObject({ status: "ok", value: { colour: "green" } });
    expect(await s.lines()).toEqual(["before", "colour green"]);
  }, 60_000);

  it("two processes resume one checkpoint at the same moment with a shared file store: one runs it, the other is refused, and the message goes out once", async () => {
    const store = join(directory, "shared-store");
    const s = scenario("two approvals", { CORDON_TEST_CHECKPOINT_STORE: store });
    await rm(join(directory, "two-approvals.effects"), { force: true });
    const paused = await s.pause();
    const decisions = { decisions: Object.fromEntries(paused.pending!.map((call) => [call.id, true])) };
    const outcomes = await Promise.allSettled([s.resume(decisions), s.resume(decisions)]);
    const done = outcomes.filter((o) => o.status === "fulfilled");
    expect(done).toHaveLength(1);
    expect((done[0] as PromiseFulfilledResult<CodeRunResult>).value.status).toBe("ok");
    const [refused] = outcomes.filter((o) => o.status === "rejected") as PromiseRejectedResult[];
    expect(String(refused?.reason)).toContain("was resumed already");
    expect(await s.lines()).toEqual(["before", "sent to bo", "sent to cy", "after"]);
  }, 60_000);

  it("a second pause after the first resume: three processes, each effect once, the time seen in the middle kept", async () => {
    const s = scenario("two pauses");
    const first = await s.pause();
    const second = await s.resume({ decisions: { [first.pending![0]!.id]: true } });
    expect(second.status).toBe("paused");
    expect(second.pending?.[0]?.args).toEqual({ to: "second" });
    const third = await s.resume({ decisions: { [second.pending![0]!.id]: true } });
    expect(third.status).toBe("ok");
    expect(JSON.stringify((third.value as { middle: unknown }).middle)).toBe(second.logs[0]?.text);
    expect(await s.lines()).toEqual(["one", "sent to first", "two", "sent to second", "three"]);
  }, 60_000);
});
