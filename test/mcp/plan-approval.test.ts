/**
 * A run_code call of `cordon mcp --plan` over HTTP, with the official MCP client: the code's plan is
 * decided at once on cordon's approval page, which lists every effect with its arguments; allowed, each
 * effect runs once and the read is not run again; denied, the code sees each effect denied.
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import { tool } from "../../src/index.js";
import { ToolCatalog } from "../../src/mcp/catalog.js";
import { CodeHost } from "../../src/mcp/code-host.js";
import { type HttpServing, serveHttp } from "../../src/mcp/http.js";
import { textOf } from "./helpers.js";

const ran: string[] = [];

const listOrders = tool({
  name: "list_orders",
  description: "Lists the orders to refund.",
  run: () => {
    ran.push("read");
    return ["A1", "A2"];
  },
});
const refund = tool({
  name: "refund",
  description: "Refunds an order.",
  input: z.object({ order: z.string(), amount: z.number() }),
  effect: true,
  preview: ({ order }) => ({ order, status: "refunded" }),
  run: ({ order, amount }) => {
    ran.push(`refund ${order} ${amount}`);
    return { order, status: "refunded" };
  },
});

const REFUNDS = `
const done = [];
for (const order of await tools.list_orders({})) {
  try { done.push((await tools.refund({ order, amount: 10 })).status); } catch (e) { done.push(e.kind); }
}
return done;`;

const opened: { serving: HttpServing; host: CodeHost; client: Client }[] = [];

afterEach(async () => {
  for (const { serving, host, client } of opened.splice(0)) {
    await client.close().catch(() => {});
    await serving.close();
    await host.close();
  }
  ran.length = 0;
});

async function serve(): Promise<{ client: Client; logs: string[] }> {
  const logs: string[] = [];
  const host = new CodeHost({
    catalog: new ToolCatalog({ local: [listOrders, refund], upstreams: [], timeoutMs: 5_000, log: () => {} }),
    environment: isolateEnvironment(),
    plan: true,
  });
  const serving = await serveHttp({
    host,
    approve: "web",
    version: "test",
    port: 0,
    log: (line) => logs.push(line),
  });
  const client = new Client({ name: "plan-approval-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(serving.url)));
  opened.push({ serving, host, client });
  return { client, logs };
}

async function pageUrlFromLog(logs: string[]): Promise<string> {
  for (let i = 0; i < 400; i++) {
    for (const line of logs) {
      const match = /open (http:\/\/\S+) within/.exec(line);
      if (match) return match[1]!;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no approval URL in the log: ${logs.join("\n")}`);
}

async function decideOnPage(url: string, decision: "allow" | "deny"): Promise<string> {
  const page = await (await fetch(url)).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
  const posted = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: new URL(url).origin,
      "sec-fetch-site": "same-origin",
    },
    body: new URLSearchParams({ csrf, decision }).toString(),
  });
  expect(posted.status).toBe(200);
  return page;
}

describe("cordon mcp --plan: the approval page shows the whole plan", () => {
  it("lists every effect with its arguments on one page; allowed, each runs once and the read is not run again", async () => {
    const { client, logs } = await serve();
    const call = client.callTool({ name: "run_code", arguments: { code: REFUNDS } }, undefined, {
      timeout: 60_000,
    }) as Promise<CallToolResult>;
    const url = await pageUrlFromLog(logs);
    expect(ran).toEqual(["read"]);
    const page = await decideOnPage(url, "allow");
    expect(page).toContain("Carry out a plan of 2 calls?");
    expect(page).toMatch(/<code>refund<\/code><ul class="args"><li><code>order: &#34;A1&#34;<\/code><\/li>/);
    expect(page).toContain("order: &#34;A2&#34;");
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain('["refunded","refunded"]');
    expect(ran).toEqual(["read", "refund A1 10", "refund A2 10"]);
  });

  it("denied on the page, the code sees each effect denied and none runs", async () => {
    const { client, logs } = await serve();
    const call = client.callTool({ name: "run_code", arguments: { code: REFUNDS } }, undefined, {
      timeout: 60_000,
    }) as Promise<CallToolResult>;
    await decideOnPage(await pageUrlFromLog(logs), "deny");
    const result = await call;
    expect(textOf(result)).toContain('["denied","denied"]');
    expect(ran).toEqual(["read"]);
  });
});
