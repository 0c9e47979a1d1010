/**
 * The parts of `cordon mcp --http`'s authentication that need no cordon process: which listening
 * addresses count as beyond loopback and the flags that must then be given (a pure decision: no test
 * binds anything but 127.0.0.1), the issuer's key rotation against a JWKS served on 127.0.0.1, and the
 * session cap that is each principal's own, under the server's cap that holds across principals (served
 * in this process, a real authorization server).
 */

import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import { checkMcpAuthFlags, reachableBeyondLoopback } from "../../src/cli/mcp-auth.js";
import { issuerVerifier, JWKS_COOLDOWN_MS } from "../../src/mcp/auth-issuer.js";
import { ToolCatalog } from "../../src/mcp/catalog.js";
import { CodeHost } from "../../src/mcp/code-host.js";
import { serveHttp } from "../../src/mcp/http.js";
import { httpAuth } from "../../src/mcp/http-auth.js";
import { startIssuer } from "./oauth-issuer.js";

describe("listening beyond loopback", () => {
  it("counts loopback addresses and localhost as this machine, and every other address as beyond it", () => {
    for (const address of [undefined, "127.0.0.1", "127.8.9.10", "::1", "[::1]", "localhost", "LocalHost"]) {
      expect(reachableBeyondLoopback(address), String(address)).toBe(false);
    }
    for (const address of [
      "0.0.0.0",
      "::",
      "10.0.0.7",
      "192.168.1.20",
      "2001:db8::1",
      "mcp.example.com",
      "128.0.0.1",
    ]) {
      expect(reachableBeyondLoopback(address), address).toBe(true);
    }
  });

  it("refuses to serve beyond loopback without authentication unless told --no-auth", () => {
    const none = { noAuth: false };
    expect(() => checkMcpAuthFlags(none, { port: 3000, hostname: "0.0.0.0" })).toThrow(
      /0\.0\.0\.0 can be reached from beyond this machine.*--auth-issuer.*--auth-token-file.*--no-auth/,
    );
    expect(() => checkMcpAuthFlags({ noAuth: true }, { port: 3000, hostname: "0.0.0.0" })).not.toThrow();
    expect(() =>
      checkMcpAuthFlags({ ...none, tokenFile: "/tmp/token" }, { port: 3000, hostname: "10.0.0.7" }),
    ).not.toThrow();
    expect(() =>
      checkMcpAuthFlags(
        { ...none, issuer: "https://id.example.com", audience: "https://mcp.example.com/mcp" },
        { port: 3000, hostname: "::" },
      ),
    ).not.toThrow();
    expect(() => checkMcpAuthFlags(none, { port: 3000, hostname: "127.0.0.1" })).not.toThrow();
    expect(() => checkMcpAuthFlags(none, { port: 3000 })).not.toThrow();
  });

  it("says what is wrong with a bad mix of authentication flags", () => {
    expect(() => checkMcpAuthFlags({ noAuth: false, tokenFile: "/tmp/t" }, {})).toThrow(
      /only apply with --http/,
    );
    expect(() => checkMcpAuthFlags({ noAuth: true, tokenFile: "/tmp/t" }, { port: 1 })).toThrow(
      /--no-auth contradicts --auth-token-file/,
    );
    expect(() => checkMcpAuthFlags({ noAuth: false, issuer: "https://id.example.com" }, { port: 1 })).toThrow(
      /--auth-issuer and --auth-audience go together/,
    );
    expect(() =>
      checkMcpAuthFlags(
        { noAuth: false, issuer: "http://id.example.com", audience: "https://mcp.example.com/mcp" },
        { port: 1 },
      ),
    ).toThrow(/--auth-issuer http:\/\/id\.example\.com must be an https:\/\/ URL/);
  });
});

describe("the issuer's keys", () => {
  const servers: Server[] = [];
  afterEach(async () => {
    vi.useRealTimers();
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("follows a key rotation by refetching the keys for an unknown kid, at most once per cooldown", async () => {
    const keys = await Promise.all(
      ["k1", "k2", "k3"].map(async (kid) => ({
        kid,
        pair: await generateKeyPair("ES256", { extractable: true }),
      })),
    );
    let published = [keys[0]!];
    let jwksFetches = 0;
    const server = createServer(async (req, res) => {
      if (req.url === "/.well-known/oauth-authorization-server") {
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
      }
      if (req.url === "/jwks") {
        jwksFetches++;
        const jwks = await Promise.all(
          published.map(async ({ kid, pair }) => ({
            ...(await exportJWK(pair.publicKey)),
            kid,
            alg: "ES256",
          })),
        );
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(JSON.stringify({ keys: jwks }));
      }
      res.writeHead(404);
      res.end();
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const audience = "http://127.0.0.1:9/mcp";
    const verifier = issuerVerifier(issuer, audience);
    const tokenOf = (index: number) =>
      new SignJWT({ sub: "someone" })
        .setProtectedHeader({ alg: "ES256", kid: keys[index]!.kid })
        .setIssuer(issuer)
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime("1h")
        .sign(keys[index]!.pair.privateKey);

    vi.useFakeTimers({ toFake: ["Date"] });
    expect((await verifier.verify(await tokenOf(0))).subject).toBe("someone");
    expect(jwksFetches).toBe(1);
    // The issuer rotates to k2; a token signed with it comes within the cooldown: not fetched again yet.
    published = [keys[1]!];
    await expect(verifier.verify(await tokenOf(1))).rejects.toThrow(/a key the issuer does not have/);
    expect(jwksFetches).toBe(1);
    vi.setSystemTime(Date.now() + JWKS_COOLDOWN_MS + 1);
    expect((await verifier.verify(await tokenOf(1))).subject).toBe("someone");
    expect(jwksFetches).toBe(2);
    // Forged kids, however many, cost the issuer nothing more within the cooldown.
    for (let i = 0; i < 5; i++)
      await expect(verifier.verify(await tokenOf(2))).rejects.toThrow(/does not have/);
    expect(jwksFetches).toBe(2);
  });
});

describe("an issuer that cannot be reached", () => {
  it("makes requests wait (503, Retry-After) rather than refusing their tokens", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const issuer = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const auth = httpAuth({ issuer: issuerVerifier(issuer, "http://127.0.0.1:9/mcp") });
    const request = { headers: { authorization: "Bearer a.b.c" } } as unknown as IncomingMessage;
    const outcome = await auth.authenticate(request);
    expect(outcome).toMatchObject({ ok: false, status: 503 });
    expect(outcome.ok ? "" : outcome.description).toContain("no authorization server metadata for");
  });
});

describe("the session cap of an authenticated server", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("is each principal's own: one that filled its sessions does not keep another out", async () => {
    const issuer = await startIssuer();
    cleanups.push(() => issuer.close());
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const audience = `http://127.0.0.1:${port}/mcp`;
    const host = new CodeHost({
      catalog: new ToolCatalog({ local: [], upstreams: [], timeoutMs: 5_000, log: () => {} }),
      environment: isolateEnvironment(),
    });
    const serving = await serveHttp({
      host,
      approve: "none",
      version: "test",
      port,
      log: () => {},
      maxSessions: 1,
      auth: httpAuth({ issuer: issuerVerifier(issuer.issuer, audience) }),
    });
    cleanups.push(async () => {
      await serving.close();
      await host.close();
    });
    const connect = async (name: "alice" | "bob") => {
      const token = await issuer.token(name, audience);
      const client = new Client({ name, version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(serving.url), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      cleanups.push(() => client.close());
      return client;
    };
    await connect("alice");
    await expect(connect("alice")).rejects.toThrow(/All 1 sessions you may keep/);
    const bob = await connect("bob");
    expect((await bob.listTools()).tools.map((tool) => tool.name)).toContain("run_code");
  });

  it("holds across principals too: many principals together cannot take more than the server's sessions, and a refused one is told the limit", async () => {
    const issuer = await startIssuer();
    cleanups.push(() => issuer.close());
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const audience = `http://127.0.0.1:${port}/mcp`;
    const host = new CodeHost({
      catalog: new ToolCatalog({ local: [], upstreams: [], timeoutMs: 5_000, log: () => {} }),
      environment: isolateEnvironment(),
    });
    const serving = await serveHttp({
      host,
      approve: "none",
      version: "test",
      port,
      log: () => {},
      maxSessions: 2,
      maxServerSessions: 3,
      auth: httpAuth({ issuer: issuerVerifier(issuer.issuer, audience) }),
    });
    cleanups.push(async () => {
      await serving.close();
      await host.close();
    });
    // Principals as many as the issuer names: each token its own subject.
    const now = Math.floor(Date.now() / 1000);
    const tokenOf = (sub: string) =>
      issuer.sign({ iss: issuer.issuer, aud: audience, sub, iat: now, exp: now + 300 });
    const connect = async (sub: string) => {
      const client = new Client({ name: sub, version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(serving.url), {
          requestInit: { headers: { authorization: `Bearer ${await tokenOf(sub)}` } },
        }),
      );
      cleanups.push(() => client.close());
      return client;
    };
    const first = await connect("principal-1");
    await connect("principal-2");
    await connect("principal-3");
    const refused = await fetch(serving.url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${await tokenOf("principal-4")}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "p4", version: "1" } },
      }),
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    const body = (await refused.json()) as { error: { message: string } };
    expect(body.error.message).toMatch(
      /^All 3 sessions this server keeps at once, every client's together, are answering requests: try again later, or end a session you no longer use \(DELETE \/mcp/,
    );
    // The principals already served go on.
    expect((await first.listTools()).tools.map((tool) => tool.name)).toContain("run_code");
  });
});
