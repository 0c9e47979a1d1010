/**
 * A remote upstream's OAuth access token refreshed with a real refresh token: `cordon mcp` (the built
 * CLI) signs in to an official-SDK MCP server on 127.0.0.1 behind a real authorization server
 * (oidc-provider, test/mcp/oauth-issuer.ts) as a person would, and once the access token it kept is
 * refused, gets a new one with the refresh token it kept, nobody signing in again.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ensureBuilt, root } from "../cli/helpers.js";
import { type Connected, connectStdio, runCode, textOf } from "./helpers.js";
import { signIn, startIssuer, type TestIssuer } from "./oauth-issuer.js";

const SERVER = join(root, "test/mcp/fixtures/http-upstream-server.ts");

let folder: string;
let issuer: TestIssuer;
let upstream: ChildProcess | undefined;
const connections: Connected[] = [];

beforeAll(async () => {
  ensureBuilt();
  folder = await mkdtemp(join(tmpdir(), "cordon-refresh-"));
  process.env.XDG_CONFIG_HOME = join(folder, "config");
  issuer = await startIssuer();
});

afterAll(async () => {
  for (const connected of connections) await connected.close().catch(() => {});
  upstream?.kill("SIGKILL");
  await issuer?.close();
  await rm(folder, { recursive: true, force: true });
});

/** Starts the HTTP upstream fixture behind the issuer and resolves with its URL. */
function startUpstream(): Promise<string> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", SERVER, "--port", "0", "--issuer", issuer.issuer],
    {
      cwd: root,
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  upstream = child;
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const match = /listening (\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`the upstream exited (${code})`)));
  });
}

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 50));
}

it("an access token the server refuses is refreshed with the kept refresh token, and the call goes through", async () => {
  const url = await startUpstream();
  const first = await connectStdio(["--upstream", `calc=${url}`]);
  connections.push(first);
  let authorization: URL | undefined;
  await waitFor(() => {
    const match = /needs authorization: open (\S+) in a browser/.exec(first.stderr());
    if (match) authorization = new URL(match[1]!);
    return authorization !== undefined;
  });
  const code = await signIn(authorization!, "dave");
  const redirect = new URL(authorization!.searchParams.get("redirect_uri")!);
  redirect.searchParams.set("code", code);
  redirect.searchParams.set("state", authorization!.searchParams.get("state")!);
  expect((await fetch(redirect)).status).toBe(200);
  await waitFor(() => first.stderr().includes("upstream calc: ready"));
  expect(
    textOf(await runCode(first.client, "return (await tools.calc__add({ a: 3, b: 4 })).sum;")),
  ).toContain("7");
  await first.close();

  const kept = join(folder, "config", "cordon", "upstream-auth");
  const [file] = await readdir(kept);
  const path = join(kept, file!);
  const stored = JSON.parse(await readFile(path, "utf8")) as {
    tokens: { access_token: string; refresh_token?: string };
  };
  expect(stored.tokens.refresh_token).toEqual(expect.any(String));
  // The access token is one the server refuses now (as an expired one would be); the refresh token stays.
  const refused = `${stored.tokens.access_token.slice(0, -8)}AAAAAAAA`;
  await writeFile(path, JSON.stringify({ ...stored, tokens: { ...stored.tokens, access_token: refused } }), {
    mode: 0o600,
  });

  const again = await connectStdio(["--upstream", `calc=${url}`]);
  connections.push(again);
  const result = await runCode(again.client, "return (await tools.calc__add({ a: 5, b: 6 })).sum;");
  expect(textOf(result)).toContain("11");
  expect(again.stderr()).not.toContain("needs authorization");
  const renewed = JSON.parse(await readFile(path, "utf8")) as { tokens: { access_token: string } };
  expect(renewed.tokens.access_token).not.toBe(refused);
  expect(renewed.tokens.access_token).not.toBe(stored.tokens.access_token);
});
