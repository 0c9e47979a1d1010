/**
 * `cordon mcp --http`: the official MCP client over Streamable HTTP on 127.0.0.1, with an upstream
 * server and elicitation on the request's own stream; requests naming another host are refused.
 */

import { spawn } from "node:child_process";
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CORDON_BIN, ensureBuilt, SHOP_TOOLS } from "../cli/helpers.js";
import { type Connected, connectHttp, runCode, textOf, UPSTREAM_COMMAND } from "./helpers.js";

let mcp: Connected & { url: string };

beforeAll(async () => {
  ensureBuilt();
  mcp = await connectHttp(["--tools", SHOP_TOOLS, "--upstream", `calc=${UPSTREAM_COMMAND}`], () => ({
    action: "accept",
    content: { allow: true },
  }));
}, 60_000);

afterAll(async () => {
  await mcp?.close();
});

/** POSTs an initialize request to the server with the given Host (and Origin) header; resolves with the status. */
function postWithHost(url: string, host: string, origin?: string): Promise<number> {
  const target = new URL(url);
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "probe", version: "1" } },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        headers: {
          host,
          ...(origin === undefined ? {} : { origin }),
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("cordon mcp over Streamable HTTP (official MCP client, 127.0.0.1)", () => {
  it("serves on a loopback URL at /mcp and lists run_code with local and upstream declarations", async () => {
    expect(mcp.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["run_code"]);
    expect(tools[0]!.description).toMatch(/list_orders\(args: \{/);
    expect(tools[0]!.description).toMatch(/calc__add\(args: \{/);
  });

  it("runs code that calls local and upstream tools", async () => {
    const result = await runCode(
      mcp.client,
      `const orders = await tools.list_orders({ customer_id: "c-3" });
       const { sum } = await tools.calc__add({ a: orders.length, b: 100 });
       return sum;`,
    );
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain("106");
  });

  it("asks for approval through elicitation on the call's own stream", async () => {
    const result = await runCode(
      mcp.client,
      `return (await tools.refund_order({ order_id: "A104", reason: "damaged" })).refund_id;`,
    );
    expect(result.isError).toBeFalsy();
    expect(mcp.questions.some((q) => q.includes("A104"))).toBe(true);
  });

  it("a failed run is a result with isError", async () => {
    const result = await runCode(mcp.client, "throw new Error('nope');");
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("nope");
  });

  it("refuses a request whose Host header names another host (DNS rebinding)", async () => {
    expect(await postWithHost(mcp.url, "attacker.example")).toBe(403);
    expect(await postWithHost(mcp.url, new URL(mcp.url).host)).toBe(200);
  });
});

describe("cordon mcp --http beyond loopback", () => {
  it("--host 0.0.0.0 --no-auth keeps refusing requests that name another host (DNS rebinding), warns, and takes --allow-host names", async () => {
    const child = spawn(
      process.execPath,
      [
        CORDON_BIN,
        "mcp",
        "--tools",
        SHOP_TOOLS,
        "--http",
        "0",
        "--host",
        "0.0.0.0",
        "--allow-host",
        "cordon.box",
        "--no-auth",
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    try {
      const port = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no URL: ${stderr}`)), 30_000);
        child.stderr!.on("data", (chunk: Buffer) => {
          stderr += chunk.toString("utf8");
          const match = /serving on http:\/\/0\.0\.0\.0:(\d+)\/mcp/.exec(stderr);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
      });
      // Traffic goes to 127.0.0.1 only; the Host header is what a rebinding page would send.
      const url = `http://127.0.0.1:${port}/mcp`;
      expect(await postWithHost(url, "attacker.example")).toBe(403);
      expect(await postWithHost(url, `attacker.example:${port}`)).toBe(403);
      expect(await postWithHost(url, `127.0.0.1:${port}`, "http://attacker.example")).toBe(403);
      expect(await postWithHost(url, `127.0.0.1:${port}`)).toBe(200);
      expect(await postWithHost(url, `cordon.box:${port}`, "http://cordon.box")).toBe(200);
      expect(stderr).toContain("without authentication (--no-auth)");
    } finally {
      child.kill("SIGTERM");
    }
  });
});
