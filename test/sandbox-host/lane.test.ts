// The lane of a sandbox-host process (sandbox/program/lane.ts): first its protocol, spoken to the real
// sandbox-host program over real pipes; then what a user of the default environment sees of it. The
// attacks: a cancelled run whose code computes on the process's main thread, a peer that answers the
// lane with another call's outcome, and code that holds the main thread past the pings' patience.
import { type ChildProcess, spawn } from "node:child_process";
import type { Duplex } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { sandboxHostEnvironment } from "../../environments/sandbox-host/index.js";
import { sandboxHostCommand } from "../../environments/sandbox-host/program.js";
import { LANE_ANSWER_WINDOW_MS } from "../../environments/wire/wire-sandbox.js";
import { type Environment, LANE_FD, type Report } from "../../sandbox/contract/index.js";
import { codeMode } from "../../src/defaults.js";
import { Toolset, tool, UserError } from "../../src/index.js";
import { sandboxChildren } from "./children.js";

const LIMITS = {
  timeoutMs: 10_000,
  cpuTimeMs: 10_000,
  memoryMb: 64,
  maxLogChars: 1_000,
  maxResultChars: 1_000,
};

/** The sandbox-host program with a lane, and its reports as they come. */
function startHost() {
  const program = sandboxHostCommand();
  const child: ChildProcess = spawn(program.command, [...program.args, "--lane"], {
    stdio: ["pipe", "pipe", "pipe", "pipe"],
  });
  const lane = child.stdio[LANE_FD] as Duplex;
  const reports: Report[] = [];
  const waiters: (() => void)[] = [];
  let pending = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    pending += chunk.toString();
    for (let end = pending.indexOf("\n"); end >= 0; end = pending.indexOf("\n")) {
      reports.push(JSON.parse(pending.slice(0, end)) as Report);
      pending = pending.slice(end + 1);
    }
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  /** The next report that matches, waiting for it. */
  const next = async <T extends Report["type"]>(type: T): Promise<Extract<Report, { type: T }>> => {
    for (;;) {
      const index = reports.findIndex((report) => report.type === type);
      if (index >= 0) return reports.splice(index, 1)[0] as Extract<Report, { type: T }>;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  const command = (message: object) => child.stdin!.write(`${JSON.stringify(message)}\n`);
  const answer = (message: object) => lane.write(`${JSON.stringify(message)}\n`);
  return { child, next, command, answer, exited };
}

const hosts: ChildProcess[] = [];
const environments: Environment[] = [];
afterEach(async () => {
  for (const child of hosts.splice(0)) child.kill("SIGKILL");
  await Promise.all(environments.splice(0).map((environment) => environment.close()));
});

describe("the lane, spoken to the sandbox-host program", () => {
  async function openRun(code: string) {
    const host = startHost();
    hosts.push(host.child);
    await host.next("hello");
    host.command({ type: "open", sandbox: 1, limits: LIMITS, lane: true });
    host.command({
      type: "exec",
      sandbox: 1,
      run: 7,
      request: { code, toolNames: { add: "add" }, limits: LIMITS },
    });
    return host;
  }

  it("a call the code awaits alone comes with lane, and its outcome on the lane resumes the code", async () => {
    const host = await openRun(
      "let s = 0; for (let i = 0; i < 3; i++) s = await tools.add({ a: s, b: 2 }); return s;",
    );
    for (let i = 0; i < 3; i++) {
      const call = await host.next("call");
      expect(call).toMatchObject({ run: 7, tool: "add", lane: true });
      const { a, b } = JSON.parse(call.args) as { a: number; b: number };
      host.answer({
        type: "result",
        run: 7,
        call: call.call,
        outcome: { ok: true, valueJson: String(a + b) },
      });
    }
    expect((await host.next("done")).outcome).toEqual({ status: "ok", valueJson: "6" });
  });

  it("a later on the lane frees the host: the outcome comes on stdin, and the code goes on", async () => {
    const host = await openRun("return await tools.add({ a: 1, b: 2 });");
    const call = await host.next("call");
    host.answer({ type: "later", run: 7, call: call.call });
    // Free again, the host answers a ping before the outcome comes.
    host.command({ type: "ping", id: 5 });
    expect((await host.next("pong")).id).toBe(5);
    host.command({ type: "result", run: 7, call: call.call, outcome: { ok: true, valueJson: "3" } });
    expect((await host.next("done")).outcome).toEqual({ status: "ok", valueJson: "3" });
  });

  it("a cancel on the lane ends the run as cancelled, and the code gets no outcome", async () => {
    const host = await openRun("await tools.add({ a: 1, b: 2 }); return 'went on';");
    await host.next("call");
    host.answer({ type: "cancel", run: 7 });
    const done = await host.next("done");
    expect(done.outcome.status).toBe("cancelled");
    expect(done.alive).toBe(false);
  });

  it("attack: an answer on the lane for another call ends the process, saying why", async () => {
    const host = await openRun("return await tools.add({ a: 1, b: 2 });");
    const call = await host.next("call");
    host.answer({ type: "result", run: 7, call: call.call + 1, outcome: { ok: true, valueJson: "3" } });
    expect((await host.next("fatal")).reason).toMatch(
      /answered call \d+ of run 7 on the lane with another message/,
    );
    expect(await host.exited).not.toBe(0);
  });

  it("a sandbox killed by a limit gives the lane back, before cordon disposes it", async () => {
    const host = startHost();
    hosts.push(host.child);
    await host.next("hello");
    const limits = { ...LIMITS, cpuTimeMs: 200 };
    host.command({ type: "open", sandbox: 1, limits, lane: true });
    const spin = { code: "while (true) {}", toolNames: {}, limits };
    host.command({ type: "exec", sandbox: 1, run: 1, request: spin });
    const killed = await host.next("done");
    expect(killed.outcome.error?.name).toBe("CpuTimeLimit");
    expect(killed.alive).toBe(false);
    host.command({ type: "open", sandbox: 2, limits: LIMITS, lane: true });
    host.command({
      type: "exec",
      sandbox: 2,
      run: 2,
      request: { code: "return 5", toolNames: {}, limits: LIMITS },
    });
    expect((await host.next("done")).outcome).toEqual({ status: "ok", valueJson: "5" });
  });

  it("a sandbox host started without a lane refuses a sandbox that asks for one", async () => {
    const { command, args } = sandboxHostCommand();
    const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] });
    hosts.push(child);
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stdin!.write(`${JSON.stringify({ type: "open", sandbox: 1, limits: LIMITS, lane: true })}\n`);
    child.stdin!.write(
      `${JSON.stringify({ type: "exec", sandbox: 1, run: 1, request: { code: "1", toolNames: {}, limits: LIMITS } })}\n`,
    );
    await expect.poll(() => out, { timeout: 10_000 }).toContain('"type":"done"');
    expect(out).toContain("started without a lane");
  });
});

describe("the lane in the default environment", () => {
  function environment(options: Parameters<typeof sandboxHostEnvironment>[0] = {}): Environment {
    const made = sandboxHostEnvironment(options);
    environments.push(made);
    return made;
  }

  it("a tool slower than the lane's window is answered later, and its value still arrives", async () => {
    const slow = tool({
      name: "slow",
      description: "Answers after a while.",
      input: z.object({ n: z.number() }),
      run: async ({ n }) => {
        await new Promise((resolve) => setTimeout(resolve, LANE_ANSWER_WINDOW_MS * 5));
        return n * 2;
      },
    });
    const cm = codeMode({ tools: new Toolset([slow]), environment: environment() });
    const outcome = await cm.run("let s = 1; for (let i = 0; i < 3; i++) s = await tools.slow({ n: s }); s");
    expect(outcome).toMatchObject({ status: "ok", value: 8 });
  });

  it("attack: a cancelled run whose code computes on the main thread makes no call after the cancel", async () => {
    const effects: string[] = [];
    const effect = tool({
      name: "effect",
      description: "Has an effect.",
      input: z.object({}),
      run: () => {
        effects.push("effect");
        return "done";
      },
    });
    const cm = codeMode({ tools: new Toolset([effect]), environment: environment() });
    const controller = new AbortController();
    const running = cm.run(
      "const end = Date.now() + 1500; while (Date.now() < end) {} await tools.effect({}); 1",
      {
        signal: controller.signal,
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    controller.abort();
    const outcome = await running;
    expect(outcome.status).toBe("cancelled");
    expect(effects).toEqual([]);
    expect((await cm.run("2")).value).toBe(2);
  }, 20_000);

  it("code that holds the main thread longer than the pings wait is not taken for a hung process", async () => {
    const cm = codeMode({
      tools: new Toolset([]),
      environment: environment({ heartbeatMs: 100, hangTimeoutMs: 500 }),
    });
    const outcome = await cm.run("const end = Date.now() + 2000; while (Date.now() < end) {} 'finished'");
    expect(outcome).toMatchObject({ status: "ok", value: "finished" });
  }, 20_000);

  it("a sandbox with a lane has its process to itself; without lanes, one tenant's sandboxes share", async () => {
    const open = async (lanes: boolean) => {
      const env = environment({ processes: 1, lanes });
      const sandboxes = await Promise.all([1, 2].map(() => env.open(LIMITS)));
      const processes = sandboxChildren().length;
      await Promise.all(sandboxes.map((sandbox) => sandbox.dispose()));
      await env.close();
      return processes;
    };
    expect(await open(true)).toBe(2);
    expect(await open(false)).toBe(1);
  }, 30_000);

  it("lanes must be true or false", () => {
    expect(() => sandboxHostEnvironment({ lanes: "yes" as unknown as boolean })).toThrow(UserError);
  });
});
