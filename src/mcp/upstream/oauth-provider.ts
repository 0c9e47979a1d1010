/**
 * The OAuth client cordon is to a remote upstream that needs authorization, for the SDK's client flow
 * (discovery from the 401, dynamic client registration, PKCE, refresh). Its registration and tokens are
 * kept in one file per upstream URL, 0600 in a 0700 folder, so that a restarted cordon goes on with them
 * and refreshes them. Two ways in: the client credentials grant (a client id and secret, for scripts), or
 * the authorization code flow, whose URL is written to the log for a person to open, with cordon
 * listening for the redirect on a loopback port.
 */

import { createHash, randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";

/** A client registered with the upstream's authorization server, for the client credentials grant. */
export interface UpstreamClientCredentials {
  clientId: string;
  clientSecret: string;
  /** The authorization server the client is registered with; the secret goes to no other. */
  issuer?: string;
  scope?: string;
}

/** What is kept for one upstream URL. */
interface StoredAuth {
  url: string;
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
}

/** The path the loopback listener takes the authorization's redirect on. */
const CALLBACK_PATH = "/callback";

/** The file kept for the upstream at `url`, in `folder`: named by a digest of the URL. */
export function upstreamAuthFile(folder: string, url: URL): string {
  const digest = createHash("sha256").update(url.href).digest("hex").slice(0, 16);
  return join(folder, `${digest}.json`);
}

/** Options of {@link StoredOAuthProvider}. */
export interface StoredOAuthOptions {
  /** The upstream's URL (what its registration and tokens are for). */
  url: URL;
  /** The file its registration and tokens are kept in (see {@link upstreamAuthFile}). */
  file: string;
  /** Client credentials: the client credentials grant. Without them, the authorization code flow. */
  credentials?: UpstreamClientCredentials;
  /** Where the authorization URL to open is written. */
  log: (line: string) => void;
}

/** An OAuth client provider whose registration and tokens live in a 0600 file. */
export class StoredOAuthProvider implements OAuthClientProvider {
  readonly #options: StoredOAuthOptions;
  #stored: StoredAuth | undefined;
  #verifier = "";
  #state = "";
  #listener: Server | undefined;
  #redirectUrl: string | undefined;
  #code: { promise: Promise<string>; resolve: (code: string) => void } | undefined;

  constructor(options: StoredOAuthOptions) {
    this.#options = options;
  }

  /** Reads the file, and for the authorization code flow opens the loopback listener. */
  async prepare(): Promise<void> {
    this.#stored ??= await this.#read();
    if (this.#options.credentials === undefined && this.#listener === undefined) await this.#listen();
  }

  /** Whether the flow is waiting for a person to authorize at the URL written to the log. */
  get awaitingAuthorization(): boolean {
    return this.#code !== undefined;
  }

  /** The authorization code the redirect brings, or undefined when none comes within `ms`. */
  async authorizationCode(ms: number): Promise<string | undefined> {
    const code = this.#code;
    if (code === undefined) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), ms);
    });
    try {
      return await Promise.race([code.promise, timeout]);
    } finally {
      clearTimeout(timer);
      this.#code = undefined;
    }
  }

  /** Stops listening for redirects. */
  close(): void {
    this.#listener?.close();
    this.#listener = undefined;
  }

  get redirectUrl(): string | undefined {
    return this.#options.credentials === undefined ? this.#redirectUrl : undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    const credentials = this.#options.credentials;
    if (credentials !== undefined) {
      return {
        client_name: "cordon",
        redirect_uris: [],
        grant_types: ["client_credentials"],
        token_endpoint_auth_method: "client_secret_basic",
        ...(credentials.scope === undefined ? {} : { scope: credentials.scope }),
      };
    }
    return {
      client_name: "cordon",
      redirect_uris: this.#redirectUrl === undefined ? [] : [this.#redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    this.#state = randomBytes(16).toString("base64url");
    return this.#state;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const credentials = this.#options.credentials;
    if (credentials !== undefined) {
      return {
        client_id: credentials.clientId,
        client_secret: credentials.clientSecret,
        ...(credentials.issuer === undefined ? {} : { issuer: credentials.issuer }),
      } as OAuthClientInformationMixed;
    }
    const client = this.#stored?.client;
    // A registration made for another redirect port cannot take this one's redirect: register again.
    const uris = (client as { redirect_uris?: string[] } | undefined)?.redirect_uris;
    if (client !== undefined && uris !== undefined && !uris.includes(this.#redirectUrl ?? "")) {
      return this.#stored?.tokens?.refresh_token === undefined ? undefined : client;
    }
    return client;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    if (this.#options.credentials !== undefined) return;
    await this.#write({ ...this.#storedNow(), client });
  }

  tokens(): OAuthTokens | undefined {
    return this.#stored?.tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.#write({ ...this.#storedNow(), tokens });
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    const { client, tokens, ...rest } = this.#storedNow();
    if (scope === "all") await this.#write(rest);
    else if (scope === "client") await this.#write({ ...rest, ...(tokens ? { tokens } : {}) });
    else if (scope === "tokens") await this.#write({ ...rest, ...(client ? { client } : {}) });
  }

  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (this.#options.credentials === undefined) return undefined;
    const params = new URLSearchParams({ grant_type: "client_credentials" });
    const wanted = scope ?? this.#options.credentials.scope;
    if (wanted) params.set("scope", wanted);
    return params;
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    if (this.#options.credentials !== undefined) {
      throw new Error(
        "its authorization server asked for a person to sign in, but cordon was given client credentials for it",
      );
    }
    let resolve!: (code: string) => void;
    const promise = new Promise<string>((done) => {
      resolve = done;
    });
    this.#code = { promise, resolve };
    this.#options.log(
      `needs authorization: open ${authorizationUrl.href} in a browser and sign in; cordon listens for the answer at ${this.#redirectUrl}`,
    );
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    return this.#verifier;
  }

  #storedNow(): StoredAuth {
    return this.#stored ?? { url: this.#options.url.href };
  }

  async #read(): Promise<StoredAuth> {
    try {
      const stored = JSON.parse(await readFile(this.#options.file, "utf8")) as StoredAuth;
      if (stored.url === this.#options.url.href) return stored;
    } catch {
      // None yet (or unreadable): start afresh.
    }
    return { url: this.#options.url.href };
  }

  async #write(stored: StoredAuth): Promise<void> {
    this.#stored = stored;
    const file = this.#options.file;
    await mkdir(join(file, ".."), { recursive: true, mode: 0o700 });
    const temporary = `${file}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify(stored), { mode: 0o600 });
    await chmod(temporary, 0o600);
    await rename(temporary, file);
  }

  async #listen(): Promise<void> {
    const listener = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const code = url.searchParams.get("code");
      if (url.pathname !== CALLBACK_PATH || code === null || url.searchParams.get("state") !== this.#state) {
        res.writeHead(400, { "content-type": "text/plain; charset=utf-8" });
        res.end("cordon: this is not the answer to an authorization cordon asked for.\n");
        return;
      }
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      res.end("cordon: authorized. You may close this page.\n");
      this.#code?.resolve(code);
    });
    // The port of the kept registration when there is one, so that it stays valid.
    const kept = (this.#stored?.client as { redirect_uris?: string[] } | undefined)?.redirect_uris?.[0];
    const keptPort = kept === undefined ? 0 : Number(new URL(kept).port);
    const port = await listenOn(listener, keptPort).catch(() => listenOn(listener, 0));
    listener.unref();
    this.#listener = listener;
    this.#redirectUrl = `http://127.0.0.1:${port}${CALLBACK_PATH}`;
  }
}

function listenOn(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
