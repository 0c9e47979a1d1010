/**
 * Authentication of `cordon mcp --http` (the built CLI), end to end: a real OAuth authorization server
 * on 127.0.0.1 (oidc-provider, test/mcp/oauth-issuer.ts) and the official SDK client's OAuth flow
 * (client credentials: discovery from the 401's resource metadata, the issuer's metadata, a token for
 * cordon's resource). Each client of the issuer is a principal: its sessions, learnt types and approval
 * pages and tasks are its own. And the static token of --auth-token-file, for scripts.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type OAuthClientProvider, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { CallToolResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CORDON_BIN, cordon, ensureBuilt, root } from "../cli/helpers.js";
import { callAsTask, runCode, statusReaches, textOf } from "./helpers.js";
import { CLIENTS, signIn, startIssuer, type TestIssuer } from "./oauth-issuer.js";

const TOOLS = "test/mcp/fixtures/tenant-tools.ts";

/** The SDK's client auth provider as an app without a browser keeps it: in memory, the sign-in URL kept. */
class BrowserlessProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  #client: OAuthClientInformationMixed | undefined;
  #tokens: OAuthTokens | undefined;
  #verifier = "";
  readonly redirectUrl = "http://127.0.0.1:1/callback";
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "cordon test",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      scope: "mcp",
    };
  }
  clientInformation() {
    return this.#client;
  }
  saveClientInformation(client: OAuthClientInformationMixed) {
    this.#client = client;
  }
  tokens() {
    return this.#tokens;
  }
  saveTokens(tokens: OAuthTokens) {
    this.#tokens = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }
  codeVerifier() {
    return this.#verifier;
  }
}

/** A port free on 127.0.0.1 now (the audience names it before cordon listens). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Running {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  stop(): Promise<void>;
}

/** Starts `cordon mcp --tools TOOLS ...args` (with `env` added to the environment) and waits until it serves. */
async function startCordon(args: readonly string[], env: Record<string, string> = {}): Promise<Running> {
  const child = spawn(process.execPath, [CORDON_BIN, "mcp", "--tools", TOOLS, ...args], {
    cwd: root,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, ...env },
  });
  let stderr = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`cordon mcp printed no URL: ${stderr}`)), 30_000);
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
      const match = /serving on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once("exit", (code) => reject(new Error(`cordon mcp exited (${code}): ${stderr}`)));
  });
  return {
    child,
    url,
    stderr: () => stderr,
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

/** A raw POST of an initialize request to `url`, with `token` as its bearer token when given. */
function initialize(url: string, token?: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...headers,
    },
    body: JSON.stringify(INITIALIZE),
  });
}

describe("cordon mcp --http --auth-issuer --auth-audience", () => {
  let issuer: TestIssuer;
  let server: Running;
  let audience: string;
  let taskFolder: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    ensureBuilt();
    issuer = await startIssuer();
    taskFolder = await mkdtemp(join(tmpdir(), "cordon-auth-tasks-"));
    const port = await freePort();
    audience = `http://127.0.0.1:${port}/mcp`;
    server = await startCordon(
      [
        "--http",
        String(port),
        "--auth-issuer",
        issuer.issuer,
        "--auth-audience",
        audience,
        "--search-tools",
        "on",
        "--task-dir",
        taskFolder,
      ],
      { CORDON_CHECKPOINT_KEY: "a test checkpoint key of enough bytes" },
    );
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    await server?.stop();
    await issuer?.close();
    if (taskFolder) await rm(taskFolder, { recursive: true, force: true });
  });

  /** The official client, authenticating as `name` through the SDK's client credentials provider. */
  async function connect(
    name: keyof typeof CLIENTS,
    onUrl?: (url: string) => void,
  ): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    const client = new Client(
      { name: `test-${name}`, version: "1.0.0" },
      onUrl ? { capabilities: { elicitation: { url: {} } } } : {},
    );
    if (onUrl) {
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        if (request.params.mode === "url") onUrl(request.params.url);
        return { action: "accept" };
      });
    }
    const authProvider = new ClientCredentialsProvider({
      clientId: name,
      clientSecret: CLIENTS[name],
      expectedIssuer: issuer.issuer,
    });
    const transport = new StreamableHTTPClientTransport(new URL(server.url), { authProvider });
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  }

  it("answers a request without a token with 401 and a WWW-Authenticate naming its resource metadata, which names the issuer", async () => {
    const response = await initialize(server.url);
    expect(response.status).toBe(401);
    const challenge = response.headers.get("www-authenticate") ?? "";
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(metadataUrl).toBe(`${new URL(audience).origin}/.well-known/oauth-protected-resource/mcp`);
    for (const url of [metadataUrl!, `${new URL(audience).origin}/.well-known/oauth-protected-resource`]) {
      const metadata = await fetch(url);
      expect(metadata.status).toBe(200);
      expect(await metadata.json()).toMatchObject({
        resource: audience,
        authorization_servers: [issuer.issuer],
      });
    }
  });

  it("serves the official client that got a token through the SDK's OAuth flow", async () => {
    const { client } = await connect("alice");
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name)).toContain("run_code");
    expect(textOf(await runCode(client, "return 6 * 7"))).toMatch(/^result: 42$/m);
  });

  it("serves a person who signed in through the SDK's authorization code flow (registration, PKCE, resource)", async () => {
    const provider = new BrowserlessProvider();
    const first = new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider });
    await expect(new Client({ name: "carol", version: "1.0.0" }).connect(first)).rejects.toThrow(
      UnauthorizedError,
    );
    expect(provider.authorizationUrl?.searchParams.get("resource")).toBe(audience);
    await first.finishAuth(await signIn(provider.authorizationUrl!, "carol"));
    const client = new Client({ name: "carol", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider }));
    clients.push(client);
    expect(textOf(await runCode(client, "return 6 * 7"))).toMatch(/^result: 42$/m);
  });

  it("refuses with 401 a token the issuer issued for another audience", async () => {
    const token = await issuer.token("alice", "http://127.0.0.1:1/elsewhere");
    const response = await initialize(server.url, token);
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/error="invalid_token".*audience/);
  });

  it("refuses with 401 an expired token, a token signed by another key, and a token of another issuer", async () => {
    const now = Math.floor(Date.now() / 1000);
    const good = { iss: issuer.issuer, aud: audience, sub: "alice", iat: now - 600 };
    const expired = await issuer.sign({ ...good, exp: now - 60 });
    const otherIssuer = await issuer.sign({ ...good, iss: "http://127.0.0.1:1", exp: now + 300 });
    const fine = await issuer.sign({ ...good, exp: now + 300 });
    const [header, payload] = fine.split(".");
    const forged = `${header}.${payload}.${Buffer.from("not the signature").toString("base64url")}`;
    for (const [token, why] of [
      [expired, /expired/],
      [otherIssuer, /not issued by/],
      [forged, /signature/],
    ] as const) {
      const response = await initialize(server.url, token);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(why);
    }
    expect((await initialize(server.url, fine)).status).toBe(200);
  });

  it("keeps a principal's session from any other: B's token with A's session id finds no session", async () => {
    const { transport } = await connect("alice");
    const bobToken = await issuer.token("bob", audience);
    const response = await fetch(server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${bobToken}`,
        "mcp-session-id": transport.sessionId!,
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(response.status).toBe(404);
  });

  it("shows the result types a principal's runs taught to its own sessions alone", async () => {
    const alice = await connect("alice");
    const aliceAgain = await connect("alice");
    const bob = await connect("bob");
    await runCode(
      alice.client,
      'return await tools.find_contact({ email: "ada@example.com", project: "apollo" })',
    );
    const search = async (client: Client) =>
      textOf(await client.callTool({ name: "search_tools", arguments: { query: "contact projects" } }));
    expect(await search(aliceAgain.client)).toContain("ada@example.com");
    expect(await search(bob.client)).toContain("find_contact");
    expect(await search(bob.client)).not.toContain("ada@example.com");
  });

  it("shows a principal's approval page to no other principal, and lets its own decide", async () => {
    let pageUrl!: (url: string) => void;
    const sent = new Promise<string>((resolve) => {
      pageUrl = resolve;
    });
    const bobAsked: string[] = [];
    const alice = await connect("alice", pageUrl);
    await connect("bob", (url) => bobAsked.push(url));
    const run = runCode(alice.client, 'return await tools.stamp({ note: "invoice 7" })');
    const url = await sent;
    const aliceToken = await issuer.token("alice", audience);
    const bobToken = await issuer.token("bob", audience);
    const origin = new URL(url).origin;
    expect((await fetch(url, { headers: { authorization: `Bearer ${bobToken}` } })).status).toBe(404);
    const bobPost = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${bobToken}`,
        origin,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ csrf: "x", decision: "allow" }),
    });
    expect(bobPost.status).toBe(404);
    const page = await fetch(url, { headers: { authorization: `Bearer ${aliceToken}` } });
    expect(page.status).toBe(200);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1];
    expect(csrf).toBeDefined();
    const decided = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${aliceToken}`,
        origin,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ csrf: csrf!, decision: "allow" }),
    });
    expect(decided.status).toBe(200);
    expect(textOf(await run)).toContain("approved: invoice 7");
    expect(bobAsked).toEqual([]);
  });

  it("keeps a principal's tasks from any other: B cannot get, answer, cancel or list A's task, nor open its approval page, and A's other session answers it", async () => {
    const bobAsked: string[] = [];
    const alice = await connect("alice");
    const bob = await connect("bob", (url) => bobAsked.push(url));
    const task = await callAsTask(alice.client, 'return await tools.stamp({ note: "task 9" })');
    await statusReaches(alice.client, task.taskId, "input_required");

    const notFound = /Task not found/;
    await expect(bob.client.experimental.tasks.getTask(task.taskId)).rejects.toThrow(notFound);
    await expect(
      bob.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema),
    ).rejects.toThrow(notFound);
    await expect(bob.client.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(notFound);
    const bobsOwn = await callAsTask(bob.client, "return 1");
    await statusReaches(bob.client, bobsOwn.taskId, "completed");
    expect((await bob.client.experimental.tasks.listTasks()).tasks.map((listed) => listed.taskId)).toEqual([
      bobsOwn.taskId,
    ]);

    // Alice's second session is the same principal: it lists the task and answers it on the approval page.
    let pageUrl!: (url: string) => void;
    const sent = new Promise<string>((resolve) => {
      pageUrl = resolve;
    });
    const aliceAgain = await connect("alice", pageUrl);
    const listed = (await aliceAgain.client.experimental.tasks.listTasks()).tasks;
    expect(listed.map((one) => [one.taskId, one.status])).toEqual([[task.taskId, "input_required"]]);
    const result = aliceAgain.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    const url = await sent;
    const aliceToken = await issuer.token("alice", audience);
    const bobToken = await issuer.token("bob", audience);
    const origin = new URL(url).origin;
    expect((await fetch(url, { headers: { authorization: `Bearer ${bobToken}` } })).status).toBe(404);
    const bobPost = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${bobToken}`,
        origin,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ csrf: "x", decision: "allow" }),
    });
    expect(bobPost.status).toBe(404);
    const page = await fetch(url, { headers: { authorization: `Bearer ${aliceToken}` } });
    expect(page.status).toBe(200);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1];
    const decided = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${aliceToken}`,
        origin,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ csrf: csrf!, decision: "allow" }),
    });
    expect(decided.status).toBe(200);
    expect(textOf(await result)).toContain("approved: task 9");
    expect((await alice.client.experimental.tasks.getTask(task.taskId)).status).toBe("completed");
    await expect(bob.client.experimental.tasks.getTask(task.taskId)).rejects.toThrow(notFound);
    expect(bobAsked).toEqual([]);
  });
});

describe("cordon mcp --http --auth-token-file", () => {
  let folder: string;
  const TOKEN = "a-static-token-for-scripts-0123456789abcdef";

  beforeAll(async () => {
    ensureBuilt();
    folder = await mkdtemp(join(tmpdir(), "cordon-auth-"));
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it("serves the static token and refuses any other with 401", async () => {
    const file = join(folder, "token");
    await writeFile(file, `${TOKEN}\n`, { mode: 0o600 });
    const server = await startCordon(["--http", "0", "--auth-token-file", file]);
    try {
      const client = new Client({ name: "script", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), {
          requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
        }),
      );
      expect(textOf(await runCode(client, "return 1 + 1"))).toMatch(/^result: 2$/m);
      await client.close();
      const wrong = await initialize(server.url, `${TOKEN.slice(0, -1)}x`);
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get("www-authenticate")).toMatch(/^Bearer /);
      expect((await initialize(server.url)).status).toBe(401);
    } finally {
      await server.stop();
    }
  });

  it("refuses to start with a token file other users can read", async () => {
    const file = join(folder, "open-token");
    await writeFile(file, `${TOKEN}\n`);
    await chmod(file, 0o644);
    const outcome = await cordon(["mcp", "--tools", TOOLS, "--http", "0", "--auth-token-file", file]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain(`has mode 644`);
    expect(outcome.stderr).toContain(`chmod 600 ${file}`);
  });
});
