/**
 * Upstream MCP servers that fail: one that will not start, one that crashes, one that hangs. Each
 * becomes a clear error for the calls that needed it, and cordon's server keeps serving.
 */

import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ensureBuilt, SHOP_TOOLS } from "../cli/helpers.js";
import { type Connected, connectStdio, runCode, textOf, UPSTREAM_COMMAND } from "./helpers.js";

let mcp: Connected | undefined;
const node = process.execPath;

beforeAll(() => ensureBuilt());

afterEach(async () => {
  await mcp?.close();
  mcp = undefined;
});

async function localToolStillWorks(connected: Connected): Promise<void> {
  const result = await runCode(
    connected.client,
    `return (await tools.get_order({ order_id: "A103" })).amount;`,
  );
  expect(result.isError).toBeFalsy();
  expect(textOf(result)).toContain("38");
}

describe("upstream failures in cordon mcp", () => {
  it("an upstream command that does not exist: the description and the log say so; the rest works", async () => {
    mcp = await connectStdio([
      "--tools",
      SHOP_TOOLS,
      "--upstream",
      "ghost=cordon-test-no-such-command --flag",
    ]);
    const { tools } = await mcp.client.listTools();
    expect(tools[0]!.description).toContain(
      '- ghost: the command "cordon-test-no-such-command" was not found',
    );
    // cordon's log and its answers come on different pipes: the line may arrive after the answer.
    const logged = mcp;
    await vi.waitFor(() => expect(logged.stderr()).toContain("upstream ghost: not available"), {
      timeout: 15_000,
    });
    const call = await runCode(mcp.client, "return await tools.ghost__anything({});");
    expect(call.isError).toBe(true);
    await localToolStillWorks(mcp);
  });

  it("an upstream that exits at start: its last stderr lines explain why", async () => {
    const failing = `${node} -e "console.error('fatal: GITHUB_TOKEN is not set'); process.exit(3)"`;
    mcp = await connectStdio(["--tools", SHOP_TOOLS, "--upstream", `gh=${failing}`]);
    const { tools } = await mcp.client.listTools();
    expect(tools[0]!.description).toContain("- gh: it exited before it answered");
    expect(tools[0]!.description).toContain("fatal: GITHUB_TOKEN is not set");
    await localToolStillWorks(mcp);
  });

  it("an upstream whose tool list never ends is refused, and cordon keeps serving", async () => {
    const endless = `${node} --import tsx ${join(import.meta.dirname, "fixtures/endless-list-server.ts")}`;
    mcp = await connectStdio(["--tools", SHOP_TOOLS, "--upstream", `loop=${endless}`]);
    const { tools } = await mcp.client.listTools();
    expect(tools[0]!.description).toContain("- loop: ");
    expect(tools[0]!.description).toContain("its tool list did not end");
    await localToolStillWorks(mcp);
  });

  it("an upstream that never answers at start is given up after --upstream-start-timeout", async () => {
    const silent = `${node} -e "setInterval(() => {}, 1000)"`;
    mcp = await connectStdio([
      "--tools",
      SHOP_TOOLS,
      "--upstream",
      `mute=${silent}`,
      "--upstream-start-timeout",
      "1500",
    ]);
    const { tools } = await mcp.client.listTools();
    expect(tools[0]!.description).toContain("- mute: it did not answer within 1.5 s of starting");
    await localToolStillWorks(mcp);
  });

  it("an upstream that hangs on a call: that call times out with kind timeout; other calls go on", async () => {
    mcp = await connectStdio(["--upstream", `calc=${UPSTREAM_COMMAND}`, "--upstream-timeout", "1500"]);
    const result = await runCode(
      mcp.client,
      `let outcome;
       try { await tools.calc__slow({ ms: 60000 }); outcome = "answered"; } catch (e) { outcome = [e.kind, e.message]; }
       return { outcome, sum: (await tools.calc__add({ a: 1, b: 2 })).sum };`,
    );
    expect(textOf(result)).toContain('"outcome":["timeout","calc__slow timed out after 1.5 s."]');
    expect(textOf(result)).toContain('"sum":3');
  });

  it("an upstream that crashes mid-call: a clear error for that call; its next call starts it again", async () => {
    mcp = await connectStdio(["--tools", SHOP_TOOLS, "--upstream", `calc=${UPSTREAM_COMMAND}`]);
    const crashed = await runCode(
      mcp.client,
      `try { await tools.calc__crash({}); return "no crash"; } catch (e) { return [e.kind, e.message]; }`,
    );
    expect(textOf(crashed)).toContain('"error"');
    expect(textOf(crashed)).toContain('The MCP server \\"calc\\" stopped while running crash');
    expect(textOf(crashed)).toContain("crashing on purpose");
    await localToolStillWorks(mcp);
    const again = await runCode(mcp.client, "return (await tools.calc__add({ a: 2, b: 3 })).sum;");
    expect(again.isError).toBeFalsy();
    expect(textOf(again)).toContain("5");
    // cordon's log and its answers come on different pipes: the line may arrive after the answer.
    const logged = mcp;
    await vi.waitFor(
      () => expect(logged.stderr()).toContain("upstream calc: exited; its next call starts it again"),
      { timeout: 15_000 },
    );
  });
});
