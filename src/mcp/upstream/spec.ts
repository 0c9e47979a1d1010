/**
 * `--upstream NAME=COMMAND` or `--upstream NAME=URL`: which MCP server to start (or reach over Streamable
 * HTTP), under which name. The command is split into words
 * the way a shell would for simple cases (spaces separate words; single or double quotes group them; a
 * backslash escapes the next character); nothing is expanded and no shell runs it.
 */

import { UserError } from "../../../common/errors.js";
import { isLoopbackName } from "../loopback.js";
import type { UpstreamClientCredentials } from "./oauth-provider.js";

/** How cordon proves itself to a remote upstream. */
export type RemoteAuth =
  /** A bearer token issued beforehand, sent as it is. */
  | { token: string }
  /** The client credentials grant, or without them the authorization code flow, tokens kept in `oauthFolder`. */
  | { oauthFolder: string; credentials?: UpstreamClientCredentials };

/** An upstream MCP server: a command cordon starts, or a remote server it reaches by URL. */
export type UpstreamSpec = CommandUpstreamSpec | RemoteUpstreamSpec;

/** An upstream MCP server to reach over Streamable HTTP (`https://`, or `http://` on loopback). */
export interface RemoteUpstreamSpec {
  /** The namespace of its tools: `<name>__<tool>`. */
  name: string;
  url: URL;
  /** How cordon proves itself to it (`--upstream-token`, `--upstream-client`, or OAuth as it asks). */
  auth?: RemoteAuth;
  /** As {@link CommandUpstreamSpec.trusted}. */
  trusted?: boolean;
}

/** An upstream MCP server to start as a child process and talk to over stdio. */
export interface CommandUpstreamSpec {
  /** The namespace of its tools: `<name>__<tool>`. */
  name: string;
  command: string;
  args: string[];
  /**
   * The operator trusts what this server returns (`--trust-upstream NAME`): its tools' results carry no
   * label. By default they are `untrusted` (see docs/effects.md).
   */
  trusted?: boolean;
}

/** How long an upstream may take to start and list its tools, by default (npx may download it first). */
export const DEFAULT_UPSTREAM_START_TIMEOUT_MS = 60_000;

/** How long an upstream may take to answer one call, by default. */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 30_000;

/**
 * The longest message cordon reads from an upstream server by default, in bytes (the SDK's own stdio
 * limit); a longer one fails only the call it answers (`--upstream-max-message` raises it).
 */
export const DEFAULT_UPSTREAM_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** The least and the most `--upstream-max-message` may be, in bytes (a whole message is held as a string). */
export const MIN_UPSTREAM_MAX_MESSAGE_BYTES = 1_024;
export const MAX_UPSTREAM_MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

/** What an upstream's name must look like: it becomes part of every tool name in code. */
const UPSTREAM_NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9]*(?:_[a-zA-Z0-9]+)*$/;

/** The longest upstream name (tool names as a whole are capped at 64 characters). */
const MAX_UPSTREAM_NAME_CHARS = 24;

/** What starts a URL (a scheme and `://`), as opposed to a command. */
const URL_START = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//;

/**
 * Parses one `NAME=COMMAND` or `NAME=URL` value; throws a {@link UserError} that says what to write
 * instead.
 */
export function parseUpstreamSpec(value: string): UpstreamSpec {
  const equals = value.indexOf("=");
  if (equals <= 0) {
    throw new UserError(
      `--upstream ${JSON.stringify(value)}: expected NAME=COMMAND, e.g. --upstream github="npx -y @modelcontextprotocol/server-github".`,
    );
  }
  const name = value.slice(0, equals).trim();
  if (!UPSTREAM_NAME_PATTERN.test(name) || name.length > MAX_UPSTREAM_NAME_CHARS) {
    throw new UserError(
      `--upstream ${name}=...: the name must be 1 to ${MAX_UPSTREAM_NAME_CHARS} letters and digits, starting with a letter, with single underscores between words (e.g. github or my_files); its tools become ${name || "NAME"}__<tool>.`,
    );
  }
  const target = value.slice(equals + 1).trim();
  if (URL_START.test(target)) return { name, url: remoteUrl(name, target) };
  const words = splitCommand(target);
  if (words.length === 0) {
    throw new UserError(
      `--upstream ${name}=: the command is empty; give the command that starts the MCP server.`,
    );
  }
  const [command, ...args] = words as [string, ...string[]];
  return { name, command, args };
}

/** The URL of a remote upstream: https, or http to a loopback address; anything else is refused. */
function remoteUrl(name: string, text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UserError(`--upstream ${name}=${text}: this is not a valid URL.`);
  }
  if (url.protocol === "https:") return url;
  if (url.protocol === "http:") {
    if (isLoopbackName(url.hostname)) return url;
    throw new UserError(
      `--upstream ${name}=${text}: plain http:// is only accepted to this machine (127.0.0.1, ::1 or localhost), where nobody can read or change the traffic; use https:// for ${url.hostname}.`,
    );
  }
  throw new UserError(
    `--upstream ${name}=${text}: the scheme ${url.protocol.slice(0, -1)} is not supported; an upstream URL must be https:// (or http:// on loopback) and serve MCP's Streamable HTTP, or give a command to start a server over stdio.`,
  );
}

/** Splits a command line into words; throws a {@link UserError} for an unclosed quote. */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!;
    if (quote) {
      if (char === quote) quote = undefined;
      else if (char === "\\" && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      inWord = true;
    } else if (char === "\\" && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += char;
      inWord = true;
    }
  }
  if (quote) throw new UserError(`The command ${JSON.stringify(line)} has an unclosed ${quote} quote.`);
  if (inWord) words.push(word);
  return words;
}
