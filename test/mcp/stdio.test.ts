/**
 * `cordon mcp` over stdio, as an MCP client sees it: the official SDK client talks to the real cordon
 * process, which serves the shop's local tools and a real upstream MCP server's tools through run_code.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, SHOP_TOOLS } from "../cli/helpers.js";
import { type Connected, connectStdio, runCode, textOf, UPSTREAM_COMMAND } from "./helpers.js";

let mcp: Connected;

beforeAll(async () => {
  ensureBuilt();
  mcp = await connectStdio([
    "--tools",
    SHOP_TOOLS,
    "--upstream",
    `calc=${UPSTREAM_COMMAND}`,
    "--approve",
    "none",
  ]);
}, 60_000);

afterAll(async () => {
  await mcp?.close();
});

describe("cordon mcp over stdio (official MCP client, real upstream server)", () => {
  it("lists one run_code tool whose description carries the instructions and every declaration", async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["run_code"]);
    const [runCodeTool] = tools;
    expect(runCodeTool!.inputSchema.properties).toHaveProperty("code");
    const description = runCodeTool!.description ?? "";
    expect(description).toContain("## Running code with run_code");
    expect(description).toMatch(/find_customers\(args: \{/);
    expect(description).toMatch(/calc__add\(args: \{/);
    expect(description).toContain('From the MCP server "calc", where it is called add');
  });

  it("code calls a local tool and an upstream tool in one run; structured content arrives as data", async () => {
    const result = await runCode(
      mcp.client,
      `const [c] = await tools.find_customers({ query: "dana" });
       const { sum } = await tools.calc__add({ a: 40, b: 2 });
       const shout = await tools.calc__echo({ text: "hi" });
       return { name: c.name, sum, shout };`,
    );
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain('{"name":"Dana Smith","sum":42,"shout":"HI"}');
  });

  it("arguments are validated on the host against the upstream's JSON Schema before it sees them", async () => {
    const result = await runCode(
      mcp.client,
      `try { await tools.calc__add({ a: "x", b: 2 }); } catch (e) { return [e.kind, e.message]; }`,
    );
    expect(textOf(result)).toContain('"invalid_arguments"');
    expect(textOf(result)).toMatch(/- a: expected number/);
  });

  it("an upstream result with isError rejects inside the sandbox with the upstream's message", async () => {
    const result = await runCode(
      mcp.client,
      `try { await tools.calc__fail({ message: "no such repo" }); } catch (e) { return [e.kind, e.tool, e.message]; }`,
    );
    expect(textOf(result)).toContain('["error","calc__fail","upstream says: no such repo"]');
  });

  it("a run that failed is an MCP result with isError, and its report says where", async () => {
    const result = await runCode(mcp.client, "const x = 1;\nundefinedFunction(x);");
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/ReferenceError/);
    expect(textOf(result)).toMatch(/line 2/);
  });

  it("with --approve none and a client without elicitation, a gated call is denied, never run", async () => {
    const result = await runCode(
      mcp.client,
      `try { await tools.refund_order({ order_id: "A115", reason: "late" }); return "ran"; } catch (e) { return e.kind; }`,
    );
    expect(textOf(result)).toContain('"denied"');
    const order = await runCode(mcp.client, `return (await tools.get_order({ order_id: "A115" })).status;`);
    expect(textOf(order)).toContain('"late"');
  });

  it("an upstream tool annotated destructive is gated like a local one", async () => {
    const result = await runCode(
      mcp.client,
      `try { return await tools.calc__delete_everything({}); } catch (e) { return e.kind; }`,
    );
    expect(textOf(result)).toContain('"denied"');
  });

  it("an upstream tool with no annotations is gated too (MCP's defaults: it may destroy something)", async () => {
    const result = await runCode(
      mcp.client,
      `try { return await tools.calc__touch({}); } catch (e) { return e.kind; }`,
    );
    expect(textOf(result)).toContain('"denied"');
    const readOnly = await runCode(mcp.client, `return await tools.calc__echo({ text: "hi" });`);
    expect(textOf(readOnly)).toContain('"HI"');
  });

  it("when an upstream announces new tools, cordon relists them and tells its client", async () => {
    const before = mcp.listChanged();
    const added = await runCode(
      mcp.client,
      `return await tools.calc__add_tool({ name: "greet", reply: "hello" });`,
    );
    expect(textOf(added)).toContain("added greet");
    await expect.poll(() => mcp.listChanged(), { timeout: 30_000 }).toBeGreaterThan(before);
    const { tools } = await mcp.client.listTools();
    expect(tools[0]!.description).toMatch(/calc__greet\(/);
    const greeted = await runCode(mcp.client, "return await tools.calc__greet();");
    expect(textOf(greeted)).toContain('"hello"');
  });

  it("a tool name the server does not have is an error result that names the ones it has", async () => {
    const result = await mcp.client.callTool({ name: "find_customers", arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("This server has run_code");
  });
});
