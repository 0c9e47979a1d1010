/**
 * How `cordon mcp` authorizes itself to its remote upstreams: `--upstream-token NAME=FILE` (a bearer
 * token issued beforehand), `--upstream-client NAME=FILE` (OAuth's client credentials grant), or else
 * OAuth's authorization code flow when the server asks; OAuth registrations and tokens are kept 0600 in
 * `$XDG_CONFIG_HOME/cordon/upstream-auth` (`~/.config/cordon/upstream-auth`).
 */

import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { UsageError } from "../../common/errors.js";
import type { RemoteUpstreamSpec, UpstreamSpec } from "../mcp/upstream/spec.js";
import { xdgBaseDir } from "./xdg.js";

const MAX_SECRET_FILE_BYTES = 16_384;

/** The flags as given. */
export interface RemoteAuthFlags {
  tokens: readonly string[];
  clients: readonly string[];
  env: NodeJS.ProcessEnv;
}

/** Sets each remote spec's `auth` from the flags; throws a UsageError for a flag naming no remote upstream. */
export async function applyRemoteAuth(specs: UpstreamSpec[], flags: RemoteAuthFlags): Promise<void> {
  const given = new Set<string>();
  for (const value of flags.tokens) {
    const [spec, file] = remoteOf(specs, "--upstream-token", value, given);
    const token = (await readSecretFile("--upstream-token", file)).split(/\r?\n/, 1)[0]!.trim();
    if (token === "")
      throw new UsageError(`--upstream-token ${value}: the file holds no token on its first line.`);
    spec.auth = { token };
  }
  for (const value of flags.clients) {
    const [spec, file] = remoteOf(specs, "--upstream-client", value, given);
    const credentials = clientCredentialsOf(file, await readSecretFile("--upstream-client", file));
    spec.auth = { oauthFolder: oauthFolderOf(flags.env), credentials };
  }
  for (const spec of specs) {
    if ("url" in spec && spec.auth === undefined) spec.auth = { oauthFolder: oauthFolderOf(flags.env) };
  }
}

/** Where OAuth registrations and tokens of remote upstreams are kept. */
function oauthFolderOf(env: NodeJS.ProcessEnv): string {
  const base = xdgBaseDir(env, "XDG_CONFIG_HOME");
  if (base === undefined) {
    throw new UsageError(
      "a remote --upstream may need OAuth tokens, kept in $XDG_CONFIG_HOME/cordon, and there is no home folder: set XDG_CONFIG_HOME, or give --upstream-token NAME=FILE.",
    );
  }
  return join(base, "cordon", "upstream-auth");
}

function remoteOf(
  specs: UpstreamSpec[],
  flag: string,
  value: string,
  given: Set<string>,
): [RemoteUpstreamSpec, string] {
  const equals = value.indexOf("=");
  const name = value.slice(0, Math.max(equals, 0));
  const file = value.slice(equals + 1);
  if (equals <= 0 || file === "") throw new UsageError(`${flag} ${value}: expected NAME=FILE.`);
  const spec = specs.find((candidate) => candidate.name === name);
  if (spec === undefined || !("url" in spec)) {
    const remotes = specs.filter((candidate) => "url" in candidate).map((candidate) => candidate.name);
    throw new UsageError(
      `${flag} ${name}=...: ${name} is not an --upstream given by URL; give the NAME of one of: ${remotes.join(", ") || "(none given)"}.`,
    );
  }
  if (given.has(name)) {
    throw new UsageError(`${flag} ${name}: ${name} already has a token or client; give one of them.`);
  }
  given.add(name);
  return [spec, file];
}

/** Reads a file of secrets, refusing one that other users could read. */
async function readSecretFile(flag: string, path: string): Promise<string> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch (error) {
    throw new UsageError(`${flag} ${path} cannot be read: ${(error as Error).message}.`);
  }
  if (!info.isFile() || info.size > MAX_SECRET_FILE_BYTES)
    throw new UsageError(`${flag} ${path} is not a small file.`);
  if (process.platform !== "win32" && (info.mode & 0o077) !== 0) {
    const mode = (info.mode & 0o777).toString(8).padStart(3, "0");
    throw new UsageError(
      `${flag} ${path} has mode ${mode}: other users may read the secret. Make it readable by its owner alone: chmod 600 ${path}`,
    );
  }
  return readFile(path, "utf8");
}

function clientCredentialsOf(
  path: string,
  text: string,
): { clientId: string; clientSecret: string; issuer?: string; scope?: string } {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    parsed = {};
  }
  const { client_id, client_secret, issuer, scope } = parsed;
  if (typeof client_id !== "string" || typeof client_secret !== "string" || client_id === "") {
    throw new UsageError(
      `--upstream-client ${path} must hold JSON with the client's "client_id" and "client_secret" (and optionally the "issuer" it is registered with and the "scope" to ask for).`,
    );
  }
  return {
    clientId: client_id,
    clientSecret: client_secret,
    ...(typeof issuer === "string" ? { issuer } : {}),
    ...(typeof scope === "string" ? { scope } : {}),
  };
}
