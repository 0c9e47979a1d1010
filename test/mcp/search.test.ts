/** `cordon mcp --search-tools on`: names only in run_code's description, signatures from search_tools. */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, SHOP_TOOLS } from "../cli/helpers.js";
import { type Connected, connectStdio, runCode, textOf } from "./helpers.js";

let mcp: Connected;

beforeAll(async () => {
  ensureBuilt();
  mcp = await connectStdio(["--tools", SHOP_TOOLS, "--search-tools", "on"]);
}, 60_000);

afterAll(async () => {
  await mcp?.close();
});

describe("search_tools for large catalogs (official MCP client)", () => {
  it("lists run_code with tool names only, and search_tools", async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["run_code", "search_tools"]);
    const description = tools[0]!.description ?? "";
    expect(description).toContain("refund_order(args?: Record<string, unknown>): Promise<unknown>;");
    expect(description).not.toContain("Why, in a few words");
  });

  it("search_tools declares the matching tools' signatures and documentation", async () => {
    const result = await mcp.client.callTool({
      name: "search_tools",
      arguments: { query: "refund an order" },
    });
    expect(result.isError).toBeFalsy();
    const text = textOf(result);
    expect(text).toMatch(/refund_order\(args: \{/);
    expect(text).toContain("Why, in a few words");
  });

  it("search_tools without a query is an error result; code still calls every tool", async () => {
    const empty = await mcp.client.callTool({ name: "search_tools", arguments: { query: " " } });
    expect(empty.isError).toBe(true);
    const run = await runCode(mcp.client, `return (await tools.find_customers({ query: "ada" }))[0].id;`);
    expect(textOf(run)).toContain('"c-1"');
  });
});
