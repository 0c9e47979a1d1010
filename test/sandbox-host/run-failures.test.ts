// How a sandbox host names a run it could not start: one of the contract's closed set of run-failure
// names, never a name that leaked from whatever failed underneath.
import { describe, expect, it } from "vitest";
import { isRunFailureName, type Report } from "../../sandbox/contract/index.js";
import { SandboxHost } from "../../sandbox/program/host.js";

const limits = {
  timeoutMs: 1_000,
  cpuTimeMs: 1_000,
  memoryMb: 32,
  maxLogChars: 1_000,
  maxResultChars: 1_000,
};
const health = () => ({ rssMb: 1, cpuMs: 1 });

/** The `done` report of one run in a sandbox whose opening fails with `error`. */
async function doneWhenOpenFails(error: Error): Promise<Extract<Report, { type: "done" }>> {
  const reports: Report[] = [];
  const failing = { open: () => Promise.reject(error) };
  const host = new SandboxHost(failing, (report) => reports.push(report) > 0, health);
  host.handle({ type: "open", sandbox: 1, limits });
  host.handle({ type: "exec", sandbox: 1, run: 1, request: { code: "return 1", toolNames: {}, limits } });
  for (let i = 0; i < 50 && !reports.some((report) => report.type === "done"); i++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  const done = reports.find((report) => report.type === "done");
  if (done?.type !== "done") throw new Error("the run never ended");
  return done;
}

describe("a sandbox host's run failures", () => {
  it("keep a run-failure name of the contract (a server at capacity is SandboxBusy)", async () => {
    const busy = Object.assign(new Error("The sandbox server is busy."), { name: "SandboxBusy" });
    const done = await doneWhenOpenFails(busy);
    expect(done.outcome).toEqual({
      status: "error",
      error: { name: "SandboxBusy", message: "The sandbox server is busy." },
    });
  });

  it("name any other failure SandboxError, with its message kept", async () => {
    const other = Object.assign(new Error("The image is missing."), { name: "UserError" });
    const done = await doneWhenOpenFails(other);
    expect(done.outcome.error).toEqual({ name: "SandboxError", message: "The image is missing." });
    expect(isRunFailureName(done.outcome.error?.name)).toBe(true);
  });

  it("the closed set knows its names and nothing else", () => {
    expect(["Timeout", "MemoryLimit", "SandboxTampered", "Disposed"].every(isRunFailureName)).toBe(true);
    expect(["TypeError", "Error", "UserError", "", undefined].some(isRunFailureName)).toBe(false);
  });
});
