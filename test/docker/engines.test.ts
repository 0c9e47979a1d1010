/**
 * Several Docker engines at once: two real engines on this machine (scripts/docker-engine.sh starts the
 * second with its own socket, data root and exec root). Runs go to the engine with the most free
 * capacity; an engine that stops answering is out of rotation until it answers again.
 */

import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { dockerEnvironment, SANDBOX_IMAGE } from "../../environments/docker/index.js";
import { type CodeMode, codeMode, tool } from "../../src/index.js";
import { containersOf, DEFAULT_SOCKET, DOCKER_SUITES, engine, SECOND_SOCKET } from "./helpers.js";

const PIDFILE = "/run/cordon-docker-2/docker.pid";
const first = engine(DEFAULT_SOCKET);
const second = engine(SECOND_SOCKET);
const opened: CodeMode[] = [];

const slow = tool({
  name: "slow",
  description: "Waits.",
  input: z.object({ ms: z.number() }),
  run: ({ ms }) => new Promise((resolve) => setTimeout(() => resolve("done"), ms)),
});

function make(engines: Parameters<typeof dockerEnvironment>[0]) {
  const env = dockerEnvironment({
    warm: 0,
    engineHealthMs: 300,
    heartbeatMs: 200,
    hangTimeoutMs: 1_500,
    ...engines,
  });
  const cm = codeMode({ tools: [slow], environment: env, state: "session" });
  opened.push(cm);
  return { cm, env };
}

function secondEnginePid(): number {
  return Number(readFileSync(PIDFILE, "utf8").trim());
}

afterAll(async () => {
  // Whatever happened, the second engine must be running again for the next suite.
  try {
    process.kill(secondEnginePid(), "SIGCONT");
  } catch {
    // Not stopped.
  }
  await Promise.all(opened.map((cm) => cm.close()));
});

describe.runIf(DOCKER_SUITES)("docker environment with two engines", () => {
  beforeAll(async () => {
    if (!existsSync(SECOND_SOCKET))
      throw new Error(`no second engine at ${SECOND_SOCKET}: run make docker-engine`);
    await Promise.all([first.getImage(SANDBOX_IMAGE).inspect(), second.getImage(SANDBOX_IMAGE).inspect()]);
  }, 60_000);

  it("places each run on the engine with the most free capacity", async () => {
    const { cm, env } = make({
      engines: [
        { socketPath: DEFAULT_SOCKET, maxContainers: 3 },
        { socketPath: SECOND_SOCKET, maxContainers: 3 },
      ],
    });
    for (const session of ["a", "b", "c", "d"]) await cm.run("var here = 1;", { session });
    const [onFirst, onSecond] = await Promise.all([
      containersOf(first, env.id),
      containersOf(second, env.id),
    ]);
    expect(onFirst.length).toBe(2);
    expect(onSecond.length).toBe(2);
    expect(env.status().map((s) => s.free)).toEqual([1, 1]);
  }, 60_000);

  it("an engine that stops answering is out of rotation, its run ends with a clear error, and it comes back", async () => {
    const { cm, env } = make({
      engines: [
        { socketPath: DEFAULT_SOCKET, maxContainers: 1 },
        { socketPath: SECOND_SOCKET, maxContainers: 4 },
      ],
    });
    // The second engine has more room: the first run goes there.
    const running = cm.run("await tools.slow({ ms: 30000 })", { session: "on-second" });
    await vi.waitFor(
      async () =>
        expect(await containersOf(second, env.id), "a container on the second engine").toHaveLength(1),
      { timeout: 20_000 },
    );
    const pid = secondEnginePid();
    process.kill(pid, "SIGSTOP");
    try {
      const result = await running;
      expect(result.status).toBe("error");
      expect(result.error?.message).toMatch(/stopped answering|stopped responding/);
      expect(result.error?.message).toMatch(/the agent's process is fine/);
      await vi.waitFor(
        () => expect(env.status()[1]?.healthy, "the second engine to be out of rotation").toBe(false),
        { timeout: 10_000 },
      );
      // Runs go to the engine that answers.
      const elsewhere = await cm.run("1 + 1", { session: "meanwhile" });
      expect(elsewhere.value).toBe(2);
      expect(await containersOf(first, env.id)).toHaveLength(1);
    } finally {
      process.kill(pid, "SIGCONT");
    }
    await vi.waitFor(() => expect(env.status()[1]?.healthy, "the second engine to come back").toBe(true), {
      timeout: 20_000,
    });
    // The container it had when it stopped answering is reaped once it answers again.
    await vi.waitFor(
      async () =>
        expect(await containersOf(second, env.id), "the abandoned container to be reaped").toEqual([]),
      { timeout: 20_000 },
    );
    const back = await cm.run("2 + 2", { session: "back" });
    expect(back.value).toBe(4);
  }, 60_000);

  it("closing the environment while its engine is stopped (SIGSTOP) returns; the removal lands once the engine answers again", async () => {
    const { cm, env } = make({ engines: [{ socketPath: SECOND_SOCKET, maxContainers: 2 }] });
    const running = cm.run("await tools.slow({ ms: 30000 })", { session: "closing" });
    await vi.waitFor(
      async () => expect(await containersOf(second, env.id), "the run's container").toHaveLength(1),
      { timeout: 20_000 },
    );
    const pid = secondEnginePid();
    process.kill(pid, "SIGSTOP");
    try {
      // Each removal waits at most hangTimeoutMs (1.5 s here) for an engine that does not answer.
      await cm.close();
      const result = await running;
      expect(result.status).not.toBe("ok");
    } finally {
      process.kill(pid, "SIGCONT");
    }
    await vi.waitFor(
      async () =>
        expect(
          await containersOf(second, env.id),
          "the container to be removed once the engine answers",
        ).toEqual([]),
      { timeout: 20_000 },
    );
  }, 60_000);

  it("an engine restarted under a run ends that run, and serves again after the restart", async () => {
    const { cm, env } = make({ engines: [{ socketPath: SECOND_SOCKET, maxContainers: 2 }] });
    const running = cm.run("await tools.slow({ ms: 30000 })", { session: "restart" });
    await vi.waitFor(
      async () => expect(await containersOf(second, env.id), "the run's container").toHaveLength(1),
      { timeout: 20_000 },
    );
    const pid = secondEnginePid();
    process.kill(pid, "SIGTERM");
    const result = await running;
    expect(result.status).toBe("error");
    await vi.waitFor(() => expect(() => process.kill(pid, 0), "the old engine to exit").toThrow(), {
      timeout: 30_000,
    });
    execFileSync("scripts/docker-engine.sh", ["--second"], { stdio: "ignore" });
    await vi.waitFor(() => expect(env.status()[0]?.healthy, "the engine to answer again").toBe(true), {
      timeout: 20_000,
    });
    const again = await cm.run("6 * 7", { session: "after-restart" });
    expect(again.value).toBe(42);
    await vi.waitFor(
      async () =>
        expect(await containersOf(second, env.id), "only the new session's container").toHaveLength(1),
      { timeout: 20_000 },
    );
  });
});
