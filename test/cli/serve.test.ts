/**
 * `cordon serve`, `cordon run --env remote` and `--env docker`, and `cordon image build`: the command as
 * processes, against real servers on 127.0.0.1 and the real Docker engine.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_MAX_SANDBOXES, defaultSandboxesPerClient } from "../../environments/remote/defaults.js";
import { remoteEnvironment } from "../../environments/remote/index.js";
import { type CodeRunResult, codeMode, Toolset } from "../../src/index.js";
import { DOCKER_SUITES, engine } from "../docker/helpers.js";
import { CORDON_BIN, cordon, ensureBuilt, root, SHOP_TOOLS } from "./helpers.js";

const TOKEN = "cli-serve-token-0123456789";
const servers: ChildProcess[] = [];

beforeAll(() => ensureBuilt(), 120_000);
afterAll(() => {
  for (const server of servers) server.kill("SIGKILL");
});

/** Starts `cordon serve` on a free port; resolves with its URL once it says it is listening. */
function startServe(
  env: NodeJS.ProcessEnv = { CORDON_TOKEN: TOKEN },
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [CORDON_BIN, "serve", "--port", "0"], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  servers.push(child);
  return new Promise((resolve, reject) => {
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /at (ws:\/\/[^\s,]+)/.exec(stderr);
      if (match) resolve({ url: match[1]!, child });
    });
    child.on("exit", (code) => reject(new Error(`cordon serve exited with ${code}: ${stderr}`)));
  });
}

describe("cordon serve and --env remote", () => {
  it("serves sandboxes that `cordon run --env remote` uses, and stops on SIGTERM", async () => {
    const { url, child } = await startServe();
    const run = await cordon(
      ["run", "examples/shop/task.ts", "--tools", SHOP_TOOLS, "--env", "remote", "--json"],
      {
        env: { CORDON_REMOTE_URL: url, CORDON_REMOTE_TOKEN: TOKEN },
        timeoutMs: 60_000,
      },
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).status).toBe("ok");
    const wrong = await cordon(["run", "-", "--tools", SHOP_TOOLS, "--env", "remote"], {
      input: "1",
      env: { CORDON_REMOTE_URL: url, CORDON_REMOTE_TOKEN: "not-the-token-at-all" },
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stdout + wrong.stderr).toContain("refused the token (unauthorized)");
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 90_000);

  it("a client that holds its share of idle sessions (8 of the default 16) makes another client's `cordon run --env remote` wait for no sandbox process", async () => {
    const { url } = await startServe();
    const holder = codeMode({
      tools: new Toolset([]),
      environment: remoteEnvironment({ url, token: TOKEN }),
      state: "session",
    });
    try {
      let refused: CodeRunResult | undefined;
      for (let held = 0; refused === undefined; held++) {
        const run = await holder.run("var held = 1;", { session: `idle-${held}` });
        if (run.status !== "ok") refused = run;
      }
      const other = await cordon(["run", "-", "--tools", SHOP_TOOLS, "--env", "remote", "--json"], {
        input: "6 * 7",
        env: { CORDON_REMOTE_URL: url, CORDON_REMOTE_TOKEN: TOKEN },
        timeoutMs: 60_000,
      });
      expect(JSON.parse(other.stdout)).toMatchObject({ status: "ok", value: 42 });
      expect(other.code).toBe(0);
      expect(refused.error?.message).toContain(
        `already holds ${defaultSandboxesPerClient(DEFAULT_MAX_SANDBOXES)} of the sandbox server's ${DEFAULT_MAX_SANDBOXES} sandboxes, its share`,
      );
    } finally {
      await holder.close();
    }
  }, 120_000);

  it("refuses to start without a token in CORDON_TOKEN", async () => {
    const { code, stderr } = await cordon(["serve", "--port", "0"], { env: { CORDON_TOKEN: "" } });
    expect(code).toBe(2);
    expect(stderr).toContain("cordon serve reads its token from CORDON_TOKEN");
  });
});

describe.runIf(DOCKER_SUITES)("cordon with Docker", () => {
  it("`cordon run --env docker` runs the task in a container", async () => {
    const { code, stdout } = await cordon(
      ["run", "examples/shop/task.ts", "--tools", SHOP_TOOLS, "--env", "docker", "--json"],
      {
        timeoutMs: 90_000,
      },
    );
    expect(code).toBe(0);
    expect(JSON.parse(stdout).status).toBe("ok");
  }, 120_000);

  it("`cordon image build --tag` builds the sandbox image with no registry", async () => {
    const tag = "cordon-sandbox:cli-test";
    const { code, stdout } = await cordon(["image", "build", "--tag", tag], { timeoutMs: 180_000 });
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(tag);
    const image = await engine().getImage(tag).inspect();
    expect(image.Config.User).toBe("10001:10001");
    await engine().getImage(tag).remove();
  }, 200_000);
});

describe("cordon image build without an engine to reach", () => {
  it("says which engine it could not reach and what to do, exits 1, and does not crash on the half-sent build", async () => {
    const { code, stderr } = await cordon(["image", "build", "--tag", "cordon-sandbox:unreachable"], {
      env: { DOCKER_HOST: `unix://${root}/no-engine-here.sock` },
    });
    expect(code).toBe(1);
    expect(stderr).toContain("Cannot reach unix://");
    expect(stderr).toContain("make docker-engine");
    // The build folder is never packed, so nothing fails after it is removed.
    expect(stderr).not.toContain("Unhandled");
    expect(stderr).not.toContain("node:events");
  }, 60_000);
});
