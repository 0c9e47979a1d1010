/**
 * cordon's approval page over plain HTTP (served in this process, the official MCP client, fetch on
 * 127.0.0.1): what the page shows and the headers it is served with, single use, unknown tokens,
 * cross-site and token-less posts, expiry, a run that ends, a client that declines the URL, and
 * --approve web without --http.
 */

import { request as httpRequest } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import { tool } from "../../src/index.js";
import type { McpApprovePolicy } from "../../src/mcp/approve-policy.js";
import { ToolCatalog } from "../../src/mcp/catalog.js";
import { CodeHost } from "../../src/mcp/code-host.js";
import { type HttpServing, serveHttp } from "../../src/mcp/http.js";
import { APPROVAL_PATH, WebApprovals } from "../../src/mcp/web-approval.js";
import { cordon, ensureBuilt, SHOP_TOOLS } from "../cli/helpers.js";
import { textOf } from "./helpers.js";

const wired: unknown[] = [];

const wireMoney = tool({
  name: "wire_money",
  description: "Send money to an account.",
  input: z.object({ to: z.string(), memo: z.string() }),
  needsApproval: true,
  run: (args) => {
    wired.push(args);
    return "sent";
  },
});

/**
 * Code that wires money with a memo that tries to hide (bidi override, terminal escape, HTML), and an
 * account under ten stacked strokes (zalgo).
 */
const WIRE = `try {
  return await tools.wire_money({ to: "DE89" + "\\u0336".repeat(10) + " 3704", memo: "rent\\u202E<b>x</b>\\u001b[31m" + "y".repeat(400) + "END" });
} catch (e) { return [e.kind, e.message]; }`;

const opened: { serving: HttpServing; host: CodeHost; client: Client }[] = [];

beforeAll(() => ensureBuilt());

afterEach(async () => {
  for (const { serving, host, client } of opened.splice(0)) {
    await client.close().catch(() => {});
    await serving.close();
    await host.close();
  }
  wired.length = 0;
});

interface Served {
  client: Client;
  logs: string[];
  /** The URLs the client was sent in URL-mode elicitations. */
  elicited: string[];
}

/**
 * Serves a code host with wire_money over HTTP and connects a client: with `elicitation: "url"` the
 * client supports only URL-mode elicitation and answers `urlAnswer`; otherwise it cannot elicit.
 */
async function serve(
  approve: McpApprovePolicy,
  options: { approvalTimeoutMs?: number; elicitation?: "url"; urlAnswer?: "accept" | "decline" } = {},
): Promise<Served> {
  const logs: string[] = [];
  const elicited: string[] = [];
  const host = new CodeHost({
    catalog: new ToolCatalog({ local: [wireMoney], upstreams: [], timeoutMs: 5_000, log: () => {} }),
    environment: isolateEnvironment(),
  });
  const serving = await serveHttp({
    host,
    approve,
    version: "test",
    port: 0,
    log: (line) => logs.push(line),
    ...(options.approvalTimeoutMs === undefined ? {} : { approvalTimeoutMs: options.approvalTimeoutMs }),
  });
  const client = new Client(
    { name: "web-approval-test", version: "1.0.0" },
    options.elicitation === "url" ? { capabilities: { elicitation: { url: {} } } } : {},
  );
  if (options.elicitation === "url") {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      if (request.params.mode === "url") elicited.push(request.params.url);
      return { action: options.urlAnswer ?? "accept" };
    });
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(serving.url)));
  opened.push({ serving, host, client });
  return { client, logs, elicited };
}

function runCode(client: Client, code: string, signal?: AbortSignal): Promise<CallToolResult> {
  return client.callTool({ name: "run_code", arguments: { code } }, undefined, {
    ...(signal ? { signal } : {}),
    timeout: 60_000,
  }) as Promise<CallToolResult>;
}

/** The approval page's URL once cordon wrote it to its log. */
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

/** The page's CSRF token, read from its form. */
function csrfOf(html: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error(`no CSRF token in the page: ${html}`);
  return match[1]!;
}

/** POSTs a decision as the page's own form would, with `headers` replacing the defaults. */
function decide(url: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: new URL(url).origin,
      "sec-fetch-site": "same-origin",
      ...headers,
    },
    body: new URLSearchParams(form).toString(),
  });
}

/** GETs the page and returns its status and text. */
async function read(url: string): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await fetch(url);
  return { status: response.status, text: await response.text(), headers: response.headers };
}

describe("cordon mcp: the approval page over HTTP", () => {
  it("shows the tool and every argument escaped and made visible, with strict headers", async () => {
    const { client, logs } = await serve("web");
    const call = runCode(client, WIRE);
    const url = await pageUrlFromLog(logs);
    expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+${APPROVAL_PATH}[A-Za-z0-9_-]{43}$`));
    const page = await read(url);
    expect(page.status).toBe(200);
    expect(page.text).toContain("wire_money");
    // Two strokes stay on the 9, the other eight are written out.
    expect(page.text).toContain(`to: &#34;DE89\u0336\u0336${"\\u{336}".repeat(8)} 3704&#34;`);
    expect(page.text).not.toContain("\u0336\u0336\u0336");
    // The bidi override and the terminal escape are written out; the HTML is text; the long memo is cut
    // in the middle with its length, keeping its end.
    expect(page.text).toContain("rent\\u{202E}&#60;b&#62;x&#60;/b&#62;\\u{1B}[31m");
    expect(page.text).not.toContain("\u202E");
    expect(page.text).not.toContain("\u001b");
    expect(page.text).not.toContain("<b>x</b>");
    expect(page.text).toMatch(/yEND&#34; \(421 chars\)/);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("content-security-policy")).not.toContain("script-src");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("referrer-policy")).toBe("same-origin");
    expect(await decide(url, { csrf: csrfOf(page.text), decision: "deny" }).then((r) => r.status)).toBe(200);
    await call;
  });

  it("works once: after a decision a second POST or GET gets 410 saying what was decided", async () => {
    const { client, logs } = await serve("web");
    const call = runCode(client, WIRE);
    const url = await pageUrlFromLog(logs);
    const csrf = csrfOf((await read(url)).text);
    const first = await decide(url, { csrf, decision: "allow" });
    expect(first.status).toBe(200);
    expect(await first.text()).toContain("You allowed the call to wire_money");
    expect(textOf(await call)).toContain('"sent"');
    expect(wired).toHaveLength(1);
    const again = await decide(url, { csrf, decision: "allow" });
    expect(again.status).toBe(410);
    expect(await again.text()).toContain("the call to wire_money was allowed");
    const reread = await read(url);
    expect(reread.status).toBe(410);
    expect(reread.text).toContain("This approval page was used");
    expect(wired).toHaveLength(1);
  });

  it("an unknown or malformed token gets 404, and the waiting page is untouched", async () => {
    const { client, logs } = await serve("web");
    const call = runCode(client, WIRE);
    const url = await pageUrlFromLog(logs);
    const base = new URL(url).origin;
    const unknown = await read(`${base}${APPROVAL_PATH}${"A".repeat(43)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain("This approval link is unknown");
    expect((await read(`${base}${APPROVAL_PATH}short`)).status).toBe(404);
    expect((await read(`${url}x`)).status).toBe(404);
    const page = await read(url);
    expect(page.status).toBe(200);
    await decide(url, { csrf: csrfOf(page.text), decision: "deny" });
    expect(textOf(await call)).toContain("the user denied it on the approval page");
  });

  it("refuses a POST from another site (foreign Origin, cross-site Sec-Fetch-Site, no Origin) with 403, and the page still waits", async () => {
    const { client, logs } = await serve("web");
    const call = runCode(client, WIRE);
    const url = await pageUrlFromLog(logs);
    const csrf = csrfOf((await read(url)).text);
    const foreign = await decide(url, { csrf, decision: "allow" }, { origin: "http://127.0.0.1:1" });
    expect(foreign.status).toBe(403);
    expect(await foreign.text()).toContain("must be posted from the approval page itself");
    const crossSite = await decide(url, { csrf, decision: "allow" }, { "sec-fetch-site": "cross-site" });
    expect(crossSite.status).toBe(403);
    const noOrigin = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf, decision: "allow" }).toString(),
    });
    expect(noOrigin.status).toBe(403);
    // A page on another host name is refused before the page is looked at (the MCP endpoint's rules).
    const evil = await decide(url, { csrf, decision: "allow" }, { origin: "http://evil.example" });
    expect(evil.status).toBe(403);
    expect(wired).toHaveLength(0);
    expect((await read(url)).status).toBe(200);
    expect((await decide(url, { csrf, decision: "deny" })).status).toBe(200);
    expect(textOf(await call)).toContain('"denied"');
  });

  it("refuses a POST without the page's CSRF token, or with a wrong one, with 403", async () => {
    const { client, logs } = await serve("web");
    const call = runCode(client, WIRE);
    const url = await pageUrlFromLog(logs);
    const csrf = csrfOf((await read(url)).text);
    const missing = await decide(url, { decision: "allow" });
    expect(missing.status).toBe(403);
    expect(await missing.text()).toContain("token is missing or wrong");
    // One character changed, never to itself: the token's last character is "A" one time in 16.
    const wrong = `${csrf.startsWith("A") ? "B" : "A"}${csrf.slice(1)}`;
    expect((await decide(url, { csrf: wrong, decision: "allow" })).status).toBe(403);
    expect((await decide(url, { csrf: "x", decision: "allow" })).status).toBe(403);
    expect(wired).toHaveLength(0);
    expect((await decide(url, { csrf, decision: "deny" })).status).toBe(200);
    await call;
  });

  it("decides only by POST: other methods get 405, and a GET never decides", async () => {
    const { client, logs } = await serve("web");
    const call = runCode(client, WIRE);
    const url = await pageUrlFromLog(logs);
    const put = await fetch(url, { method: "PUT", body: "decision=allow" });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, POST");
    const csrf = csrfOf((await read(url)).text);
    expect((await read(`${url}?csrf=${csrf}&decision=allow`)).status).toBe(200);
    expect(wired).toHaveLength(0);
    expect((await decide(url, { csrf, decision: "bogus" })).status).toBe(400);
    expect((await decide(url, { csrf, decision: "deny" })).status).toBe(200);
    await call;
  });

  it("refuses a request addressed to another host name (the MCP endpoint's Host rule)", async () => {
    const { client, logs } = await serve("web");
    const call = runCode(client, WIRE);
    const url = new URL(await pageUrlFromLog(logs));
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        { host: "127.0.0.1", port: url.port, path: url.pathname, headers: { host: "evil.example" } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end();
    });
    expect(status).toBe(403);
    const csrf = csrfOf((await read(url.href)).text);
    await decide(url.href, { csrf, decision: "deny" });
    await call;
  });

  it("an expired page denies the call, and then says it expired", async () => {
    const { client, logs } = await serve("web", { approvalTimeoutMs: 300 });
    const result = await runCode(client, WIRE);
    expect(textOf(result)).toContain('"denied"');
    expect(textOf(result)).toContain("nobody decided on the approval page within 300 ms");
    expect(wired).toHaveLength(0);
    const url = await pageUrlFromLog(logs);
    const page = await read(url);
    expect(page.status).toBe(410);
    expect(page.text).toContain("This approval page expired");
    expect(page.text).toContain("so the call to wire_money was denied");
  });

  it("a call whose run ended (the client cancelled it) retires its page", async () => {
    const { client, logs } = await serve("web");
    const cancel = new AbortController();
    const call = runCode(client, WIRE, cancel.signal).catch((error: unknown) => error);
    const url = await pageUrlFromLog(logs);
    expect((await read(url)).status).toBe(200);
    cancel.abort();
    await call;
    let page = await read(url);
    for (let i = 0; i < 200 && page.status === 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      page = await read(url);
    }
    expect(page.status).toBe(410);
    expect(page.text).toContain("This call no longer waits");
    expect(wired).toHaveLength(0);
  });

  it("with --approve ask, a client that supports only URL-mode elicitation is sent the page's URL (not the log)", async () => {
    const { client, logs, elicited } = await serve("ask", { elicitation: "url" });
    const call = runCode(client, WIRE);
    await vi.waitFor(() => expect(elicited).toHaveLength(1), { timeout: 10_000, interval: 25 });
    const url = elicited[0]!;
    expect(logs.join("\n")).not.toContain(url);
    const csrf = csrfOf((await read(url)).text);
    expect((await decide(url, { csrf, decision: "allow" })).status).toBe(200);
    expect(textOf(await call)).toContain('"sent"');
  });

  it("a URL-mode client that declines to open the page denies the call, and the page is retired", async () => {
    const { client, elicited } = await serve("ask", { elicitation: "url", urlAnswer: "decline" });
    const result = await runCode(client, WIRE);
    expect(textOf(result)).toContain('"denied"');
    expect(textOf(result)).toContain("the user chose to decline");
    expect((await read(elicited[0]!)).status).toBe(410);
    expect(wired).toHaveLength(0);
  });

  it("a page's URL names the Host the client used only when it is a plain host[:port]", () => {
    const approvals = new WebApprovals({ origin: "http://127.0.0.1:9" });
    const open = (host: string) =>
      approvals.open({ toolName: "t", args: {}, signal: new AbortController().signal }, host).url;
    expect(open("localhost:4000")).toMatch(/^http:\/\/localhost:4000\/approve\//);
    expect(open("localhost:1@evil.example")).toMatch(/^http:\/\/127\.0\.0\.1:9\/approve\//);
    expect(open("localhost:1/evil")).toMatch(/^http:\/\/127\.0\.0\.1:9\/approve\//);
    approvals.close();
  });

  it("--approve web without --http is a usage error that says why", async () => {
    const outcome = await cordon(["mcp", "--tools", SHOP_TOOLS, "--approve", "web"]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain("--approve web serves its approval pages on cordon's HTTP port");
    expect(outcome.stderr).toContain("add --http <port>");
  });
});
