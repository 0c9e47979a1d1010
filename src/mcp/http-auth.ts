/**
 * Authentication of cordon's MCP server over HTTP: who sends a request, from its bearer token. cordon
 * is an OAuth 2.1 protected resource (MCP's authorization spec, 2025-11-25): it publishes its protected
 * resource metadata (RFC 9728) naming its authorization server, answers a request without a good token
 * with 401 and a `WWW-Authenticate` pointing at that metadata, and accepts the issuer's JWT access
 * tokens for its audience (auth-issuer.ts); scripts may present a static token instead
 * (auth-token-file.ts). Whoever a token names is a principal: a tenant of its own (see http.ts).
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { IssuerUnavailable, type IssuerVerifier, TokenRefused } from "./auth-issuer.js";
import type { StaticToken } from "./auth-token-file.js";

/** Who sent a request: the tenant whose sessions, learnt types, approvals and tasks it reaches. */
export interface Principal {
  /** Unique among the server's principals: `oauth:<sub>` for the issuer's tokens, `token` for the static one. */
  readonly id: string;
}

/** The static token's principal. */
const STATIC_TOKEN_PRINCIPAL: Principal = { id: "token" };

const WELL_KNOWN = "/.well-known/oauth-protected-resource";

/** How requests are authenticated (at least one way). */
export interface HttpAuthOptions {
  /** The authorization server whose tokens are accepted, and the audience they must name. */
  issuer?: IssuerVerifier;
  /** A static token for scripts. */
  staticToken?: StaticToken;
}

/** A request's credentials, checked. */
type Authentication =
  | { ok: true; principal: Principal; authInfo: AuthInfo }
  | { ok: false; status: 401 | 503; error?: string; description: string };

/** The authentication of one HTTP server. */
export interface HttpAuth {
  /** Serves the protected resource metadata when `path` is one of its paths; false otherwise. */
  serveMetadata(path: string, req: IncomingMessage, res: ServerResponse): boolean;
  /** Who sent `req`, from its `Authorization` header. */
  authenticate(req: IncomingMessage): Promise<Authentication>;
  /** Answers a request that failed {@link authenticate}. */
  refuse(res: ServerResponse, failure: Extract<Authentication, { ok: false }>): void;
}

/** The authentication `options` describe. */
export function httpAuth(options: HttpAuthOptions): HttpAuth {
  const { issuer, staticToken } = options;
  const resource = issuer ? new URL(issuer.audience) : undefined;
  const metadataPaths = new Set<string>();
  let metadataUrl: string | undefined;
  if (resource) {
    const path = resource.pathname === "/" ? "" : resource.pathname;
    metadataPaths.add(WELL_KNOWN);
    metadataPaths.add(`${WELL_KNOWN}${path}`);
    metadataUrl = new URL(`${WELL_KNOWN}${path}`, resource).href;
  }
  const metadata = issuer && {
    resource: issuer.audience,
    authorization_servers: [issuer.issuer],
    bearer_methods_supported: ["header"],
    resource_name: "cordon",
  };
  const challenge = (failure?: { error?: string; description: string }) => {
    const parts: string[] = [];
    if (failure?.error)
      parts.push(`error="${failure.error}"`, `error_description="${quoted(failure.description)}"`);
    if (metadataUrl) parts.push(`resource_metadata="${metadataUrl}"`);
    return parts.length === 0 ? 'Bearer realm="cordon"' : `Bearer ${parts.join(", ")}`;
  };

  return {
    serveMetadata(path, req, res) {
      if (!metadata || !metadataPaths.has(path)) return false;
      const cors = { "access-control-allow-origin": "*", "access-control-allow-methods": "GET, OPTIONS" };
      if (req.method === "OPTIONS") {
        res.writeHead(204, cors);
        res.end();
      } else if (req.method !== "GET") {
        res.writeHead(405, { ...cors, allow: "GET, OPTIONS" });
        res.end();
      } else {
        res.writeHead(200, { ...cors, "content-type": "application/json", "cache-control": "max-age=300" });
        res.end(JSON.stringify(metadata));
      }
      return true;
    },

    async authenticate(req) {
      const header = req.headers.authorization;
      if (header === undefined) {
        return {
          ok: false,
          status: 401,
          description: "This server needs a bearer token (Authorization: Bearer <token>).",
        };
      }
      const match = /^Bearer +([\x21-\x7e]+) *$/i.exec(header);
      if (!match) {
        return {
          ok: false,
          status: 401,
          error: "invalid_request",
          description: "The Authorization header must be Bearer <token>.",
        };
      }
      const token = match[1]!;
      if (staticToken?.matches(token)) {
        return {
          ok: true,
          principal: STATIC_TOKEN_PRINCIPAL,
          authInfo: {
            token,
            clientId: STATIC_TOKEN_PRINCIPAL.id,
            scopes: [],
            extra: { principal: STATIC_TOKEN_PRINCIPAL },
          },
        };
      }
      if (!issuer)
        return { ok: false, status: 401, error: "invalid_token", description: "The token is wrong." };
      try {
        const verified = await issuer.verify(token);
        const principal: Principal = { id: `oauth:${verified.subject}` };
        return {
          ok: true,
          principal,
          authInfo: {
            token,
            clientId: verified.clientId ?? verified.subject,
            scopes: verified.scopes,
            expiresAt: verified.expiresAt,
            resource: new URL(issuer.audience),
            extra: { principal },
          },
        };
      } catch (error) {
        if (error instanceof TokenRefused) {
          return {
            ok: false,
            status: 401,
            error: "invalid_token",
            description: `Refused: ${error.message}.`,
          };
        }
        if (error instanceof IssuerUnavailable) {
          return {
            ok: false,
            status: 503,
            description: `Tokens cannot be checked now (${error.message}); try again later.`,
          };
        }
        throw error;
      }
    },

    refuse(res, failure) {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (failure.status === 401) headers["www-authenticate"] = challenge(failure);
      else headers["retry-after"] = "5";
      res.writeHead(failure.status, headers);
      res.end(
        JSON.stringify({
          error: failure.error ?? (failure.status === 401 ? "unauthorized" : "temporarily_unavailable"),
          error_description: failure.description,
        }),
      );
    },
  };
}

/** Text fit for a quoted-string of a header (cordon's own messages: only quotes and backslashes to drop). */
function quoted(text: string): string {
  return text.replace(/["\\]/g, "");
}
