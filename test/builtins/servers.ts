/**
 * Real HTTP(S) servers on loopback addresses for the built-in tools' tests: a route table, and a log of
 * every request each server received.
 */
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";

/** A request as the server saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** A running server. */
export interface TestServer {
  /** `http://127.0.0.1:PORT` (no trailing slash). */
  origin: string;
  host: string;
  port: number;
  /** Every request received, in order. */
  requests: SeenRequest[];
  /** How many requests were made for a path. */
  hits(path: string): number;
  close(): Promise<void>;
}

/** What a route does with a request (after the body has been read into `request.body`). */
export type Route = (request: SeenRequest, res: ServerResponse) => unknown;

/** Starts a server on `host` (a 127.0.0.0/8 address) whose routes are looked up by exact path. */
export async function startServer(
  routes: Record<string, Route>,
  options: { host?: string; https?: boolean } = {},
): Promise<TestServer> {
  const host = options.host ?? "127.0.0.1";
  const requests: SeenRequest[] = [];
  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const seen: SeenRequest = {
      method: req.method ?? "GET",
      path: req.url ?? "/",
      headers: req.headers,
      body: Buffer.concat(chunks).toString("utf8"),
    };
    requests.push(seen);
    const route = routes[seen.path.split("?")[0]!];
    if (!route) {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("no such route");
      return;
    }
    try {
      await route(seen, res);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    }
  };
  const server: Server = options.https
    ? createHttpsServer(
        {
          key: readFileSync(new URL("./fixtures/localhost-key.pem", import.meta.url)),
          cert: readFileSync(new URL("./fixtures/localhost-cert.pem", import.meta.url)),
        },
        handler,
      )
    : createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `${options.https ? "https" : "http"}://${host}:${port}`,
    host,
    port,
    requests,
    hits: (path) => requests.filter((r) => r.path === path).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A route answering with a fixed status, headers and body. */
export function respond(
  status: number,
  headers: Record<string, string | number>,
  body: string | Buffer = "",
): Route {
  return (_request, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };
}

/** A route answering with HTML. */
export const html = (body: string, status = 200): Route =>
  respond(status, { "content-type": "text/html; charset=utf-8" }, body);

/** A route redirecting to `location`. */
export const redirect = (location: string, status = 302): Route => respond(status, { location });
