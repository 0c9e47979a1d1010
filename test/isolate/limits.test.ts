import { spawn } from "node:child_process";
import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import { LIMITS, makeBridge, resultOf, runOnce, sleep, toolNames } from "./helpers.js";

describe("isolate environment: limits", () => {
  it("ends a synchronous infinite loop with status timeout when the wall clock runs out", async () => {
    const { outcome, elapsed } = await runOnce("while (true) {}", {
      limits: { timeoutMs: 300, cpuTimeMs: 60_000 },
    });
    expect(outcome.status).toBe("timeout");
    expect(outcome.error?.message).toMatch(/did not finish within 300 ms \(timeoutMs\)/);
    expect(elapsed).toBeLessThan(300 * 5);
  });

  it("ends a never-settling promise with status timeout", async () => {
    const { outcome, elapsed } = await runOnce("await new Promise(() => {});", {
      limits: { timeoutMs: 200 },
    });
    expect(outcome.status).toBe("timeout");
    expect(outcome.error?.message).toContain("200 ms");
    expect(elapsed).toBeLessThan(200 * 5);
  });

  it("ends a run that uses too much CPU time with status limit", async () => {
    const { outcome, elapsed } = await runOnce("let i = 0; while (true) { i++; }", {
      limits: { timeoutMs: 20_000, cpuTimeMs: 200 },
    });
    expect(outcome.status).toBe("limit");
    expect(outcome.error?.message).toMatch(/more than 200 ms of CPU time \(cpuTimeMs\)/);
    expect(elapsed).toBeLessThan(200 * 5 + 1_000);
  });

  it("does not charge a run for time its thread waited for a core while other processes kept them all busy", async () => {
    const code = "let s = 0; for (let i = 0; i < 1e8; i++) s = (s + i * 7) % 1000003; return s;";
    const before = process.cpuUsage();
    const alone = await runOnce(code, { limits: { timeoutMs: 60_000, cpuTimeMs: 60_000 } });
    const { user, system } = process.cpuUsage(before);
    expect(alone.outcome.status).toBe("ok");
    // Half as much again as the whole process used for the same run on its own.
    const cpuTimeMs = Math.ceil(((user + system) / 1000) * 1.5);
    // Each spinner also stops on its own after 30 s, should this process die before it kills them.
    const spin = "const end = Date.now() + 30_000; while (Date.now() < end) {}";
    const spinners = Array.from({ length: availableParallelism() + 2 }, () =>
      spawn(process.execPath, ["-e", spin], { stdio: "ignore" }),
    );
    try {
      await sleep(200);
      const busy = await runOnce(code, { limits: { timeoutMs: 60_000, cpuTimeMs } });
      // It did wait for the cores: the run took longer than its CPU limit.
      expect(busy.elapsed).toBeGreaterThan(cpuTimeMs);
      expect(busy.outcome.status).toBe("ok");
      expect(resultOf(busy.outcome)).toBe(resultOf(alone.outcome));
    } finally {
      for (const spinner of spinners) spinner.kill("SIGKILL");
    }
  });

  it("does not count time spent waiting for tools as CPU time", async () => {
    const code = "for (let i = 0; i < 4; i++) await tools.sleep({ ms: 100 }); return 'ok';";
    const { outcome } = await runOnce(code, { limits: { cpuTimeMs: 100, timeoutMs: 5_000 } });
    expect(outcome.status).toBe("ok");
  });

  it("ends a run that exceeds the memory limit with status limit naming the MB", async () => {
    const code = "const keep = []; while (true) keep.push(new Array(100_000).fill(Math.random()));";
    const { outcome, sandbox } = await runOnce(code, { limits: { memoryMb: 16, timeoutMs: 10_000 } });
    expect(outcome.status).toBe("limit");
    expect(outcome.error?.message).toMatch(/ran out of memory: .*limited to 16 MB \(memoryMb\)/);
    expect(sandbox.alive).toBe(false);
  });

  it("ends a run whose signal aborts with status cancelled and kills the sandbox", async () => {
    const sandbox = await isolateEnvironment().open(LIMITS);
    const controller = new AbortController();
    const bridge = makeBridge();
    setTimeout(() => controller.abort(), 100);
    const outcome = await sandbox.execute(
      { code: "await tools.sleep({ ms: 2000 }); return 1;", toolNames: toolNames(), limits: LIMITS },
      bridge,
      controller.signal,
    );
    expect(outcome.status).toBe("cancelled");
    expect(outcome.error?.message).toMatch(/cancelled/);
    expect(sandbox.alive).toBe(false);
    await sandbox.dispose();
  });

  it("answers an already-aborted signal with cancelled without running the code", async () => {
    const controller = new AbortController();
    controller.abort();
    const { outcome, bridge } = await runOnce("await tools.add({ a: 1, b: 2 });", {
      signal: controller.signal,
    });
    expect(outcome.status).toBe("cancelled");
    expect(bridge.calls).toHaveLength(0);
  });

  it.each([
    ["a timeout", "while (true) {}", { timeoutMs: 200 }],
    ["a memory limit", "const k = []; while (true) k.push(new Array(100_000).fill(1));", { memoryMb: 16 }],
  ])(
    "marks the sandbox dead after %s and makes later executions fail clearly",
    async (_label, code, limits) => {
      const merged = { ...LIMITS, ...limits };
      const sandbox = await isolateEnvironment().open(merged);
      const bridge = makeBridge();
      const first = await sandbox.execute(
        { code, toolNames: {}, limits: merged },
        bridge,
        new AbortController().signal,
      );
      expect(first.status).not.toBe("ok");
      expect(sandbox.alive).toBe(false);
      await expect(
        sandbox.execute(
          { code: "return 1", toolNames: {}, limits: merged },
          bridge,
          new AbortController().signal,
        ),
      ).rejects.toThrow(/no longer alive/);
      await sandbox.dispose();
      await sandbox.dispose(); // safe twice
    },
  );

  it("lets no tool call reach the bridge after a timeout ended the run", async () => {
    const code = `
      (async () => { while (true) { await tools.sleep({ ms: 20 }); } })();
      await new Promise(() => {});`;
    const { outcome, bridge } = await runOnce(code, { limits: { timeoutMs: 150 } });
    expect(outcome.status).toBe("timeout");
    const callsAtEnd = bridge.calls.length;
    expect(callsAtEnd).toBeGreaterThan(0);
    await sleep(200);
    expect(bridge.calls.length).toBe(callsAtEnd);
  });

  it("ends with timeout when work left running after the result keeps the isolate busy", async () => {
    const code = "(async () => { await null; await null; while (true) {} })(); return 'returned';";
    const { outcome, elapsed } = await runOnce(code, { limits: { timeoutMs: 300, cpuTimeMs: 60_000 } });
    expect(outcome.status).toBe("timeout");
    expect(outcome.error?.message).toMatch(/The code returned, but work it left running/);
    expect(elapsed).toBeLessThan(300 * 5);
  });

  it("rejects a second execution while one is running", async () => {
    const sandbox = await isolateEnvironment().open(LIMITS);
    const bridge = makeBridge();
    const signal = new AbortController().signal;
    const first = sandbox.execute(
      { code: "await tools.sleep({ ms: 50 }); return 1;", toolNames: toolNames(), limits: LIMITS },
      bridge,
      signal,
    );
    await expect(
      sandbox.execute({ code: "return 2", toolNames: {}, limits: LIMITS }, bridge, signal),
    ).rejects.toThrow(/already running code/);
    expect(resultOf(await first)).toBe(1);
    await sandbox.dispose();
  });

  it("cancels a running execution when the sandbox is disposed", async () => {
    const sandbox = await isolateEnvironment().open(LIMITS);
    const running = sandbox.execute(
      { code: "await new Promise(() => {});", toolNames: {}, limits: LIMITS },
      makeBridge(),
      new AbortController().signal,
    );
    await sleep(20);
    await sandbox.dispose();
    const outcome = await running;
    expect(outcome.status).toBe("cancelled");
    expect(outcome.error?.message).toMatch(/closed while the code was running/);
  });
});
