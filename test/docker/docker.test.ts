import { hostname } from "node:os";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  OWNER_ENV_LABEL,
  OWNER_HOST_LABEL,
  OWNER_PID_LABEL,
  SANDBOX_LABEL,
} from "../../environments/docker/engine.js";
import { type DockerEnvironment, dockerEnvironment, SANDBOX_IMAGE } from "../../environments/docker/index.js";
import { type CodeMode, type CodeModeOptions, codeMode, tool } from "../../src/index.js";
import { containersOf, DOCKER_SUITES, engine } from "./helpers.js";

const docker = engine();
const opened: { cm: CodeMode; env: DockerEnvironment }[] = [];

/** Resolves each time the slow tool starts: the run is then executing in its container. */
let slowStarted: () => void = () => {};
const slow = tool({
  name: "slow",
  description: "Waits a while.",
  input: z.object({ ms: z.number() }),
  run: async ({ ms }, ctx) => {
    slowStarted();
    await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      ctx.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        reject(ctx.signal.reason);
      });
    });
    return "done";
  },
});
const add = tool({
  name: "add",
  description: "Add.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});

function make(options: Parameters<typeof dockerEnvironment>[0] = {}, mode: Partial<CodeModeOptions> = {}) {
  const env = dockerEnvironment({ warm: 1, ...options });
  const cm = codeMode({ tools: [add, slow], environment: env, ...mode });
  opened.push({ cm, env });
  return { cm, env };
}

afterAll(async () => {
  await Promise.all(opened.map(({ cm }) => cm.close()));
});

describe.runIf(DOCKER_SUITES)("docker environment", () => {
  beforeAll(async () => {
    await docker.ping();
    await docker.getImage(SANDBOX_IMAGE).inspect();
  });

  it("runs code in a container: tool calls go back to the host, console lines come out", async () => {
    const { cm } = make();
    const result = await cm.run(
      "console.log('inside'); const s = await tools.add({ a: 20, b: 22 }); return [s, typeof process];",
    );
    expect(result).toMatchObject({ status: "ok", value: [42, "undefined"] });
    expect(result.logs).toEqual([{ level: "log", text: "inside" }]);
    expect(result.calls).toEqual([expect.objectContaining({ tool: "add", status: "ok" })]);
  });

  it("every container is locked down: no network, read-only root, no capabilities, no new privileges, limits, ulimits, non-root", async () => {
    const { cm, env } = make({ memoryMb: 384, cpus: 0.5, pidsLimit: 48, tmpfsMb: 8 }, { state: "session" });
    await cm.run("var kept = 1;", { session: "inspect" });
    const [id] = await containersOf(docker, env.id);
    const info = await docker.getContainer(id!).inspect();
    expect(info.Config.User).toBe("10001:10001");
    // Nothing of the agent's environment: only the PATH Docker gives every container.
    expect((info.Config.Env ?? []).filter((entry) => !entry.startsWith("PATH="))).toEqual([]);
    expect(info.HostConfig).toMatchObject({
      NetworkMode: "none",
      ReadonlyRootfs: true,
      CapDrop: ["ALL"],
      SecurityOpt: ["no-new-privileges"],
      PidsLimit: 48,
      Memory: 384 * 2 ** 20,
      NanoCpus: 0.5e9,
      Tmpfs: { "/tmp": "rw,noexec,nosuid,nodev,size=8m" },
    });
    // No core dumps, a cap on open files and processes, and no file larger than the tmpfs.
    expect(info.HostConfig.Ulimits).toEqual([
      { Name: "nofile", Soft: 256, Hard: 256 },
      { Name: "nproc", Soft: 1024, Hard: 1024 },
      { Name: "core", Soft: 0, Hard: 0 },
      { Name: "fsize", Soft: 8 * 2 ** 20, Hard: 8 * 2 ** 20 },
    ]);
    expect(info.Config.Labels).toMatchObject({ [SANDBOX_LABEL]: "1", [OWNER_ENV_LABEL]: env.id });
  });

  it("a container serves one run and is then removed; a warm one takes the next run", async () => {
    const { cm, env } = make({ warm: 1 });
    await cm.run("1");
    await vi.waitFor(
      async () => expect(await containersOf(docker, env.id), "one warm container").toHaveLength(1),
      { timeout: 20_000 },
    );
    const [warm] = await containersOf(docker, env.id);
    const result = await cm.run("2");
    expect(result.value).toBe(2);
    await vi.waitFor(
      async () => expect(await containersOf(docker, env.id), "the used container to go").not.toContain(warm),
      { timeout: 20_000 },
    );
  });

  it("more concurrent runs than maxContainers all finish: a waiting run takes the container started after a run ended", async () => {
    const { cm } = make({ warm: 2, maxContainers: 2 });
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => cm.run(`await tools.add({ a: ${i}, b: 100 })`)),
    );
    expect(results.map((result) => [result.status, result.value])).toEqual(
      Array.from({ length: 6 }, (_, i) => ["ok", i + 100]),
    );
  }, 120_000);

  it("sessions keep their variables in their own container", async () => {
    const { cm } = make({}, { state: "session" });
    await cm.run("var total = 40;", { session: "a" });
    const result = await cm.run("total + 2", { session: "a" });
    expect(result.value).toBe(42);
  });

  it("a timeout stops the run and its container is removed", async () => {
    const { cm, env } = make({ warm: 0 }, { limits: { timeoutMs: 500, cpuTimeMs: 10_000 } });
    const result = await cm.run("for (;;) {}");
    expect(result.status).toBe("timeout");
    await vi.waitFor(
      async () => expect(await containersOf(docker, env.id), "no container left").toEqual([]),
      { timeout: 20_000 },
    );
  });

  it("a container killed from outside mid-run ends the run with a clear error and leaves nothing", async () => {
    const { cm, env } = make({ warm: 0 });
    const executing = new Promise<void>((resolve) => {
      slowStarted = resolve;
    });
    const running = cm.run("await tools.slow({ ms: 60000 })");
    await executing;
    const [id] = await containersOf(docker, env.id);
    await docker.getContainer(id!).kill();
    const result = await running;
    expect(result.status).toBe("error");
    expect(result.error?.name).toBe("SandboxCrashed");
    expect(result.error?.message).toMatch(
      /stopped unexpectedly \(it was ended by SIGKILL\)|stopped unexpectedly/,
    );
    expect(result.error?.message).toMatch(/the agent's process is fine/);
    await vi.waitFor(
      async () => expect(await containersOf(docker, env.id), "no container left").toEqual([]),
      { timeout: 20_000 },
    );
  });

  it("a guest that dies (a V8 fatal error) ends its run as out of memory and leaves no container", async () => {
    const { cm, env } = make({ warm: 0 });
    const result = await cm.run('"x".repeat(2**27).split("").length');
    expect(result.status).toBe("limit");
    expect(result.error?.message).toMatch(/ran out of memory/);
    await vi.waitFor(
      async () => expect(await containersOf(docker, env.id), "no container left").toEqual([]),
      { timeout: 20_000 },
    );
    expect((await cm.run("3")).value).toBe(3);
  });

  it("the container's memory limit holds what the heap limit does not count", async () => {
    const { cm } = make({ warm: 0, memoryMb: 200 }, { limits: { memoryMb: 1024 } });
    const result = await cm.run(
      "const k = []; for (let i = 0; i < 60; i++) k.push(new Float64Array(1_250_000).fill(i)); k.length",
    );
    expect(result.status).toBe("limit");
    expect(result.error?.name).toBe("MemoryLimit");
  });

  it("a missing image is an error that names the command to build it", async () => {
    const { cm } = make({ image: "cordon-sandbox:no-such-version" });
    const result = await cm.run("1");
    expect(result.status).toBe("error");
    expect(result.error?.message).toMatch(
      /has no image cordon-sandbox:no-such-version: build it with `npx cordon image build`/,
    );
  });

  it("once the missing image is built, the next run uses it: a failed check is not kept", async () => {
    const tag = { repo: "cordon-sandbox", tag: "built-later" };
    const { cm } = make({ image: `${tag.repo}:${tag.tag}` });
    expect((await cm.run("1")).status).toBe("error");
    await docker.getImage(SANDBOX_IMAGE).tag(tag);
    try {
      expect(await cm.run("20 + 22")).toMatchObject({ status: "ok", value: 42 });
    } finally {
      await cm.close();
      await docker.getImage(`${tag.repo}:${tag.tag}`).remove();
    }
  });

  it("reaps containers left behind by an agent process that is gone", async () => {
    const orphan = await docker.createContainer({
      Image: SANDBOX_IMAGE,
      Labels: {
        [SANDBOX_LABEL]: "1",
        [OWNER_HOST_LABEL]: hostname(),
        [OWNER_PID_LABEL]: "999999",
        [OWNER_ENV_LABEL]: "gone",
      },
      OpenStdin: true,
      HostConfig: { NetworkMode: "none" },
    });
    await orphan.start();
    const { cm } = make({ warm: 0 });
    await cm.run("1");
    await vi.waitFor(
      async () =>
        expect(
          (await docker.listContainers({ all: true })).map((info) => info.Id),
          "the orphan to be reaped",
        ).not.toContain(orphan.id),
      { timeout: 20_000 },
    );
  });

  it("close() removes every container of the environment", async () => {
    const { cm, env } = make({ warm: 2 });
    await cm.run("1");
    await vi.waitFor(
      async () =>
        expect((await containersOf(docker, env.id)).length, "warm containers").toBeGreaterThanOrEqual(1),
      { timeout: 20_000 },
    );
    await cm.close();
    expect(await containersOf(docker, env.id)).toEqual([]);
  });
});
