/**
 * The remote environment: sandboxes on another host, run by `cordon serve` there. One authenticated
 * WebSocket carries every sandbox of this environment over the same wire protocol a local sandbox-host
 * process speaks; tool calls come back over it and run here, where the tools, approvals and policies
 * are. A dropped connection ends the runs that were on it; the next run connects again.
 */

import { createRequire } from "node:module";
import type WebSocket from "ws";
import { UserError } from "../../common/errors.js";
import {
  type Environment,
  MAX_MESSAGE_BYTES,
  type OpenOptions,
  runEnding,
  type Sandbox,
  type SandboxLimits,
} from "../../sandbox/contract/index.js";
import { WireConnection } from "../wire/connection.js";
import { type Ending, fatalEnding, unresponsiveEnding, violationEnding } from "../wire/endings.js";

export { SANDBOX_PATH, type SandboxServer, type SandboxServerOptions, serveSandboxes } from "./server.js";

/** Options of {@link remoteEnvironment}. */
export interface RemoteEnvironmentOptions {
  /** The server: ws://host:port/sandbox, or wss:// behind a TLS proxy. */
  url: string;
  /** The bearer token the server was started with. */
  token: string;
  /** How long connecting may take, in ms. Default 10,000. */
  connectTimeoutMs?: number;
  /** How often the server is pinged, and how long an answer may take, in ms. Defaults 2,000 and 10,000. */
  heartbeatMs?: number;
  hangTimeoutMs?: number;
}

/** The sentence the model's instructions use to describe this environment's isolation. */
export const REMOTE_ISOLATION =
  "Your code runs in a V8 isolate on a separate sandbox server, not in the agent's process: it has no " +
  "Node.js APIs (no require, process, file system, network or timers), memory and CPU limits, and can " +
  "reach the outside world only through `tools`, which run on the agent's side. If the code crashes or " +
  "exhausts its sandbox, only the sandbox is affected and the run ends with an error that says so.";

/** Creates the remote environment. Nothing connects until the first run. */
export function remoteEnvironment(options: RemoteEnvironmentOptions): Environment {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new UserError(
      `remoteEnvironment: url must be a ws:// or wss:// URL, got ${JSON.stringify(options.url)}.`,
    );
  }
  if (url.protocol !== "ws:" && url.protocol !== "wss:") {
    throw new UserError(`remoteEnvironment: url must start with ws:// or wss://, got ${url.protocol}//.`);
  }
  if (typeof options.token !== "string" || options.token === "") {
    throw new UserError("remoteEnvironment: token is required (the one `cordon serve` was started with).");
  }
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const heartbeat = { intervalMs: options.heartbeatMs ?? 2_000, timeoutMs: options.hangTimeoutMs ?? 10_000 };
  let live: WireConnection | undefined;
  let connecting: Promise<WireConnection> | undefined;
  let socket: WebSocket | undefined;
  let closed = false;

  const connect = (): Promise<WireConnection> =>
    new Promise<WireConnection>((resolve, reject) => {
      // ws is loaded on the first connection: importing cordon does not pay for it.
      const WebSocketClass = createRequire(import.meta.url)("ws") as typeof WebSocket;
      const ws = new WebSocketClass(url, {
        headers: { authorization: `Bearer ${options.token}` },
        maxPayload: MAX_MESSAGE_BYTES + 1,
        handshakeTimeout: connectTimeoutMs,
      });
      socket = ws;
      let settled = false;
      // The whole handshake (upgrade and the protocol's hello) has the connect timeout, not the upgrade alone.
      const deadline = setTimeout(
        () =>
          fail(`The sandbox server at ${url.host} did not start the protocol within ${connectTimeoutMs} ms.`),
        connectTimeoutMs,
      );
      const fail = (message: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        ws.terminate();
        reject(new Error(message));
      };
      // An ended connection is replaced by the next run (see `connection()` below).
      const stop = (ending: Ending) => {
        connection.end(ending);
        ws.terminate();
      };
      const connection = new WireConnection(
        {
          write: (line) => {
            if (ws.readyState === ws.OPEN) ws.send(line);
          },
        },
        {
          onFailure: (failure) => {
            // The server supervises its own sandbox processes: a stuck run's sandbox is disposed there,
            // and the runs beside it go on (the heartbeat still watches the server itself).
            if (failure.kind === "stuck") return;
            if (failure.kind === "violation") stop(violationEnding(failure.detail));
            else if (failure.kind === "unresponsive") stop(unresponsiveEnding(failure.detail));
            else stop(fatalEnding(failure.reason));
          },
        },
      );
      ws.on("unexpected-response", (_request, response) => {
        fail(
          response.statusCode === 401
            ? `The sandbox server at ${url.host} refused the token (unauthorized).`
            : `The sandbox server at ${url.host} answered ${response.statusCode} instead of accepting the connection.`,
        );
      });
      ws.on("error", (error) =>
        fail(`Could not connect to the sandbox server at ${url.host}: ${error.message}`),
      );
      ws.on("message", (data: Buffer) =>
        connection.receive(Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer)),
      );
      ws.on("close", () => {
        connection.end(lostEnding("the connection closed"));
        fail(`The sandbox server at ${url.host} closed the connection.`);
      });
      ws.on("open", () => {
        connection.ready.then(
          () => {
            if (settled) return;
            settled = true;
            clearTimeout(deadline);
            connection.startHeartbeat(heartbeat);
            resolve(connection);
          },
          (error: Error) =>
            fail(`The sandbox server at ${url.host} did not start the protocol: ${error.message}`),
        );
      });
    });

  /** The live connection, or one being made (concurrent runs share it); an ended one is replaced. */
  const connection = async (): Promise<WireConnection> => {
    if (live && !live.ended) return live;
    connecting ??= connect()
      .then((made) => {
        live = made;
        return made;
      })
      .finally(() => {
        connecting = undefined;
      });
    return connecting;
  };

  return {
    name: "remote",
    isolation: REMOTE_ISOLATION,
    async open(limits: SandboxLimits, options?: OpenOptions): Promise<Sandbox> {
      if (closed) throw new Error("This remote environment was closed; create a new one.");
      return (await connection()).open(limits, options?.tenant);
    },
    async close() {
      closed = true;
      await connecting?.catch(() => undefined);
      live?.end(lostEnding("the environment was closed"));
      socket?.terminate();
    },
  };
}

/** The connection to the sandbox server was lost: the runs on it end. */
function lostEnding(detail: string): Ending {
  return {
    ...runEnding(
      "SandboxUnavailable",
      `The connection to the sandbox server was lost (${detail}), so the run was stopped. The agent's process is fine; the next run connects again.`,
    ),
  };
}
