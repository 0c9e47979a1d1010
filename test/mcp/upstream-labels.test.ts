// What another party's MCP server returns is untrusted unless the operator trusts it: a run that read an
// upstream result reaches the client fenced (docs/effects.md); with --trust-upstream NAME it does not.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FENCE_BEGIN, FENCE_END } from "../../src/builtins/fence.js";
import { ensureBuilt } from "../cli/helpers.js";
import { type Connected, connectStdio, runCode, textOf, UPSTREAM_COMMAND } from "./helpers.js";

let mcp: Connected;

beforeAll(async () => {
  ensureBuilt();
  mcp = await connectStdio([
    "--upstream",
    `other=${UPSTREAM_COMMAND}`,
    "--upstream",
    `ours=${UPSTREAM_COMMAND}`,
    "--trust-upstream",
    "ours",
    "--approve",
    "none",
  ]);
}, 60_000);

afterAll(async () => {
  await mcp?.close();
});

describe("cordon mcp: upstream results are labelled untrusted", () => {
  it("a run that read an upstream's result reaches the client fenced, naming the call", async () => {
    const text = textOf(
      await runCode(mcp.client, 'return await tools.other__echo({ text: "hello there" });'),
    );
    expect(text).toContain("untrusted from other__echo #1");
    const begin = text.indexOf(FENCE_BEGIN);
    expect(begin).toBeGreaterThan(0);
    expect(text.indexOf("HELLO THERE")).toBeGreaterThan(begin);
    expect(text.indexOf(FENCE_END)).toBeGreaterThan(text.indexOf("HELLO THERE"));
  });

  it("with --trust-upstream NAME, that server's results carry no label", async () => {
    const text = textOf(await runCode(mcp.client, 'return await tools.ours__echo({ text: "hello there" });'));
    expect(text).toContain("HELLO THERE");
    expect(text).not.toContain(FENCE_BEGIN);
  });
});
