/**
 * Bearer tokens of an OAuth authorization server, checked as cordon's `--auth-issuer URL
 * --auth-audience AUD` asks: a JWT signed by one of the issuer's keys (its JWKS, found from its
 * metadata), naming that issuer, that audience, a subject, and an expiry still ahead. The metadata is
 * fetched once (a failed fetch is tried again, at most every {@link METADATA_RETRY_MS}); the keys are
 * cached, and a token signed by a key the cache does not know refetches them, at most once every
 * {@link JWKS_COOLDOWN_MS}, so the issuer can rotate its keys and a stream of forged `kid`s costs it
 * nothing. jose is loaded on first use, so that a server without authentication never loads it.
 */

import type { JWTVerifyGetKey } from "jose";
import { messageOf } from "../../common/errors.js";

/** How soon a failed fetch of the issuer's metadata is tried again, in ms. */
const METADATA_RETRY_MS = 5_000;

/** The shortest time between two fetches of the issuer's keys for an unknown `kid`, in ms. */
export const JWKS_COOLDOWN_MS = 30_000;

/** How long fetched keys are trusted without a refetch, in ms. */
const JWKS_MAX_AGE_MS = 10 * 60_000;

/** How long a fetch of the issuer's metadata or keys may take, in ms. */
const FETCH_TIMEOUT_MS = 5_000;

/** What a checked token says. */
interface VerifiedToken {
  /** The token's subject (`sub`): who it was issued to. */
  subject: string;
  /** The client it was issued through (`client_id`, else `azp`), when it says. */
  clientId: string | undefined;
  scopes: string[];
  /** Its expiry, in seconds since the epoch. */
  expiresAt: number;
}

/** A token refused: `message` says why (sent to the client in `error_description`). */
export class TokenRefused extends Error {}

/** The issuer could not be asked (its metadata or keys did not load): the token is neither good nor bad. */
export class IssuerUnavailable extends Error {}

/** Checks bearer tokens against one issuer. */
export interface IssuerVerifier {
  readonly issuer: string;
  readonly audience: string;
  verify(token: string): Promise<VerifiedToken>;
}

/** A verifier of `issuer`'s tokens for `audience`. */
export function issuerVerifier(issuer: string, audience: string): IssuerVerifier {
  let keys: Promise<JWTVerifyGetKey> | undefined;
  let failedAt = -Infinity;
  const keysOf = (): Promise<JWTVerifyGetKey> => {
    if (keys) return keys;
    if (performance.now() - failedAt < METADATA_RETRY_MS) {
      return Promise.reject(new IssuerUnavailable(`the issuer ${issuer} could not be reached a moment ago`));
    }
    keys = loadKeys(issuer).catch((error: unknown) => {
      keys = undefined;
      failedAt = performance.now();
      throw new IssuerUnavailable(messageOf(error));
    });
    return keys;
  };
  return {
    issuer,
    audience,
    async verify(token) {
      const getKey = await keysOf();
      const { jwtVerify, errors } = await import("jose");
      try {
        const { payload } = await jwtVerify(token, getKey, {
          issuer,
          audience,
          requiredClaims: ["exp", "sub"],
        });
        const scope = typeof payload.scope === "string" ? payload.scope : "";
        const clientId =
          typeof payload.client_id === "string"
            ? payload.client_id
            : typeof payload.azp === "string"
              ? payload.azp
              : undefined;
        return {
          subject: payload.sub!,
          clientId,
          scopes: scope.split(" ").filter((word) => word !== ""),
          expiresAt: payload.exp!,
        };
      } catch (error) {
        // The keys did not load (a timeout, a failed fetch, a JWKS that is no JWKS): the token is not at fault.
        if (
          !(error instanceof errors.JOSEError) ||
          error.code === "ERR_JOSE_GENERIC" ||
          error instanceof errors.JWKSTimeout ||
          error instanceof errors.JWKSInvalid
        ) {
          throw new IssuerUnavailable(`the issuer's keys could not be fetched: ${messageOf(error)}`);
        }
        throw new TokenRefused(refusal(error, errors));
      }
    },
  };
}

/** What a refused token is told, by jose's error. */
function refusal(error: unknown, errors: typeof import("jose").errors): string {
  if (error instanceof errors.JWTExpired) return "the token has expired";
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "aud") return "the token was not issued for this server (its audience differs)";
    if (error.claim === "iss") return "the token was not issued by this server's authorization server";
    return `the token's ${error.claim} claim is missing or wrong`;
  }
  if (error instanceof errors.JWKSNoMatchingKey)
    return "the token is signed by a key the issuer does not have";
  if (error instanceof errors.JWSSignatureVerificationFailed) return "the token's signature is wrong";
  return "the token is not a JWT access token of this server's authorization server";
}

/** The issuer's JWKS, found from its metadata (RFC 8414, else OpenID Connect discovery). */
async function loadKeys(issuer: string): Promise<JWTVerifyGetKey> {
  const metadata = await issuerMetadata(issuer);
  const { createRemoteJWKSet } = await import("jose");
  return createRemoteJWKSet(new URL(metadata.jwks_uri), {
    cooldownDuration: JWKS_COOLDOWN_MS,
    cacheMaxAge: JWKS_MAX_AGE_MS,
    timeoutDuration: FETCH_TIMEOUT_MS,
  });
}

/** Where an issuer's metadata may be, in the order tried. */
function metadataUrls(issuer: string): URL[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, "");
  return [
    new URL(`/.well-known/oauth-authorization-server${path}`, url),
    new URL(`/.well-known/openid-configuration${path}`, url),
    new URL(`${path}/.well-known/openid-configuration`, url),
  ];
}

async function issuerMetadata(issuer: string): Promise<{ jwks_uri: string }> {
  const problems: string[] = [];
  for (const url of metadataUrls(issuer)) {
    let response: Response;
    try {
      response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: "error" });
    } catch (error) {
      problems.push(`${url}: ${messageOf(error)}`);
      continue;
    }
    if (!response.ok) {
      problems.push(`${url}: HTTP ${response.status}`);
      continue;
    }
    const metadata = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (metadata?.issuer !== issuer) {
      throw new Error(
        `the metadata at ${url} names the issuer ${JSON.stringify(metadata?.issuer)}, not ${issuer}: give --auth-issuer exactly as the server names itself`,
      );
    }
    if (typeof metadata.jwks_uri !== "string") throw new Error(`the metadata at ${url} has no jwks_uri`);
    return { jwks_uri: metadata.jwks_uri };
  }
  throw new Error(`no authorization server metadata for ${issuer} (${problems.join("; ")})`);
}
