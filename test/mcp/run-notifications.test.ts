/**
 * What a run_code call tells its MCP client while it runs: progress (the calls its code makes, and what
 * an upstream reports on them) when the call asked for it with a progressToken, and the code's console
 * output as log messages, at or above the level the client set.
 */

import { type Progress, ProgressNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../cli/helpers.js";
import { ASKING_COMMAND, type Connected, connectStdio, runCode, textOf } from "./helpers.js";

/** The asking test upstream, named "ask". */
const ASKING = `ask=${ASKING_COMMAND}`;

const TWO_CALLS = `await tools.ask__steps({ steps: 3 }); return await tools.ask__slow({ ms: 1 });`;

let mcp: Connected | undefined;

beforeAll(() => ensureBuilt());

afterEach(async () => {
  await mcp?.close();
  mcp = undefined;
});

describe("progress of a run_code call", () => {
  it("with a progressToken: each call's start and end, and the upstream's own progress naming it, counting up", async () => {
    mcp = await connectStdio(["--upstream", ASKING], () => ({
      action: "accept",
      content: { answer: "yes" },
    }));
    const progress: Progress[] = [];
    // The run ends on a question to the client, so every notification before it has been read.
    const code = `${TWO_CALLS.replace("return ", "")} return await tools.ask__ask({ question: "Done?" });`;
    const result = await mcp.client.callTool({ name: "run_code", arguments: { code } }, undefined, {
      onprogress: (update) => progress.push(update),
    });
    expect(textOf(result)).toContain("accept: yes");
    const messages = progress.map(({ message }) => (message ?? "").replace(/, [\d.]+ m?s\)$/, ")"));
    expect(messages.slice(0, 8)).toEqual([
      "ask__steps started (call 1)",
      'The MCP server "ask" reports on steps: step 1 (1 of 3)',
      'The MCP server "ask" reports on steps: step 2 (2 of 3)',
      'The MCP server "ask" reports on steps: step 3 (3 of 3)',
      "ask__steps finished (1 call)",
      "ask__slow started (call 2)",
      "ask__slow finished (2 calls)",
      "ask__ask started (call 3)",
    ]);
    // The time since the run began, as formatDuration writes it: "840 ms", or "1.2 s" on a busy machine.
    expect(progress[0]!.message).toMatch(/^ask__steps started \(call 1, (\d+ ms|\d+(\.\d)? s)\)$/);
    const counts = progress.map((update) => update.progress);
    expect(counts).toEqual(counts.map((_, index) => index + 1));
  });

  it("without a progressToken: no progress notification at all", async () => {
    mcp = await connectStdio(["--upstream", ASKING]);
    const received: unknown[] = [];
    mcp.client.setNotificationHandler(ProgressNotificationSchema, async (notification) => {
      received.push(notification.params);
    });
    const result = await runCode(mcp.client, TWO_CALLS);
    expect(textOf(result)).toContain("waited 1 ms");
    expect(received).toEqual([]);
  });
});

describe("console output of a run as MCP log messages", () => {
  const CONSOLE = `console.debug("d1"); console.log("l1"); console.info("i1"); console.warn("w1"); console.error("e1"); return "ok";`;

  it("arrives live by level (logger run_code); console.debug is left out until the client asks for debug", async () => {
    mcp = await connectStdio(["--upstream", ASKING]);
    await runCode(mcp.client, CONSOLE);
    expect(mcp.logs).toEqual([
      { level: "info", logger: "run_code", data: "l1" },
      { level: "info", logger: "run_code", data: "i1" },
      { level: "warning", logger: "run_code", data: "w1" },
      { level: "error", logger: "run_code", data: "e1" },
    ]);
    mcp.logs.length = 0;
    await mcp.client.setLoggingLevel("debug");
    await runCode(mcp.client, CONSOLE);
    expect(mcp.logs.map(({ level }) => level)).toEqual(["debug", "info", "info", "warning", "error"]);
  });

  it("nothing below the level set with logging/setLevel is sent", async () => {
    mcp = await connectStdio(["--upstream", ASKING]);
    await mcp.client.setLoggingLevel("warning");
    await runCode(mcp.client, CONSOLE);
    expect(mcp.logs).toEqual([
      { level: "warning", logger: "run_code", data: "w1" },
      { level: "error", logger: "run_code", data: "e1" },
    ]);
  });

  it.each(["default", "inprocess"])(
    "a line arrives while the run is still going, before its result (--env %s)",
    async (env) => {
      // The run waits on the upstream's question; the client answers it only after the line has arrived.
      const seenWhileAsked: unknown[][] = [];
      mcp = await connectStdio(["--env", env, "--upstream", ASKING], () => {
        seenWhileAsked.push([...mcp!.logs]);
        return { action: "accept", content: { answer: "yes" } };
      });
      const result = await runCode(
        mcp.client,
        `console.warn("halfway"); return await tools.ask__ask({ question: "Go on?" });`,
      );
      expect(textOf(result)).toContain("accept: yes");
      expect(seenWhileAsked).toEqual([[{ level: "warning", logger: "run_code", data: "halfway" }]]);
    },
  );
});
