/**
 * `cordon serve`: runs sandboxes for remote clients. Each client connects over a WebSocket with a bearer
 * token and speaks the same wire protocol a sandbox-host process speaks over its stdio; the server runs
 * the sandboxes in its own environment (sandbox-host processes, or Docker). Tools stay on the client:
 * a tool call travels back over the connection, so approval and policies happen where the tools live.
 * TLS is left to a reverse proxy in front of it (see the README).
 */

import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import type { WebSocket, WebSocketServer } from "ws";
import { UserError } from "../../common/errors.js";
import {
  clampLimits,
  type Environment,
  encodeMessage,
  LineSplitter,
  MAX_MESSAGE_BYTES,
  type OpenOptions,
  parseCommand,
  type Report,
  type RunFailureName,
  type Sandbox,
  type SandboxLimits,
} from "../../sandbox/contract/index.js";
import { processHealth } from "../../sandbox/program/health.js";
import { SandboxHost, type SandboxSource } from "../../sandbox/program/host.js";
import {
  DEFAULT_MAX_SANDBOXES,
  DEFAULT_SERVE_CEILINGS,
  defaultSandboxesPerClient,
  MIN_TOKEN_CHARS,
} from "./defaults.js";

/** The path clients connect to. */
export const SANDBOX_PATH = "/sandbox";

/** Commands one WebSocket message may carry: a client sends one per message; a flood is refused. */
const MAX_COMMANDS_PER_MESSAGE = 64;

/** How often the server checks that each client is still there (a WebSocket ping it must answer). */
const CLIENT_PING_MS = 15_000;

/** Options of {@link serveSandboxes}. */
export interface SandboxServerOptions {
  /** Where the sandboxes run (the server owns it and closes it with the server). */
  environment: Environment;
  /** The bearer token clients must send. At least 16 characters. */
  token: string;
  /** Port to listen on; 0 picks a free one. Default 0. */
  port?: number;
  /** Address to listen on. Default 127.0.0.1 (put a TLS reverse proxy in front to serve other hosts). */
  host?: string;
  /**
   * Sandboxes open at once over all clients; beyond it a run ends with a "busy" error. At most the
   * environment's `capacity` (what it keeps apart at once, one process or container each), so that the
   * sandboxes the server admits never wait for each other's place. Default 16, or that capacity when it
   * is lower (8 for `sandboxHostEnvironment()`'s defaults).
   */
  maxSandboxes?: number;
  /**
   * Sandboxes one client (one connection) may hold at once, so that one token holder cannot take them
   * all; beyond it its run ends with a "busy" error. Default: half of `maxSandboxes`.
   */
  maxSandboxesPerClient?: number;
  /**
   * The most a client may ask of a sandbox (its wall clock, CPU, memory, output, calls): what a client
   * asks above them is lowered to them, and clients learn them when they connect. Default
   * {@link DEFAULT_SERVE_CEILINGS}; a limit given here replaces that one only.
   */
  ceilings?: Partial<SandboxLimits>;
}

/** A running sandbox server. */
export interface SandboxServer {
  /** ws://host:port/sandbox */
  readonly url: string;
  readonly port: number;
  /** Clients connected now. */
  readonly clients: number;
  /** Stops accepting, ends every client's runs, closes the environment. */
  close(): Promise<void>;
}

/** Raised (and sent to the client as its run's error) when the server is at capacity. */
class SandboxBusy extends Error {
  override name: RunFailureName = "SandboxBusy";
}

/** Starts a sandbox server. */
export async function serveSandboxes(options: SandboxServerOptions): Promise<SandboxServer> {
  if (typeof options.token !== "string" || options.token.length < MIN_TOKEN_CHARS) {
    throw new UserError(
      `serveSandboxes: token must be a string of at least ${MIN_TOKEN_CHARS} characters (a random secret).`,
    );
  }
  const { environment } = options;
  const capacity = environment.capacity ?? Number.POSITIVE_INFINITY;
  const maxSandboxes = options.maxSandboxes ?? Math.min(DEFAULT_MAX_SANDBOXES, capacity);
  const perClient = options.maxSandboxesPerClient ?? defaultSandboxesPerClient(maxSandboxes);
  for (const [name, value] of [
    ["maxSandboxes", maxSandboxes],
    ["maxSandboxesPerClient", perClient],
    ["the environment's capacity", environment.capacity ?? 1],
  ] as const) {
    if (!Number.isInteger(value) || value < 1) {
      throw new UserError(`serveSandboxes: ${name} must be a whole number >= 1, got ${String(value)}.`);
    }
  }
  // Past it, a client within its share could pin every process or container and keep others waiting.
  if (maxSandboxes > capacity) {
    throw new UserError(
      `serveSandboxes: maxSandboxes is ${maxSandboxes}, but the environment (${environment.name}) keeps at most ${capacity} sandboxes apart at once, so one client's sandboxes could keep another's waiting for a place. Lower maxSandboxes to ${capacity}, or give the environment room for ${maxSandboxes} (sandboxHostEnvironment's maxProcesses, dockerEnvironment's maxContainers).`,
    );
  }
  const ceilings: Partial<SandboxLimits> = { ...DEFAULT_SERVE_CEILINGS, ...options.ceilings };
  for (const [name, value] of Object.entries(ceilings)) {
    if (!(typeof value === "number" && value > 0 && Number.isFinite(value))) {
      throw new UserError(`serveSandboxes: ceilings.${name} must be a number > 0, got ${String(value)}.`);
    }
  }
  const expected = digest(options.token);
  let open = 0;
  let clients = 0;
  /**
   * The server's environment as one client sees it: capacity counted over every client and for this
   * one, every limit held under the ceilings, and the client a tenant of its own, so that its sandboxes
   * share no process with another client's.
   */
  const sourceFor = (): SandboxSource => {
    let mine = 0;
    const client = `client-${++clients}`;
    return {
      async open(limits: SandboxLimits, options?: OpenOptions): Promise<Sandbox> {
        if (open >= maxSandboxes) {
          throw new SandboxBusy(
            `The sandbox server is busy: it runs ${maxSandboxes} sandboxes, its limit. Try again shortly.`,
          );
        }
        if (mine >= perClient) {
          throw new SandboxBusy(
            `This client already holds ${mine} of the sandbox server's ${maxSandboxes} sandboxes, its share. Try again when one of its runs has ended.`,
          );
        }
        open++;
        mine++;
        let released = false;
        const release = () => {
          if (released) return;
          released = true;
          open--;
          mine--;
        };
        try {
          const tenant = `${client}/${options?.tenant ?? ""}`;
          const sandbox = await environment.open(clampLimits(limits, ceilings), { tenant });
          return {
            execute: (request, bridge, signal) =>
              sandbox.execute({ ...request, limits: clampLimits(request.limits, ceilings) }, bridge, signal),
            get alive() {
              return sandbox.alive;
            },
            get tainted() {
              return sandbox.tainted;
            },
            async dispose() {
              release();
              await sandbox.dispose();
            },
          };
        } catch (error) {
          release();
          throw error;
        }
      },
    };
  };

  const sockets = new Set<WebSocket>();
  // ws and node:http are loaded when a server starts: importing cordon does not pay for them.
  const load = createRequire(import.meta.url);
  const wsPackage = load("ws") as { WebSocketServer: typeof WebSocketServer };
  const { createServer } = load("node:http") as typeof import("node:http");
  const wss = new wsPackage.WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES + 1 });
  // Without the token nothing is said about what serves here, not even that it takes WebSockets.
  const server: Server = createServer((_request, response) => {
    response.writeHead(401, { "content-type": "text/plain" }).end("unauthorized");
  });
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => {});
    if (!authorized(request, expected) || new URL(request.url ?? "/", "http://x").pathname !== SANDBOX_PATH) {
      // A client with a wrong token, or none, learns nothing else.
      socket.end(
        "HTTP/1.1 401 Unauthorized\r\nContent-Type: text/plain\r\nContent-Length: 12\r\nConnection: close\r\n\r\nunauthorized",
      );
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => serveClient(ws));
  });

  const serveClient = (ws: WebSocket) => {
    sockets.add(ws);
    const send = (report: Report): boolean => {
      let line: string;
      try {
        line = encodeMessage(report);
      } catch {
        return false;
      }
      if (ws.readyState !== ws.OPEN) return true;
      // A client that does not read its reports would make the server hold them all: it is dropped.
      if (ws.bufferedAmount > 2 * MAX_MESSAGE_BYTES) {
        ws.terminate();
        return true;
      }
      ws.send(line);
      return true;
    };
    const host = new SandboxHost(sourceFor(), send, processHealth);
    const splitter = new LineSplitter();
    send(SandboxHost.hello(ceilings));
    ws.on("message", (data: Buffer) => {
      try {
        const lines = splitter.push(Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer));
        if (lines.length > MAX_COMMANDS_PER_MESSAGE) {
          throw new Error(
            `${lines.length} commands in one message; at most ${MAX_COMMANDS_PER_MESSAGE} are taken`,
          );
        }
        for (const line of lines) host.handle(parseCommand(line));
      } catch (error) {
        send({
          type: "fatal",
          reason: `the client sent a message the server cannot read: ${(error as Error).message}`,
        });
        ws.close(1008, "protocol error");
      }
    });
    ws.on("error", () => {});
    // A client gone without closing (a half-open connection) answers no ping: it is dropped.
    let answered = true;
    ws.on("pong", () => {
      answered = true;
    });
    const liveness = setInterval(() => {
      if (!answered) {
        ws.terminate();
        return;
      }
      answered = false;
      ws.ping();
    }, CLIENT_PING_MS);
    liveness.unref();
    // A dropped client: its runs end and its sandboxes are freed.
    ws.on("close", () => {
      clearInterval(liveness);
      sockets.delete(ws);
      void host.close();
    });
  };

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  const hostName = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `ws://${hostName}:${address.port}${SANDBOX_PATH}`,
    port: address.port,
    get clients() {
      return sockets.size;
    },
    async close() {
      for (const ws of sockets) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await environment.close();
    },
  };
}

/** Whether the request carries the token (compared as digests, in constant time). */
function authorized(request: IncomingMessage, expected: Buffer): boolean {
  const header = request.headers.authorization ?? "";
  const match = /^Bearer (.+)$/.exec(header);
  if (!match) return false;
  return timingSafeEqual(digest(match[1]!), expected);
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}
