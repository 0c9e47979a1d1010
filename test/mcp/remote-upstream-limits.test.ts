/**
 * The bounds cordon keeps with a remote upstream (an official-SDK MCP server over Streamable HTTP on
 * 127.0.0.1, in this process so it can be stopped and started on its port): an answer over the message
 * limit fails its call with an error naming the server and the limit while the connection goes on, in
 * JSON and SSE responses alike, and a server that is down is connected to again only after a wait that
 * grows with each failure.
 */

import { randomUUID } from "node:crypto";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { UpstreamServer } from "../../src/mcp/upstream/server.js";

const MAX_BYTES = 10_000;

/** An SDK server on 127.0.0.1 (`port` 0 for any), answering with JSON bodies or SSE streams. */
async function startSdkServer(port: number, json: boolean): Promise<{ url: string; stop(): Promise<void> }> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const http: HttpServer = createServer(async (req, res) => {
    const sessionId = req.headers["mcp-session-id"];
    let transport = typeof sessionId === "string" ? transports.get(sessionId) : undefined;
    if (!transport) {
      if (typeof sessionId === "string") {
        res.writeHead(404).end();
        return;
      }
      const server = new McpServer({ name: "limits-upstream", version: "1.0.0" });
      server.registerTool(
        "add",
        { description: "Add two numbers.", inputSchema: { a: z.number(), b: z.number() } },
        async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
      );
      server.registerTool(
        "big",
        { description: "Answers with this many characters.", inputSchema: { chars: z.number() } },
        async ({ chars }) => ({ content: [{ type: "text", text: "x".repeat(chars) }] }),
      );
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: json,
        onsessioninitialized: (id) => {
          transports.set(id, created);
        },
      });
      await server.connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(port, "127.0.0.1", resolve));
  const { port: bound } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}/mcp`,
    async stop() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await Promise.all([...transports.values()].map((transport) => transport.close()));
    },
  };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function upstreamOf(url: string, options: { reconnectDelay?: { firstMs: number; maxMs: number } } = {}) {
  const logs: string[] = [];
  const upstream = new UpstreamServer(
    { name: "calc", url: new URL(url) },
    {
      startTimeoutMs: 10_000,
      callTimeoutMs: 10_000,
      maxMessageBytes: MAX_BYTES,
      clientVersion: "test",
      log: (line) => logs.push(line),
      ...options,
    },
  );
  cleanups.push(() => upstream.close());
  const call = (tool: string, args: Record<string, unknown>) =>
    upstream.call(tool, args, new AbortController().signal);
  /** How many times cordon tried to connect and failed. */
  const failedConnections = () =>
    logs.filter((line) => line.startsWith("upstream calc: not available:")).length;
  return { upstream, call, logs, failedConnections };
}

describe("a remote upstream's message limit", () => {
  for (const json of [true, false]) {
    it(`refuses an answer over the limit in ${json ? "a JSON body" : "an SSE stream"} with an error naming the server and the limit, and goes on serving`, async () => {
      const server = await startSdkServer(0, json);
      cleanups.push(() => server.stop());
      const { upstream, call, logs } = upstreamOf(server.url);
      await upstream.start();
      expect(upstream.state).toBe("ready");
      const refused = await call("big", { chars: 50_000 }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(Error);
      expect((refused as Error).message).toMatch(
        /^The MCP server "calc" answered big with a message of 50,\d{3} bytes, over the 10,000 bytes cordon reads in one message from an upstream server; the answer was not read \(the server keeps running\)\. Ask for less at a time, or start cordon mcp with a larger --upstream-max-message <bytes>\.$/,
      );
      expect(logs).toContainEqual(
        expect.stringMatching(
          /^upstream calc: an answer of 50,\d{3} bytes, over the limit of 10,000, was not read/,
        ),
      );
      const after = await call("add", { a: 2, b: 3 });
      expect(after.content).toEqual([{ type: "text", text: "5" }]);
      expect(upstream.state).toBe("ready");
      // An answer within the limit passes whole.
      const within = await call("big", { chars: 5_000 });
      expect((within.content as { text: string }[])[0]!.text).toHaveLength(5_000);
    });
  }
});

describe("a remote upstream that is down", () => {
  it("is not connected to again until its wait has passed: calls meanwhile fail at once, saying when it is tried again", async () => {
    const first = await startSdkServer(0, false);
    const port = Number(new URL(first.url).port);
    const { upstream, call, failedConnections } = upstreamOf(first.url, {
      reconnectDelay: { firstMs: 600_000, maxMs: 600_000 },
    });
    await upstream.start();
    expect(upstream.state).toBe("ready");
    await first.stop();
    // The call that finds it gone may fail on its dropped connection; one after it connects, and fails.
    while (failedConnections() === 0) {
      await expect(call("add", { a: 1, b: 1 })).rejects.toThrow(/could not be reached/);
    }
    expect(failedConnections()).toBe(1);
    const second = await startSdkServer(port, false);
    cleanups.push(() => second.stop());
    // The server is back, but its wait has not passed: no connection is made.
    await expect(call("add", { a: 1, b: 1 })).rejects.toThrow(
      /^The MCP server "calc" is not available: .*could not be reached.*; cordon connects to it again in \d+(\.\d)? (s|min) at the earliest \(it waits longer after each failed connection, up to 10 min\)$/,
    );
    expect(failedConnections()).toBe(1);
  });

  it("is connected to again once it is back and its wait has passed", async () => {
    const first = await startSdkServer(0, false);
    const port = Number(new URL(first.url).port);
    const { upstream, call, failedConnections } = upstreamOf(first.url, {
      reconnectDelay: { firstMs: 50, maxMs: 400 },
    });
    await upstream.start();
    await first.stop();
    // While it is down, calls fail, and cordon tries it again now and then.
    while (failedConnections() < 3) {
      await call("add", { a: 1, b: 1 }).catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const second = await startSdkServer(port, false);
    cleanups.push(() => second.stop());
    for (;;) {
      const answered = await call("add", { a: 20, b: 22 }).catch(() => undefined);
      if (answered) {
        expect(answered.content).toEqual([{ type: "text", text: "42" }]);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(upstream.state).toBe("ready");
  });
});
