/** The pure parts of what a run tells its client: progress messages, the forwarding bound, log levels. */

import { describe, expect, it } from "vitest";
import type { ClientLink } from "../../src/mcp/client-link.js";
import { runProgress } from "../../src/mcp/run-progress.js";
import { logLevelAllows } from "../../src/mcp/server-link.js";
import {
  forwardProgress,
  MAX_FORWARDED_PROGRESS_CHARS,
  MAX_FORWARDED_PROGRESS_PER_SECOND,
} from "../../src/mcp/upstream/progress.js";

/** A link that only keeps the progress messages it is given. */
function progressRecorder(): { link: ClientLink; messages: string[] } {
  const messages: string[] = [];
  const refuse = () => Promise.reject(new Error("not asked in this test"));
  const client = {};
  const link: ClientLink = {
    client,
    tenant: client,
    supports: () => false,
    progress: (message) => messages.push(message),
    log: () => {},
    elicit: refuse,
    createMessage: refuse,
    listRoots: refuse,
  };
  return { link, messages };
}

describe("progress told to a run's client", () => {
  it("an upstream's flood of progress is passed on only up to the forwarding rate", () => {
    const { link, messages } = progressRecorder();
    const forward = forwardProgress(link, "files", "read_file");
    for (let step = 1; step <= 1_000; step++) forward({ progress: step, total: 1_000 });
    expect(messages[0]).toBe('The MCP server "files" reports on read_file: (1 of 1000)');
    expect(messages.length).toBeGreaterThanOrEqual(MAX_FORWARDED_PROGRESS_PER_SECOND);
    expect(messages.length).toBeLessThan(1_000);
  });

  it("an upstream's progress message is put on one line and cut", () => {
    const { link, messages } = progressRecorder();
    forwardProgress(link, "files", "read_file")({ progress: 1, message: `a\nb\u202E${"x".repeat(5_000)}` });
    expect(messages[0]).toMatch(/^The MCP server "files" reports on read_file: a b x+… \(1\)$/);
    expect(messages[0]!.length).toBeLessThan(MAX_FORWARDED_PROGRESS_CHARS + 100);
  });

  it("the code's calls are numbered as they start and counted as they end; the run_code call itself is not", () => {
    const messages: string[] = [];
    const observe = runProgress((message) => messages.push(message));
    observe({ type: "started", callId: "run", name: "run_code", attempt: 1 });
    observe({ type: "started", callId: "a", name: "get_order", attempt: 1, parentCallId: "run" });
    observe({ type: "started", callId: "a", name: "get_order", attempt: 2, parentCallId: "run" });
    const failure = { kind: "timeout" as const, message: "late" };
    observe({
      type: "failed",
      callId: "a",
      name: "get_order",
      parentCallId: "run",
      error: failure,
      output: "",
      attempts: 2,
      durationMs: 5,
    });
    expect(messages.map((message) => message.replace(/, [\d.]+ m?s\)$/, ")"))).toEqual([
      "get_order started (call 1)",
      "get_order failed: timeout (1 call)",
    ]);
  });
});

describe("log levels", () => {
  it("a message goes out at or above the connection's level, never below", () => {
    expect(logLevelAllows("info", "warning")).toBe(true);
    expect(logLevelAllows("info", "info")).toBe(true);
    expect(logLevelAllows("info", "debug")).toBe(false);
    expect(logLevelAllows("error", "warning")).toBe(false);
  });
});
