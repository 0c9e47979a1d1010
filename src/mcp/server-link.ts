/**
 * Client links (see client-link.ts) over cordon's own MCP server connection: progress and log messages
 * as notifications of the request they concern, and an upstream's questions as requests to the client,
 * on that request's stream (so an HTTP client receives them on the response it is reading).
 */

import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  type ElicitResult,
  ElicitResultSchema,
  type LoggingLevel,
  LoggingLevelSchema,
  type ProgressToken,
  type RequestId,
  type ServerNotification,
} from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_APPROVAL_TIMEOUT_MS } from "../dispatch/dispatcher.js";
import type { ClientAsk, ClientLink } from "./client-link.js";
import type { TenantKey } from "./tenant.js";

/**
 * The log level of a connection until its client sets one with `logging/setLevel`: console.debug lines
 * are not sent unless the client asks for them.
 */
export const DEFAULT_LOG_LEVEL: LoggingLevel = "info";

/** How long a question passed on to the client may wait for its answer, in ms (as an approval does). */
const CLIENT_QUESTION_TIMEOUT_MS = DEFAULT_APPROVAL_TIMEOUT_MS;

/** The logger name of a run's console output. */
const RUN_LOGGER = "run_code";

const SEVERITY = new Map(LoggingLevelSchema.options.map((level, index) => [level, index]));

/** Whether a message at `level` goes out to a client whose level is `threshold`. */
export function logLevelAllows(threshold: LoggingLevel, level: LoggingLevel): boolean {
  return (SEVERITY.get(level) ?? 0) >= (SEVERITY.get(threshold) ?? 0);
}

/** The request a link belongs to, when it belongs to one. */
interface LinkedRequest {
  requestId: RequestId;
  /** The token the client gave to receive progress on the request. */
  progressToken?: ProgressToken;
  /** Sends a notification related to the request. */
  sendNotification(notification: ServerNotification): Promise<void>;
}

/** Options of {@link serverLink}. */
export interface ServerLinkOptions {
  /** The connection's identity, shared by all its links. */
  client: object;
  /** The tenant the link's requests are for. */
  tenant: TenantKey;
  /** The connection's log level now. */
  logLevel: () => LoggingLevel;
  /** The request the link is for; without one, a link of the connection (no progress, no logs). */
  request?: LinkedRequest;
}

/** A link to the client of `server`, for one request or for the connection. */
export function serverLink(server: Server, options: ServerLinkOptions): ClientLink {
  const { client, tenant, logLevel, request } = options;
  const asking = (signal: AbortSignal) => ({
    signal,
    timeout: CLIENT_QUESTION_TIMEOUT_MS,
    ...(request ? { relatedRequestId: request.requestId } : {}),
  });
  const notify = (notification: ServerNotification) => {
    // A client that went away misses it; the run goes on.
    request?.sendNotification(notification).catch(() => {});
  };
  let progress = 0;
  return {
    client,
    tenant,
    supports: (ask) => supports(server, ask),
    progress(message) {
      if (request?.progressToken === undefined) return;
      progress += 1;
      notify({
        method: "notifications/progress",
        params: { progressToken: request.progressToken, progress, message },
      });
    },
    log(level, text) {
      if (!logLevelAllows(logLevel(), level)) return;
      notify({ method: "notifications/message", params: { level, logger: RUN_LOGGER, data: text } });
    },
    elicit: (params, signal): Promise<ElicitResult> =>
      server.request({ method: "elicitation/create", params }, ElicitResultSchema, asking(signal)),
    createMessage: (params, signal) => server.createMessage(params, asking(signal)),
    listRoots: (signal) => server.listRoots(undefined, asking(signal)),
  };
}

function supports(server: Server, ask: ClientAsk): boolean {
  const capabilities = server.getClientCapabilities();
  switch (ask) {
    case "elicitation": {
      const elicitation = capabilities?.elicitation;
      // An empty declaration means form mode; one that names only URL mode cannot show a form.
      return elicitation !== undefined && !(elicitation.form === undefined && elicitation.url !== undefined);
    }
    case "sampling":
      return capabilities?.sampling !== undefined;
    case "roots":
      return capabilities?.roots !== undefined;
  }
}
