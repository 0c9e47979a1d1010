// How a sandbox host's last words (its `fatal` report) become the outcome of the run it ends: the lane's
// watchdog names the limit the code passed, and the run is told that limit, not a crash.
import { describe, expect, it } from "vitest";
import { fatalEnding } from "../../environments/wire/endings.js";

describe("a fatal report's reason, as the run's outcome", () => {
  it("cpu: the code passed its CPU time", () => {
    expect(fatalEnding("cpu: The code used more than 500 ms of CPU time.")).toEqual({
      status: "limit",
      error: { name: "CpuTimeLimit", message: "The code used more than 500 ms of CPU time." },
    });
  });

  it("timeout: the code passed its wall clock", () => {
    expect(fatalEnding("timeout: The code did not finish within 900 ms.")).toMatchObject({
      status: "timeout",
      error: { name: "Timeout", message: "The code did not finish within 900 ms." },
    });
  });

  it("heap: the code ran out of its heap", () => {
    expect(fatalEnding("heap: The code ran out of memory.")).toMatchObject({
      status: "limit",
      error: { name: "MemoryLimit", message: "The code ran out of memory." },
    });
  });

  it("memory: the process passed its budget, told as the process running out", () => {
    const ending = fatalEnding("memory: the process used 700 MB, over its budget of 400 MB");
    expect(ending.error.name).toBe("MemoryLimit");
    expect(ending.error.message).toContain("over its budget of 400 MB");
  });

  it("anything else is a crash of the sandbox process, and a reason cannot flood the message", () => {
    const ending = fatalEnding(`cpu:${"x".repeat(5_000)}`);
    expect(ending).toMatchObject({ status: "error", error: { name: "SandboxCrashed" } });
    expect(ending.error.message.length).toBeLessThan(1_000);
  });
});
