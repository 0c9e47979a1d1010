// Neighbours in the default environment. The red-team's attacks: one tenant's `"x".repeat(2**27).split("")`
// ended another tenant's runs, which were told their code built something too large; 24 runs, each within
// its own 128 MB heap limit, together passed one process's 2,048 MB budget and were all killed; and runs
// started together all landed on one process, because a process's load rose only once it heard of them.
// The payloads kill a sandbox-host child process, never this one.
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { sandboxHostEnvironment } from "../../environments/sandbox-host/index.js";
import { ProcessPool } from "../../environments/sandbox-host/pool.js";
import { sandboxHostCommand } from "../../environments/sandbox-host/program.js";
import type { Environment } from "../../sandbox/contract/index.js";
import { codeMode } from "../../src/defaults.js";
import { Toolset, tool } from "../../src/index.js";
import { sandboxChildren } from "./children.js";

const CRASH = '"x".repeat(2 ** 27).split("").length';
/** Code that keeps its sandbox busy for `ms` without a tool call. */
const busy = (ms: number) => `const end = Date.now() + ${ms}; while (Date.now() < end) {} "done"`;

const environments: Environment[] = [];
afterEach(async () => {
  await Promise.all(environments.splice(0).map((environment) => environment.close()));
});

function environment(options: Parameters<typeof sandboxHostEnvironment>[0]): Environment {
  const made = sandboxHostEnvironment(options);
  environments.push(made);
  return made;
}

function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const wait = tool({
    name: "wait",
    description: "Waits.",
    input: z.object({}),
    run: () => opened.then(() => "ok"),
  });
  return { tools: new Toolset([wait]), open };
}

describe("neighbours in the default environment", () => {
  it("one session's V8 fatal error ends only its own run: another session's run beside it finishes", async () => {
    const { tools, open } = gate();
    const cm = codeMode({ tools, environment: environment({ processes: 1 }) });
    const other = cm.run("await tools.wait({}); 'finished'", { session: "tenant-b" });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const crashed = await cm.run(CRASH, { session: "tenant-a" });
    open();
    expect((await other).value).toBe("finished");
    // Alone in its process, the crash is its own: it is told so.
    expect(crashed.error?.name).toBe("MemoryLimit");
  });

  it("runs that lose their shared process are not blamed; one that had made no tool call runs again alone and finishes", async () => {
    const { tools, open } = gate();
    const cm = codeMode({ tools, environment: environment({ processes: 1, lanes: false }) });
    // One tenant (no session): all three share the process (a sandbox with a lane has one to itself).
    const victim = cm.run(busy(4_000));
    const waiting = cm.run("await tools.wait({}); 'finished'");
    await new Promise((resolve) => setTimeout(resolve, 800));
    const culprit = await cm.run(CRASH);
    open();
    const [again, called] = await Promise.all([victim, waiting]);
    expect(again.status).toBe("ok");
    expect(again.value).toBe("done");
    expect(again.logs.map((line) => line.text)).toContain(
      "The sandbox process stopped while it ran this code beside other runs; this code had made no tool call yet, so it ran again from the start, alone in a fresh process.",
    );
    // The run that had made a call is not run again, and its message blames no one.
    expect(called.error?.name).toBe("SandboxLost");
    expect(called.error?.message).toMatch(/while it ran this code and 2 other runs \(it ran out of memory\)/);
    expect(called.error?.message).toContain("need not be this code");
    // The culprit, tried again alone, crashes its process again and is then told it was its own doing.
    expect(culprit.error?.name).toBe("MemoryLimit");
  }, 30_000);

  it("sandboxes whose heap limits would pass a process's memory budget are placed on another process", async () => {
    // A 600 MB process keeps 344 MB for heaps: two sandboxes of 128 MB, not three.
    const env = environment({ processes: 1, maxRssMb: 600 });
    const limits = {
      timeoutMs: 5_000,
      cpuTimeMs: 5_000,
      memoryMb: 128,
      maxLogChars: 1_000,
      maxResultChars: 1_000,
    };
    const sandboxes = await Promise.all([1, 2, 3, 4, 5].map(() => env.open(limits)));
    expect(sandboxChildren().length).toBeGreaterThanOrEqual(3);
    await Promise.all(sandboxes.map((sandbox) => sandbox.dispose()));
  });

  it("sandboxes placed at once count against their process from the moment they are placed", async () => {
    const pool = new ProcessPool(
      {
        program: sandboxHostCommand(),
        maxRssMb: 2_048,
        maxThreads: 64,
        heartbeatMs: 1_000,
        hangTimeoutMs: 5_000,
        startTimeoutMs: 15_000,
      },
      { size: 2, max: 2, share: false, budgetMb: 1_792, waitMs: 10_000, idleMs: 30_000 },
    );
    try {
      // Both processes ready first, so that only where each seat goes is measured.
      const warm = await Promise.all(
        [1, 2].map(() => pool.place({ tenant: undefined, memoryMb: 16, alone: true })),
      );
      for (const seat of warm) seat.release();
      // Four placed in the same turn of the event loop, before any process has heard of one.
      const seats = await Promise.all(
        [1, 2, 3, 4].map(() => pool.place({ tenant: undefined, memoryMb: 64 })),
      );
      const perProcess = new Map<unknown, number>();
      for (const seat of seats) perProcess.set(seat.process, (perProcess.get(seat.process) ?? 0) + 1);
      expect([...perProcess.values()]).toEqual([2, 2]);
      for (const seat of seats) seat.release();
    } finally {
      await pool.close();
    }
  });

  it("with shareProcesses, sessions may share a process again", async () => {
    const { tools, open } = gate();
    const cm = codeMode({
      tools,
      environment: environment({ processes: 1, shareProcesses: true, lanes: false }),
    });
    const runs = ["a", "b", "c"].map((session) => cm.run("await tools.wait({}); 1", { session }));
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(sandboxChildren().length).toBe(1);
    open();
    await Promise.all(runs);
  });
});
