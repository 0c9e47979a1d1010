/**
 * The authentication options of `cordon mcp --http`: `--auth-issuer URL --auth-audience AUD` (OAuth
 * access tokens), `--auth-token-file FILE` (a static token), or `--no-auth`; and the rule that a server
 * listening beyond loopback without authentication starts only when told `--no-auth`.
 */

import { UsageError } from "../../common/errors.js";
import { isLoopbackName } from "../mcp/http.js";
import type { HttpAuth } from "../mcp/http-auth.js";

/** The auth options as given. */
export interface McpAuthFlags {
  issuer?: string | undefined;
  audience?: string | undefined;
  tokenFile?: string | undefined;
  noAuth: boolean;
}

/**
 * Whether a server listening on `hostname` (undefined: the default, 127.0.0.1) can be reached from
 * beyond this machine: anything but a loopback address or `localhost` can (0.0.0.0 and :: most of all).
 */
export function reachableBeyondLoopback(hostname: string | undefined): boolean {
  return hostname !== undefined && !isLoopbackName(hostname);
}

/** Checks the flags against each other and the listening address; throws a UsageError for a bad mix. */
export function checkMcpAuthFlags(flags: McpAuthFlags, http: { port?: number; hostname?: string }): void {
  const { issuer, audience, tokenFile, noAuth } = flags;
  const given = [
    issuer && "--auth-issuer",
    audience && "--auth-audience",
    tokenFile && "--auth-token-file",
  ].filter((name): name is string => typeof name === "string");
  if ((given.length > 0 || noAuth) && http.port === undefined) {
    throw new UsageError(
      `${[...given, ...(noAuth ? ["--no-auth"] : [])].join(" and ")} only apply with --http <port>: on stdio the client that started cordon is the only one.`,
    );
  }
  if (noAuth && given.length > 0) {
    throw new UsageError(`--no-auth contradicts ${given.join(" and ")}: give one or the other.`);
  }
  if ((issuer === undefined) !== (audience === undefined)) {
    throw new UsageError(
      "--auth-issuer and --auth-audience go together: the authorization server whose tokens are accepted, and the audience (this server's URL, e.g. https://mcp.example.com/mcp) they must be issued for.",
    );
  }
  if (issuer !== undefined) checkUrl("--auth-issuer", issuer);
  if (audience !== undefined) checkUrl("--auth-audience", audience);
  if (http.port !== undefined && given.length === 0 && !noAuth && reachableBeyondLoopback(http.hostname)) {
    throw new UsageError(
      `--host ${http.hostname} can be reached from beyond this machine, and nothing would authenticate its clients: anyone who can reach it could run code against your tools. Add --auth-issuer URL --auth-audience AUD (OAuth) or --auth-token-file FILE (a static token), or --no-auth if something in front of cordon authenticates them.`,
    );
  }
}

/** The authentication the flags ask for (checked by {@link checkMcpAuthFlags}); undefined for none. */
export async function mcpAuthOf(flags: McpAuthFlags): Promise<HttpAuth | undefined> {
  const { issuer, audience, tokenFile } = flags;
  if (issuer === undefined && tokenFile === undefined) return undefined;
  const [{ httpAuth }, { issuerVerifier }, { readStaticTokenFile }] = await Promise.all([
    import("../mcp/http-auth.js"),
    import("../mcp/auth-issuer.js"),
    import("../mcp/auth-token-file.js"),
  ]);
  return httpAuth({
    ...(issuer !== undefined && audience !== undefined ? { issuer: issuerVerifier(issuer, audience) } : {}),
    ...(tokenFile !== undefined ? { staticToken: await readStaticTokenFile(tokenFile) } : {}),
  });
}

function checkUrl(flag: string, value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${flag} ${value} is not a URL: give an absolute https:// URL.`);
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackName(url.hostname))) {
    throw new UsageError(`${flag} ${value} must be an https:// URL (http:// only on loopback).`);
  }
  if (url.hash !== "") throw new UsageError(`${flag} ${value} must have no #fragment.`);
}
