import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  type HostProcessSettings,
  SandboxHostProcess,
} from "../../environments/sandbox-host/host-process.js";
import { type ExecutionOutcome, PROTOCOL_VERSION, type SandboxLimits } from "../../sandbox/contract/index.js";
import { makeBridge } from "../isolate/helpers.js";

const FAKE = fileURLToPath(new URL("./fixtures/fake-host.mjs", import.meta.url));
const LIMITS: SandboxLimits = {
  timeoutMs: 2_000,
  cpuTimeMs: 1_000,
  memoryMb: 32,
  maxLogChars: 100,
  maxResultChars: 1_000,
};

const started: SandboxHostProcess[] = [];
afterEach(async () => {
  for (const process of started.splice(0))
    process.kill({ status: "cancelled", error: { name: "Done", message: "test over" } });
});

/** A real child process running the scripted peer in `mode`. */
function fakeHost(mode: string, settings: Partial<HostProcessSettings> = {}): SandboxHostProcess {
  const process = new SandboxHostProcess(
    {
      program: { command: globalThis.process.execPath, args: [FAKE, mode, String(PROTOCOL_VERSION)] },
      maxRssMb: 1_000,
      maxThreads: 100,
      heartbeatMs: 50,
      hangTimeoutMs: 300,
      startTimeoutMs: 5_000,
      ...settings,
    },
    () => {},
  );
  started.push(process);
  return process;
}

async function runIn(process: SandboxHostProcess): Promise<ExecutionOutcome> {
  await process.started;
  const sandbox = process.open(LIMITS);
  return sandbox.execute(
    { code: "return 1", toolNames: {}, limits: LIMITS },
    makeBridge(),
    new AbortController().signal,
  );
}

describe("sandbox host faults: a misbehaving sandbox process ends its runs with a clear error, never the host", () => {
  it("a well-behaved peer's result comes through (the fixture works)", async () => {
    const outcome = await runIn(fakeHost("ok"));
    expect(outcome).toEqual({ status: "ok", valueJson: "42" });
  });

  it("a line that is not JSON ends the sandbox process with a protocol error", async () => {
    const process = fakeHost("garbage");
    const outcome = await runIn(process);
    expect(outcome.status).toBe("error");
    expect(outcome.error?.message).toMatch(/sent a message cordon cannot accept \(Not JSON/);
    expect(outcome.error?.message).toMatch(/agent's process is fine/);
    await process.exited;
    expect(process.state).toBe("dead");
  });

  it("a message over the size cap ends the sandbox process before the host buffers it all", async () => {
    const outcome = await runIn(fakeHost("oversized", { hangTimeoutMs: 60_000 }));
    expect(outcome.status).toBe("error");
    expect(outcome.error?.message).toMatch(/longer than the protocol's cap of 16777216 bytes/);
  });

  it("a report for a run that is not running is a protocol violation", async () => {
    const outcome = await runIn(fakeHost("stray"));
    expect(outcome.error?.message).toMatch(/for run \d+, which is not running/);
  });

  it("a flood of console lines beyond what the run's limits allow ends the sandbox process", async () => {
    const outcome = await runIn(fakeHost("flood", { hangTimeoutMs: 60_000 }));
    expect(outcome.status).toBe("error");
    expect(outcome.error?.message).toMatch(/sent more than \d+ messages/);
  });

  it("a process that crashes mid-run ends the run as crashed, naming the signal", async () => {
    const outcome = await runIn(fakeHost("crash-on-exec"));
    expect(outcome.status).toBe("error");
    expect(outcome.error?.name).toBe("SandboxCrashed");
    expect(outcome.error?.message).toMatch(/ended by SIGSEGV/);
  });

  it("a process that stops answering pings is killed as unresponsive", async () => {
    const process = fakeHost("silent");
    await process.started;
    await process.exited;
    const sandbox = process.open.bind(process);
    expect(process.state).toBe("dead");
    expect(() => sandbox(LIMITS)).toThrow(/stopped responding \(it did not answer a ping for \d+ ms\)/);
  });

  it("a run the process never ends is stopped at its timeout plus a grace, and the process is killed", async () => {
    const process = fakeHost("ignore-exec", { hangTimeoutMs: 60_000 });
    await process.started;
    const limits = { ...LIMITS, timeoutMs: 100 };
    const outcome = await process
      .open(limits)
      .execute({ code: "return 1", toolNames: {}, limits }, makeBridge(), new AbortController().signal);
    expect(outcome.status).toBe("timeout");
    expect(outcome.error?.message).toMatch(/did not finish within 100 ms .* cordon stopped the sandbox/);
    await process.exited;
  });

  it("a cancelled run the process never ends is ended by the host after a grace", async () => {
    const process = fakeHost("ignore-exec", { hangTimeoutMs: 60_000 });
    await process.started;
    const controller = new AbortController();
    const running = process
      .open(LIMITS)
      .execute({ code: "return 1", toolNames: {}, limits: LIMITS }, makeBridge(), controller.signal);
    controller.abort();
    const outcome = await running;
    expect(outcome.status).toBe("cancelled");
    await process.exited;
    expect(process.state).toBe("dead");
  });

  it("a health report over the memory budget kills the process with a memory error", async () => {
    const process = fakeHost("fat", { maxRssMb: 500 });
    await process.started;
    await process.exited;
    expect(() => process.open(LIMITS)).toThrow(/used 99999 MB of memory, over its budget of 500 MB/);
  });

  it("a health report over the thread budget kills the process", async () => {
    const process = fakeHost("threads", { maxThreads: 64 });
    await process.started;
    await process.exited;
    expect(() => process.open(LIMITS)).toThrow(/had 500 threads, over its budget of 64/);
  });

  it("a peer speaking another protocol version is refused at start, saying which versions", async () => {
    await expect(fakeHost("wrong-version").started).rejects.toThrow(
      new RegExp(`speaks protocol version 999, this cordon speaks ${PROTOCOL_VERSION}`),
    );
  });

  it("a peer that never says hello is refused after the start timeout", async () => {
    await expect(fakeHost("no-hello", { startTimeoutMs: 300 }).started).rejects.toThrow(
      /did not start within 300 ms/,
    );
  });

  it("a program that exits at start reports its last output", async () => {
    await expect(fakeHost("exit-at-start").started).rejects.toThrow(/cannot start: something is missing/);
  });
});
