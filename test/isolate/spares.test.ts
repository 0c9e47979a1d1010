import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import ivm from "isolated-vm";
import { describe, expect, it, vi } from "vitest";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import type { Sandbox, SandboxLimits } from "../../sandbox/contract/index.js";
import { LIMITS, makeBridge, resultOf, sleep } from "./helpers.js";

/** An isolated-vm module whose isolates are recorded, with the memory limit each was made with. */
function countingIvm() {
  const isolates: { isolate: ivm.Isolate; memoryLimit: number | undefined }[] = [];
  class CountingIsolate extends ivm.Isolate {
    constructor(options?: ivm.IsolateOptions) {
      super(options);
      isolates.push({ isolate: this, memoryLimit: options?.memoryLimit });
    }
  }
  const module = Object.create(ivm, { Isolate: { value: CountingIsolate } }) as typeof ivm;
  const live = () => isolates.filter(({ isolate }) => !isolate.isDisposed).length;
  return { module, isolates, live };
}

/** Spares are made on a later turn of the event loop: how long and how often a test looks for them. */
const SPARES_MADE = { timeout: 5_000, interval: 5 };

async function run(sandbox: Sandbox, code: string, limits: SandboxLimits = LIMITS): Promise<unknown> {
  const outcome = await sandbox.execute(
    { code, toolNames: {}, limits },
    makeBridge(),
    new AbortController().signal,
  );
  expect(outcome.status, JSON.stringify(outcome.error)).toBe("ok");
  return resultOf(outcome);
}

describe("isolate environment: warm spares", () => {
  it("hands out a ready spare once, and makes the next one after it is taken", async () => {
    const ivmCounted = countingIvm();
    const environment = isolateEnvironment({ ivm: ivmCounted.module });
    const first = await environment.open(LIMITS);
    // The first open creates its own isolate, then one spare follows.
    await vi.waitFor(() => expect(ivmCounted.isolates).toHaveLength(2), SPARES_MADE);
    await sleep(20);
    expect(ivmCounted.isolates.length).toBe(2);

    const second = await environment.open(LIMITS);
    expect(second).not.toBe(first);
    // The spare was taken (no isolate was created for this open); its replacement comes next.
    await vi.waitFor(() => expect(ivmCounted.isolates).toHaveLength(3), SPARES_MADE);
    const third = await environment.open(LIMITS);
    expect(new Set([first, second, third]).size).toBe(3);

    // A spare is a fresh sandbox: nothing of another sandbox's runs is visible in it.
    await run(first, "globalThis.mark = 'first';");
    expect(await run(second, "return typeof mark;")).toBe("undefined");
    expect(await run(third, "return typeof mark;")).toBe("undefined");
    await environment.close();
  });

  it("never hands the same sandbox to two opens, even when they race for one spare", async () => {
    const environment = isolateEnvironment({ warm: 1 });
    await (await environment.open(LIMITS)).dispose();
    const opened = await Promise.all(Array.from({ length: 6 }, () => environment.open(LIMITS)));
    expect(new Set(opened).size).toBe(6);
    const values = await Promise.all(
      opened.map((sandbox, i) => run(sandbox, `globalThis.n = (globalThis.n ?? 0) + ${i + 1}; return n;`)),
    );
    expect(values).toEqual([1, 2, 3, 4, 5, 6]);
    await environment.close();
  });

  it("disposes its spares on close, including one still being made", async () => {
    const ivmCounted = countingIvm();
    const environment = isolateEnvironment({ ivm: ivmCounted.module, warm: 2 });
    const sandbox = await environment.open(LIMITS);
    await vi.waitFor(() => expect(ivmCounted.isolates).toHaveLength(3), SPARES_MADE);
    expect(ivmCounted.live()).toBe(3);
    await environment.close();
    expect(sandbox.alive).toBe(false);
    expect(ivmCounted.live()).toBe(0);
    await sleep(20);
    expect(ivmCounted.isolates.length).toBe(3);

    // Closed right after an open: the spare scheduled by it is never made, or disposed when it is.
    const other = countingIvm();
    const closing = isolateEnvironment({ ivm: other.module });
    await closing.open(LIMITS);
    await closing.close();
    await sleep(50);
    expect(other.live()).toBe(0);
  });

  it("makes no spare with warm: 0", async () => {
    const ivmCounted = countingIvm();
    const environment = isolateEnvironment({ ivm: ivmCounted.module, warm: 0 });
    const first = await environment.open(LIMITS);
    await sleep(50);
    expect(ivmCounted.isolates.length).toBe(1);
    await first.dispose();
    await environment.open(LIMITS);
    await sleep(50);
    // The second sandbox reuses the first one's isolate; a spare would have been a second isolate.
    expect(ivmCounted.isolates.length).toBe(1);
    await environment.close();
    expect(ivmCounted.live()).toBe(0);
  });

  it("rejects a warm count that is not a whole number of 0 or more", () => {
    expect(() => isolateEnvironment({ warm: -1 })).toThrow(/warm must be a whole number/);
    expect(() => isolateEnvironment({ warm: 1.5 })).toThrow(/warm must be a whole number/);
    expect(() => isolateEnvironment({ warm: Number.NaN })).toThrow(/warm must be a whole number/);
  });

  it("rejects a syncCalls that is not true or false", () => {
    const options = { syncCalls: "no" } as unknown as Parameters<typeof isolateEnvironment>[0];
    expect(() => isolateEnvironment(options)).toThrow(/syncCalls must be true or false; got no/);
  });

  it("hands out spares only for the limits they were made with", async () => {
    const ivmCounted = countingIvm();
    const environment = isolateEnvironment({ ivm: ivmCounted.module });
    const small = { ...LIMITS, memoryMb: 16 };
    const large = { ...LIMITS, memoryMb: 48 };
    const made = (memoryLimit: number) =>
      ivmCounted.isolates.filter((entry) => entry.memoryLimit === memoryLimit).length;
    await environment.open(small);
    await vi.waitFor(() => expect(made(16)).toBe(2), SPARES_MADE);
    // Other limits: a new isolate with those limits (and a spare for them), not the small spare.
    await environment.open(large);
    expect(made(48)).toBeGreaterThanOrEqual(1);
    await vi.waitFor(() => expect(made(48)).toBe(2), SPARES_MADE);
    expect(made(16)).toBe(2);
    // The small spare is still there for the small limits: this open takes it and only the refill
    // creates an isolate (without the spare it would be two: one for the open and one refill).
    await environment.open(small);
    await vi.waitFor(() => expect(made(16)).toBeGreaterThanOrEqual(3), SPARES_MADE);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(made(16)).toBe(3);
    await environment.close();
    expect(ivmCounted.live()).toBe(0);
  });

  it("does not keep the process alive", async () => {
    const root = resolve(import.meta.dirname, "../..");
    const script = `
      import { isolateEnvironment } from "./environments/in-process/index.ts";
      const limits = { timeoutMs: 5000, cpuTimeMs: 3000, memoryMb: 32, maxLogChars: 1000, maxResultChars: 1000 };
      const environment = isolateEnvironment();
      const sandbox = await environment.open(limits);
      await sandbox.execute({ code: "return 1;", toolNames: {}, limits }, { callTool: async () => ({ ok: false }), log() {} }, new AbortController().signal);
      await sandbox.dispose();
      await new Promise((resolve) => setTimeout(resolve, 100)); // the spare is made and waits, unused
      console.log("done");
    `;
    const started = Date.now();
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--no-node-snapshot", "--import", "tsx", "--input-type=module", "-e", script],
      { cwd: root, timeout: 15_000 },
    );
    expect(stdout.trim()).toBe("done");
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it("a fresh sandbox that ended normally gives its isolate to the next one, whose globals are new", async () => {
    const ivmCounted = countingIvm();
    const environment = isolateEnvironment({ ivm: ivmCounted.module, warm: 0 });
    const first = await environment.open(LIMITS);
    expect(
      await run(first, "globalThis.mark = 'left behind'; Object.prototype.polluted = 1; return 1;"),
    ).toBe(1);
    await first.dispose();
    const second = await environment.open(LIMITS);
    expect(await run(second, "return [typeof mark, typeof ({}).polluted];")).toEqual([
      "undefined",
      "undefined",
    ]);
    expect(ivmCounted.isolates.length).toBe(1);
    await environment.close();
    expect(ivmCounted.live()).toBe(0);
  });

  it("never reuses an isolate that was killed, or one that served a session of several runs", async () => {
    const ivmCounted = countingIvm();
    const environment = isolateEnvironment({ ivm: ivmCounted.module, warm: 0 });
    const killed = await environment.open(LIMITS);
    const outcome = await killed.execute(
      { code: "for (;;) {}", toolNames: {}, limits: { ...LIMITS, cpuTimeMs: 100 } },
      makeBridge(),
      new AbortController().signal,
    );
    expect(outcome.status).toBe("limit");
    await killed.dispose();
    const session = await environment.open(LIMITS);
    expect(ivmCounted.isolates.length).toBe(2);
    await run(session, "var a = 1;");
    await run(session, "return a + 1;");
    await session.dispose();
    await environment.open(LIMITS);
    expect(ivmCounted.isolates.length).toBe(3);
    await environment.close();
    expect(ivmCounted.live()).toBe(0);
  });
});
