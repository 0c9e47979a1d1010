/**
 * A real OAuth 2.1 authorization server on 127.0.0.1 for the authentication tests: oidc-provider, with
 * the client credentials grant and resource indicators, issuing JWT access tokens whose audience is the
 * resource the client asked for. Each client is a principal (its tokens' `sub` is its client id). The
 * tests keep its signing key, to sign tokens the server would never issue (expired ones).
 */

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import Provider from "oidc-provider";

/** The clients registered, by id, with their secrets. */
export const CLIENTS = {
  alice: "alice-secret-0123456789abcdef",
  bob: "bob-secret-0123456789abcdef",
} as const;

/**
 * Signs in as `login` at the issuer's authorization URL, as a person in a browser would (its sign-in
 * page, then its consent page, cookies kept), and returns the authorization code sent to the redirect
 * URI.
 */
export async function signIn(authorizationUrl: URL, login: string): Promise<string> {
  const cookies = new Map<string, string>();
  const visit = async (url: URL, init: RequestInit = {}) => {
    const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    const response = await fetch(url, { ...init, redirect: "manual", headers: { ...init.headers, cookie } });
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(";", 1)[0]!;
      cookies.set(pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1));
    }
    return response;
  };
  let url = authorizationUrl;
  let response = await visit(url);
  for (let step = 0; step < 10; step++) {
    const location = response.headers.get("location");
    if (location !== null) {
      url = new URL(location, url);
      const code = url.searchParams.get("code");
      if (code !== null) return code;
      const error = url.searchParams.get("error");
      if (error !== null)
        throw new Error(`the issuer answered ${error}: ${url.searchParams.get("error_description")}`);
      response = await visit(url);
      continue;
    }
    const page = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    const prompt = /name="prompt" value="([^"]+)"/.exec(page)?.[1];
    if (action === undefined || prompt === undefined)
      throw new Error(`no form to fill in at ${url}: ${page}`);
    url = new URL(action, url);
    response = await visit(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ prompt, login, password: "any" }),
    });
  }
  throw new Error("the sign-in did not end with an authorization code");
}

/** A running issuer. */
export interface TestIssuer {
  /** Its issuer identifier, e.g. `http://127.0.0.1:4123`. */
  issuer: string;
  /** A token from the token endpoint (client credentials) for `resource`. */
  token(client: keyof typeof CLIENTS, resource: string): Promise<string>;
  /** A token signed with the issuer's own key, with these claims (for tokens it would not issue). */
  sign(claims: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

const KID = "test-key-1";

/** Starts the issuer on a free loopback port. */
export async function startIssuer(): Promise<TestIssuer> {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: KID, alg: "ES256", use: "sig" };
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: Object.entries(CLIENTS).map(([client_id, client_secret]) => ({
      client_id,
      client_secret,
      grant_types: ["client_credentials"],
      redirect_uris: [],
      response_types: [],
    })),
    jwks: { keys: [jwk] },
    clientDefaults: { id_token_signed_response_alg: "ES256" },
    scopes: ["openid", "offline_access", "mcp"],
    // A refresh token for every client allowed the grant (the SDK asks for "mcp" alone, not offline_access).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    features: {
      // Its sign-in and consent pages, which the tests fill in as a person would (see signIn).
      devInteractions: { enabled: true },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined as unknown as string,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resourceIndicator) => ({
          scope: "mcp",
          audience: resourceIndicator,
          accessTokenTTL: 300,
          accessTokenFormat: "jwt",
          jwt: { sign: { alg: "ES256" } },
        }),
      },
    },
  });
  http.on("request", provider.callback());
  return {
    issuer,
    async token(client, resource) {
      const response = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from(`${client}:${CLIENTS[client]}`).toString("base64")}`,
        },
        body: new URLSearchParams({ grant_type: "client_credentials", resource, scope: "mcp" }),
      });
      const body = (await response.json()) as { access_token?: string };
      if (!body.access_token) throw new Error(`no token: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    sign: (claims) =>
      new SignJWT(claims).setProtectedHeader({ alg: "ES256", kid: KID, typ: "at+jwt" }).sign(privateKey),
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
