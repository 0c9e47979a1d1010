/**
 * Attack: end a run while its code waits for a tool call it awaits alone, and let the answer come after
 * the sandbox is gone. Such a call is offered to the host synchronously and, when its tool answers
 * later, settled through the entry like any call. (When the guest waited inside isolated-vm's
 * applySyncPromise instead, isolated-vm 5 aborted the whole process, a use of freed memory, when such a
 * call was answered after its isolate was disposed.) The harness does it in the in-process environment,
 * where the agent's own process is the one at stake, by the wall clock, by cancellation, by closing code
 * mode, through an environment's own bridge that answers a moment after a cancellation, by a
 * cancellation just as the call enters (a call left unanswered then must not hold an isolate thread for
 * ever, or the process never exits), and from inside a synchronous answer (a tool that cancels its own
 * run, so the isolate is killed before isolated-vm has taken the answer). It runs in a child process so
 * this test sees it die or hang.
 */

import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const HARNESS = fileURLToPath(new URL("./fixtures/end-while-waiting.ts", import.meta.url));

describe("a run ended while its code waits inside a tool call", () => {
  for (const engine of ["isolate", "quickjs"] as const) {
    it(`[${engine}] leaves the host process alive and able to exit whenever the answer comes, and the next run works`, async () => {
      const { code, signal, stdout, stderr } = await new Promise<{
        code: number | null;
        signal: string | null;
        stdout: string;
        stderr: string;
      }>((resolve) => {
        const child = execFile(
          process.execPath,
          [
            "--no-node-snapshot",
            "--import",
            "tsx",
            HARNESS,
            // A QuickJS sandbox takes a new WebAssembly instance: fewer rounds keep it within the time.
            ...(engine === "quickjs" ? ["20", "quickjs"] : ["40"]),
          ],
          { timeout: 120_000, maxBuffer: 4 * 1024 * 1024 },
          (_error, out, err) =>
            resolve({ code: child.exitCode, signal: child.signalCode, stdout: out, stderr: err }),
        );
      });
      expect({ code, signal, stderr: stderr.slice(-2_000) }).toEqual({ code: 0, signal: null, stderr: "" });
      const lines = stdout
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines).toEqual([
        { way: "wall clock", statuses: ["timeout"] },
        { way: "wall clock, answered while idle", statuses: ["timeout"] },
        { way: "cancel", statuses: ["cancelled"] },
        { way: "close", statuses: ["cancelled"] },
        { way: "own bridge answers late", statuses: ["cancelled"] },
        { way: "stopped as the call enters", statuses: ["cancelled"] },
        { way: "cancelled inside a synchronous answer", statuses: ["cancelled"] },
        { next: { status: "ok", value: "late" } },
        { survived: true, answered: expect.any(Number) },
      ]);
    }, 150_000);
  }
});
