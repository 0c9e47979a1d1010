/**
 * The Streamable HTTP server's sessions (served in this process, the official MCP client): a session
 * a client left without its DELETE is closed once idle, the number kept at once is bounded, and the
 * result types one session's runs taught are shown to that session alone unless the server shares them.
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import { tool } from "../../src/index.js";
import { ToolCatalog } from "../../src/mcp/catalog.js";
import { CodeHost, type CodeHostOptions } from "../../src/mcp/code-host.js";
import { type HttpServing, serveHttp } from "../../src/mcp/http.js";
import { textOf } from "./helpers.js";

const echo = tool({
  name: "echo",
  description: "Echo.",
  input: z.object({ text: z.string() }),
  run: ({ text }) => text,
});

/** A tool without an output schema whose result's keys are a person's e-mail address and a project. */
const findContact = tool({
  name: "find_contact",
  description: "Find the projects of a contact, by e-mail address.",
  input: z.object({ email: z.string(), project: z.string() }),
  run: ({ email, project }) => ({ [email]: { [project]: "lead" } }),
});

const opened: { serving: HttpServing; host: CodeHost; clients: Client[] }[] = [];

afterEach(async () => {
  for (const { serving, host, clients } of opened.splice(0)) {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    await serving.close();
    await host.close();
  }
});

async function serve(
  options: { sessionIdleMs?: number; maxSessions?: number },
  hostOptions: Partial<CodeHostOptions> = {},
) {
  const host = new CodeHost({
    catalog: new ToolCatalog({ local: [echo], upstreams: [], timeoutMs: 5_000, log: () => {} }),
    environment: isolateEnvironment(),
    ...hostOptions,
  });
  const serving = await serveHttp({
    host,
    approve: "none",
    version: "test",
    port: 0,
    log: () => {},
    ...options,
  });
  const clients: Client[] = [];
  opened.push({ serving, host, clients });
  const connect = async () => {
    const client = new Client({ name: "session-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(serving.url)));
    clients.push(client);
    return client;
  };
  return { serving, connect };
}

/** The status of a tools/list request sent with this session id. */
async function statusOf(url: string, sessionId: string): Promise<number> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": sessionId,
      "mcp-protocol-version": "2025-06-18",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
  });
  await response.body?.cancel();
  return response.status;
}

function sessionOf(client: Client): string {
  const id = (client.transport as StreamableHTTPClientTransport | undefined)?.sessionId;
  if (!id) throw new Error("the client has no session id");
  return id;
}

describe("cordon mcp over HTTP: sessions", () => {
  it("a session whose client went away without a DELETE is closed once idle; a new one starts as usual", async () => {
    const { serving, connect } = await serve({ sessionIdleMs: 200 });
    const left = await connect();
    expect((await left.listTools()).tools.map((t) => t.name)).toContain("run_code");
    const id = sessionOf(left);
    // Closing the client drops its event stream and sends no DELETE: the server is not told.
    await left.close();
    // Each request is activity: one look, after the session has had time to go idle.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await statusOf(serving.url, id)).toBe(404);
    const next = await connect();
    expect((await next.listTools()).tools.map((t) => t.name)).toContain("run_code");
  });

  it("a session whose client still listens is kept however long it is quiet", async () => {
    const { serving, connect } = await serve({ sessionIdleMs: 200 });
    const listening = await connect();
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(await statusOf(serving.url, sessionOf(listening))).toBe(200);
  });

  it("keeps at most maxSessions: a new session takes the place of one whose client went away, else it is refused with a clear error", async () => {
    // A client that left without its DELETE has gone away once its session is idle (here after 300 ms).
    const { serving, connect } = await serve({ maxSessions: 2, sessionIdleMs: 300 });
    const first = await connect();
    const second = await connect();
    await expect(connect()).rejects.toThrow(/All 2 sessions of this server are answering requests/);
    const gone = sessionOf(second);
    await second.close();
    // Refused until the server has seen the second session idle; then it takes its place.
    const third = await vi.waitFor(connect, { timeout: 5_000 });
    expect(await statusOf(serving.url, gone)).toBe(404);
    expect(await statusOf(serving.url, sessionOf(first))).toBe(200);
    expect(await statusOf(serving.url, sessionOf(third))).toBe(200);
  });
});

describe("the session cap never closes a live session", () => {
  /** A session made with a bare initialize (no event stream), as a simple client makes it; its id. */
  async function initialize(url: string): Promise<{ status: number; id: string | null }> {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "bare", version: "1" },
        },
      }),
    });
    await response.text();
    return { status: response.status, id: response.headers.get("mcp-session-id") };
  }

  it("with every session used a moment ago, one more initialize is refused with 503, and the first session still answers", async () => {
    const { serving } = await serve({ maxSessions: 3 });
    const live: string[] = [];
    for (let i = 0; i < 3; i++) {
      const made = await initialize(serving.url);
      expect(made.status).toBe(200);
      live.push(made.id!);
    }
    // Each used a moment ago, none with a stream open.
    for (const id of live) expect(await statusOf(serving.url, id)).toBe(200);
    expect((await initialize(serving.url)).status).toBe(503);
    for (const id of live) expect(await statusOf(serving.url, id)).toBe(200);
  });

  it("initializes arriving at once are held to the cap: the rest get 503, and no session that was initialized is then unknown", async () => {
    const { serving } = await serve({ maxSessions: 4 });
    const made = await Promise.all(Array.from({ length: 12 }, () => initialize(serving.url)));
    const accepted = made.filter((attempt) => attempt.status === 200);
    expect(accepted).toHaveLength(4);
    expect(made.filter((attempt) => attempt.status === 503)).toHaveLength(8);
    for (const { id } of accepted) expect(await statusOf(serving.url, id!)).toBe(200);
  });

  it("a session idle past sessionIdleMs gives its place to a newcomer; one used within it does not", async () => {
    const busy = await serve({ maxSessions: 1, sessionIdleMs: 60_000 });
    expect((await initialize(busy.serving.url)).status).toBe(200);
    expect((await initialize(busy.serving.url)).status).toBe(503);
    const quiet = await serve({ maxSessions: 1, sessionIdleMs: 50 });
    const first = await initialize(quiet.serving.url);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await initialize(quiet.serving.url)).status).toBe(200);
    expect(await statusOf(quiet.serving.url, first.id!)).toBe(404);
  });
});

describe("learnt result types over HTTP: one client's results are not shown to another", () => {
  const EMAIL = "ada.lovelace@example.com";
  const PROJECT = "nightjar_launch";

  /** A server whose catalog is searched, with find_contact; `hostOptions` as the operator chose. */
  async function contactServer(hostOptions: Partial<CodeHostOptions> = {}) {
    return serve(
      {},
      {
        catalog: new ToolCatalog({
          local: [echo, findContact],
          upstreams: [],
          timeoutMs: 5_000,
          log: () => {},
        }),
        searchTools: "on",
        ...hostOptions,
      },
    );
  }

  /** Client A's run: one call of find_contact, whose result's keys are the address and the project. */
  async function learnFrom(client: Client): Promise<void> {
    const result = await client.callTool({
      name: "run_code",
      arguments: {
        code: `return Object.keys(await tools.find_contact({ email: "${EMAIL}", project: "${PROJECT}" }));`,
      },
    });
    expect(textOf(result)).toContain(EMAIL);
  }

  /** What search_tools declares for find_contact, as `client` sees it. */
  async function searched(client: Client): Promise<string> {
    return textOf(
      await client.callTool({ name: "search_tools", arguments: { query: "find contact projects" } }),
    );
  }

  it("client A's e-mail address key never appears in client B's search_tools or run_code description", async () => {
    const { connect } = await contactServer();
    const a = await connect();
    const b = await connect();
    await learnFrom(a);
    // A's own search shows what A's results taught: the types are learnt, and kept for A.
    expect(await searched(a)).toContain(`Returns (observed): { "${EMAIL}": { ${PROJECT}: string } }`);
    const seenByB = await searched(b);
    expect(seenByB).toContain("find_contact(args: {");
    expect(seenByB).not.toContain(EMAIL);
    expect(seenByB).not.toContain(PROJECT);
    expect(seenByB).not.toContain("Returns (observed)");
    const described = JSON.stringify((await b.listTools()).tools);
    expect(described).not.toContain(EMAIL);
    // A client that comes later starts with nothing learnt either.
    expect(await searched(await connect())).not.toContain(EMAIL);
  });

  it("a server told to share them (--share-observed-types) shows A's learnt types to B", async () => {
    const { connect } = await contactServer({ shareObservedTypes: true });
    const a = await connect();
    const b = await connect();
    await learnFrom(a);
    expect(await searched(b)).toContain(`Returns (observed): { "${EMAIL}": { ${PROJECT}: string } }`);
  });
});
