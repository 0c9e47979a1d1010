/**
 * How cordon reaches a remote upstream: the SDK's Streamable HTTP client transport (its SSE streams
 * resumed with `Last-Event-ID` when they drop), authorized by a pre-issued bearer token, or by the SDK's
 * OAuth client flow with a {@link StoredOAuthProvider}; and what its connection failures mean.
 */

import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { messageOf } from "../../../common/errors.js";
import { StoredOAuthProvider, upstreamAuthFile } from "./oauth-provider.js";
import { messageLimitedFetch } from "./remote-limit.js";
import type { RemoteAuth, RemoteUpstreamSpec } from "./spec.js";

/** How long a person has to authorize cordon at the URL it wrote to the log. */
const AUTHORIZATION_WAIT_MS = 10 * 60_000;

/** How a dropped SSE stream is resumed (with `Last-Event-ID`): up to 5 tries, 0.5 s growing to 10 s apart. */
const RESUMPTION = {
  initialReconnectionDelay: 500,
  maxReconnectionDelay: 10_000,
  reconnectionDelayGrowFactor: 2,
  maxRetries: 5,
};

/** One remote upstream's connections: each start makes a new transport, with the same authorization. */
export class RemoteConnector {
  readonly #spec: RemoteUpstreamSpec;
  readonly #provider: StoredOAuthProvider | undefined;
  readonly #token: string | undefined;
  readonly #log: (line: string) => void;
  /** The longest message read from the server, in bytes (`--upstream-max-message`). */
  readonly #maxMessageBytes: number;
  /** A person's authorization under way: `exchanging` is set once the code came. */
  #authorizing: { exchanging: Promise<boolean> | undefined } | undefined;

  constructor(
    spec: RemoteUpstreamSpec,
    auth: RemoteAuth | undefined,
    log: (line: string) => void,
    maxMessageBytes: number,
  ) {
    this.#spec = spec;
    this.#log = log;
    this.#maxMessageBytes = maxMessageBytes;
    if (auth !== undefined && "token" in auth) this.#token = auth.token;
    else if (auth !== undefined) {
      this.#provider = new StoredOAuthProvider({
        url: spec.url,
        file: upstreamAuthFile(auth.oauthFolder, spec.url),
        ...(auth.credentials ? { credentials: auth.credentials } : {}),
        log,
      });
    }
  }

  /** A new transport to the server (not started). */
  async transport(): Promise<StreamableHTTPClientTransport> {
    await this.#provider?.prepare();
    return new StreamableHTTPClientTransport(this.#spec.url, {
      reconnectionOptions: RESUMPTION,
      fetch: messageLimitedFetch({ maxBytes: this.#maxMessageBytes, log: this.#log }),
      ...(this.#provider ? { authProvider: this.#provider } : {}),
      ...(this.#token === undefined
        ? {}
        : { requestInit: { headers: { authorization: `Bearer ${this.#token}` } } }),
    });
  }

  /**
   * After a start failed with `error` for want of a person's authorization: waits for it in the
   * background (the URL to open is in the log) and completes it on `transport`. Returns the promise of
   * that (true once tokens are in hand), or undefined when the failure was of another kind.
   */
  authorizeLater(error: unknown, transport: StreamableHTTPClientTransport): Promise<boolean> | undefined {
    const provider = this.#provider;
    if (!(error instanceof UnauthorizedError) || !provider?.awaitingAuthorization) return undefined;
    const authorizing: { exchanging: Promise<boolean> | undefined } = { exchanging: undefined };
    this.#authorizing = authorizing;
    const done = (async () => {
      const code = await provider.authorizationCode(AUTHORIZATION_WAIT_MS);
      if (code === undefined) return false;
      authorizing.exchanging = transport.finishAuth(code).then(
        () => true,
        (failure: unknown) => {
          this.#log(`authorization failed: ${messageOf(failure)}`);
          return false;
        },
      );
      return authorizing.exchanging;
    })().finally(() => {
      if (this.#authorizing === authorizing) this.#authorizing = undefined;
    });
    return done;
  }

  /** Whether a person's authorization is awaited (a start now would only ask again). */
  get waitingForPerson(): boolean {
    return this.#authorizing !== undefined && this.#authorizing.exchanging === undefined;
  }

  /** The exchange of a person's authorization code for tokens, while it runs. */
  get exchanging(): Promise<boolean> | undefined {
    return this.#authorizing?.exchanging;
  }

  /** Stops listening for authorization redirects. */
  close(): void {
    this.#provider?.close();
  }

  /** Why a start failed, in words, for connection and authorization failures; else undefined. */
  startFailure(error: unknown): string | undefined {
    const url = this.#spec.url.href;
    if (error instanceof UnauthorizedError) {
      if (this.#token !== undefined) return `${url} refused the token given with --upstream-token`;
      if (this.waitingForPerson) {
        return `${url} needs a person to authorize cordon: open the URL in cordon's log within ${AUTHORIZATION_WAIT_MS / 60_000} minutes; its tools come once it is done`;
      }
      return `${url} did not authorize cordon: ${error.message}`;
    }
    if (error instanceof StreamableHTTPError) return `${url} answered: ${error.message}`;
    if (lostConnection(error)) return `${url} could not be reached (${messageOf(causeOf(error))})`;
    return undefined;
  }
}

/**
 * Whether a request's failure means it never reached a server that knows cordon's session: the session
 * is unknown (404: the server restarted) or the connection was refused. Such a request ran nowhere, so
 * it may be sent again on a new session.
 */
export function neverDelivered(error: unknown): boolean {
  if (error instanceof StreamableHTTPError) return error.code === 404;
  return (causeOf(error) as { code?: unknown }).code === "ECONNREFUSED";
}

/** Whether a request's failure means the connection to the server was lost (it may have run there). */
export function lostConnection(error: unknown): boolean {
  if (neverDelivered(error)) return true;
  const code = (causeOf(error) as { code?: unknown }).code;
  return code === "ECONNRESET" || code === "UND_ERR_SOCKET" || code === "UND_ERR_CLOSED";
}

function causeOf(error: unknown): unknown {
  return error instanceof Error && error.cause !== undefined ? error.cause : error;
}
