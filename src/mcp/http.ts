/**
 * cordon's MCP server over Streamable HTTP (`POST/GET/DELETE /mcp`), one SDK transport and one server per
 * session; a session nobody uses for {@link DEFAULT_SESSION_IDLE_MS} is closed, and at most
 * {@link DEFAULT_MAX_SESSIONS} are kept. On whatever address it listens, it answers only requests whose Host
 * (and Origin, when a web page sends one) names a loopback host, the address it listens on, or a name
 * in `allowedHosts`, so that a web page cannot reach it through DNS rebinding. Approval pages are
 * served under `/approve/` (src/mcp/web-approval.ts), behind the same Host and Origin rules.
 *
 * With `auth` (http-auth.ts), every request to the endpoint carries a bearer token naming a principal,
 * and each principal is a tenant: a session answers only the principal that started it (to any other it
 * does not exist), the cap of {@link DEFAULT_MAX_SESSIONS} sessions is each principal's own (so one cannot
 * fill it for the others) under the server's cap of {@link DEFAULT_MAX_SERVER_SESSIONS} (so many cannot
 * exhaust the server), learnt result types are kept per principal, and an approval page refuses a
 * request authenticated as another principal.
 */

import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { messageOf } from "../../common/errors.js";
import { SessionEventStore, SSE_RETRY_MS } from "./event-store.js";
import type { HttpAuth, Principal } from "./http-auth.js";
import { isLoopbackName } from "./loopback.js";
import { readBody } from "./read-body.js";
import { createMcpServer, type McpServerOptions } from "./server.js";
import { WebApprovals } from "./web-approval.js";

/** Re-exported: the CLI and tests name it here. */
export { isLoopbackName };

/** The path the MCP endpoint is served on. */
const MCP_PATH = "/mcp";

/** The largest request body read, in bytes (the SDK's own default bound). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** How long a session may go without a request (and with none open) before it is closed, in ms. */
const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;

/** Sessions kept at once (per principal, with `auth`); a new one closes the least recently used idle one, or is refused. */
const DEFAULT_MAX_SESSIONS = 64;

/**
 * Sessions kept at once by the whole server, every principal's together: with `auth`, principals are as
 * many as the issuer names, so their own caps alone would not bound the server.
 */
const DEFAULT_MAX_SERVER_SESSIONS = 256;

/** What a refused initialize is told to wait before trying again, in seconds (`Retry-After`). */
const SESSIONS_FULL_RETRY_AFTER_S = 30;

/** Options of {@link serveHttp}. */
export interface HttpOptions extends McpServerOptions {
  port: number;
  /** The address to listen on. Default 127.0.0.1. */
  hostname?: string;
  /**
   * Other names the server may be addressed by (in Host and Origin), for a server reached by a name of
   * its own; loopback names and the address it listens on are always allowed.
   */
  allowedHosts?: readonly string[];
  log: (line: string) => void;
  /**
   * A session with no request open and none for this long is closed (a client may vanish without its
   * DELETE). Default {@link DEFAULT_SESSION_IDLE_MS}.
   */
  sessionIdleMs?: number;
  /** Sessions kept at once (each principal's own, with `auth`). Default {@link DEFAULT_MAX_SESSIONS}. */
  maxSessions?: number;
  /** Sessions kept at once by the whole server, every principal's. Default {@link DEFAULT_MAX_SERVER_SESSIONS}. */
  maxServerSessions?: number;
  /** How long an approval page waits for a decision, in ms. Default `DEFAULT_APPROVAL_TIMEOUT_MS`. */
  approvalTimeoutMs?: number;
  /** Who may use the server (bearer tokens); absent, anyone who can reach it. */
  auth?: HttpAuth;
}

/** A running HTTP server. */
export interface HttpServing {
  /** The endpoint's URL, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
  close(): Promise<void>;
}

interface Session {
  server: Server;
  transport: StreamableHTTPServerTransport;
  /** What the session sent on its SSE streams, for a client that reconnects with Last-Event-ID. */
  events: SessionEventStore;
  /** Requests of the session being answered now (a GET stream stays open for as long as it listens). */
  open: number;
  /** When its last request started or ended (performance.now()). */
  lastActive: number;
  /** The principal that started it (`auth`), the only one it answers; undefined without `auth`. */
  owner: string | undefined;
}

/** Serves MCP over Streamable HTTP until closed. */
export async function serveHttp(options: HttpOptions): Promise<HttpServing> {
  const hostname = options.hostname ?? "127.0.0.1";
  const { auth } = options;
  const names = new Set((options.allowedHosts ?? []).map(bareHost));
  if (!isWildcardAddress(hostname)) names.add(bareHost(hostname));
  const allowedName = (name: string) => isLoopbackName(name) || names.has(bareHost(name));
  const sessions = new Map<string, Session>();
  const idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const maxServerSessions = options.maxServerSessions ?? DEFAULT_MAX_SERVER_SESSIONS;
  const isIdle = (session: Session, now: number) => session.open === 0 && now - session.lastActive >= idleMs;
  const expire = (id: string, session: Session) => {
    sessions.delete(id);
    session.server.close().catch(() => {});
  };
  const sweeper = setInterval(
    () => {
      const now = performance.now();
      for (const [id, session] of sessions) if (isIdle(session, now)) expire(id, session);
    },
    Math.max(10, Math.min(idleMs / 4, 60_000)),
  );
  sweeper.unref();

  let approvals!: WebApprovals;

  /** Sessions being initialized now, by owner: they count against the cap before their id exists. */
  const initializing = new Map<string | undefined, number>();
  const countInitializing = (owner: string | undefined, by: number) => {
    const count = (initializing.get(owner) ?? 0) + by;
    if (count === 0) initializing.delete(owner);
    else initializing.set(owner, count);
  };
  /**
   * Makes room for a new session of `owner`, under its own cap and the server's. Only a session whose
   * client went away (idle: no request or stream open for `idleMs`) gives up its place, the least recently
   * used first (the owner's own for its cap, anyone's for the server's); a live one is never closed for a
   * newcomer, however quiet it is. Answers which cap refused, if one did.
   */
  const makeRoom = (owner: string | undefined): "owner" | "server" | undefined => {
    let mine = initializing.get(owner) ?? 0;
    for (const session of sessions.values()) if (session.owner === owner) mine++;
    if (mine >= maxSessions && !expireOldestIdle((session) => session.owner === owner)) return "owner";
    let all = sessions.size;
    for (const count of initializing.values()) all += count;
    if (all >= maxServerSessions && !expireOldestIdle(() => true)) return "server";
    return undefined;
  };
  const expireOldestIdle = (among: (session: Session) => boolean): boolean => {
    const now = performance.now();
    let oldest: [string, Session] | undefined;
    for (const entry of sessions) {
      if (!among(entry[1]) || !isIdle(entry[1], now)) continue;
      if (!oldest || entry[1].lastActive < oldest[1].lastActive) oldest = entry;
    }
    if (oldest) expire(...oldest);
    return oldest !== undefined;
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!addressedToUs(req, allowedName)) {
      return reply(
        res,
        403,
        "This MCP server only answers requests addressed to a loopback host, the address it listens on, or a name given with --allow-host.",
      );
    }
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (auth?.serveMetadata(path, req, res)) return;
    if (WebApprovals.handles(path)) {
      // A page is a one-time link sent to its principal's client alone; a request that does say who
      // it comes from must come from that principal.
      let visitor: string | undefined;
      if (auth && req.headers.authorization !== undefined) {
        const authenticated = await auth.authenticate(req);
        if (!authenticated.ok) return auth.refuse(res, authenticated);
        visitor = authenticated.principal.id;
      }
      return approvals.handle(req, res, path, visitor);
    }
    if (path !== MCP_PATH) return reply(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}.`);
    let principal: Principal | undefined;
    if (auth) {
      const authenticated = await auth.authenticate(req);
      if (!authenticated.ok) return auth.refuse(res, authenticated);
      principal = authenticated.principal;
      // The SDK's transport hands it to each request's handler as `extra.authInfo`.
      (req as IncomingMessage & { auth?: unknown }).auth = authenticated.authInfo;
    }
    const owner = principal?.id;
    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const session = sessions.get(sessionId);
      // Another principal's session is answered as if it did not exist: its id tells nothing.
      if (!session || session.owner !== owner) {
        return reply(res, 404, "Unknown or expired session: initialize a new one.");
      }
      const lastEventId = req.headers["last-event-id"];
      const resumeProblem =
        req.method === "GET" && typeof lastEventId === "string" && lastEventId !== ""
          ? session.events.resumeProblem(lastEventId)
          : undefined;
      if (resumeProblem) return reply(res, 400, resumeProblem);
      session.open++;
      session.lastActive = performance.now();
      res.once("close", () => {
        session.open--;
        session.lastActive = performance.now();
      });
      return session.transport.handleRequest(req, res);
    }
    if (req.method !== "POST") {
      return reply(res, 400, "No session: start one with a POST of an initialize request.");
    }
    const body = await readJson(req);
    if (body === undefined) return reply(res, 400, "The body must be JSON of at most 4 MB.");
    if (!isInitializeRequest(body)) {
      return reply(res, 400, "No session: the first request must be initialize (or send Mcp-Session-Id).");
    }
    const full = makeRoom(owner);
    if (full !== undefined) {
      const which =
        full === "server"
          ? `All ${maxServerSessions} sessions this server keeps at once, every client's together,`
          : `All ${maxSessions} sessions ${owner === undefined ? "of this server" : "you may keep"}`;
      return reply(
        res,
        503,
        `${which} are answering requests: try again later, or end a session you no longer use (DELETE ${MCP_PATH} with its Mcp-Session-Id).`,
        { "retry-after": String(SESSIONS_FULL_RETRY_AFTER_S) },
      );
    }
    countInitializing(owner, 1);
    let counted = true;
    const initialized = () => {
      if (counted) countInitializing(owner, -1);
      counted = false;
    };
    const events = new SessionEventStore();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: events,
      retryInterval: SSE_RETRY_MS,
      onsessioninitialized: (id) => {
        initialized();
        sessions.set(id, { server, transport, events, open: 0, lastActive: performance.now(), owner });
      },
    });
    // What the server declares depends on what its upstreams offer once started.
    await options.host.ready;
    const server = createMcpServer({
      ...options,
      webApprovals: approvals,
      ...(principal ? { principal, tenantOf: () => `principal:${principal.id}` } : {}),
    });
    transport.onclose = () => {
      events.close();
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      initialized();
    }
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.log(`http: ${req.method} ${req.url}: ${messageOf(error)}`);
      if (!res.headersSent) reply(res, 500, "Internal error.");
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port, hostname, () => {
      http.off("error", reject);
      resolve();
    });
  });
  const { port } = http.address() as AddressInfo;
  const shownHost = hostname.includes(":") ? `[${hostname}]` : hostname;
  // Requests arrive only once listening, so the pages can be told their origin first.
  approvals = new WebApprovals({
    origin: `http://${isWildcardAddress(hostname) ? "127.0.0.1" : shownHost}:${port}`,
    ...(options.approvalTimeoutMs === undefined ? {} : { timeoutMs: options.approvalTimeoutMs }),
  });
  return {
    url: `http://${shownHost}:${port}${MCP_PATH}`,
    async close() {
      clearInterval(sweeper);
      approvals.close();
      await Promise.all([...sessions.values()].map(({ server }) => server.close().catch(() => {})));
      sessions.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** Whether an address means every interface (0.0.0.0, ::): no name a client would use. */
function isWildcardAddress(hostname: string): boolean {
  const bare = bareHost(hostname);
  return bare === "0.0.0.0" || bare === "::" || bare === "";
}

/** The request names an allowed host, and comes from no web page or from one served by an allowed host. */
function addressedToUs(req: IncomingMessage, allowed: (name: string) => boolean): boolean {
  const host = req.headers.host;
  if (!host || !allowed(hostOf(host))) return false;
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    return allowed(new URL(origin).hostname);
  } catch {
    return false;
  }
}

/** A host name as compared: lower case, without IPv6 brackets. */
function bareHost(name: string): string {
  return name.replace(/^\[|\]$/g, "").toLowerCase();
}

/** The host part of a Host header (`127.0.0.1:3000`, `[::1]:3000`, `localhost`). */
function hostOf(header: string): string {
  if (header.startsWith("[")) return header.slice(0, header.indexOf("]") + 1);
  const colon = header.indexOf(":");
  return colon === -1 ? header : header.slice(0, colon);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const body = await readBody(req, MAX_BODY_BYTES);
  if (body === undefined) return undefined;
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}

function reply(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { ...headers, "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}
