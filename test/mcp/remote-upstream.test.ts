/**
 * Remote upstreams of `cordon mcp` (the built CLI): `--upstream NAME=URL` reaching an official-SDK MCP
 * server over Streamable HTTP on 127.0.0.1 (a child process, so it can be restarted), used from
 * run_code; the same server as an OAuth protected resource of a real authorization server
 * (oidc-provider, test/mcp/oauth-issuer.ts), reached with client credentials, a pre-issued token, or a
 * person signing in at the URL cordon logs (its resources and prompts joining the client's lists then);
 * and the URLs cordon refuses.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ResourceListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { cordon, ensureBuilt, root } from "../cli/helpers.js";
import { type Connected, connectStdio, runCode, textOf } from "./helpers.js";
import { CLIENTS, signIn, startIssuer, type TestIssuer } from "./oauth-issuer.js";

const SERVER = join(root, "test/mcp/fixtures/http-upstream-server.ts");

interface Upstream {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the HTTP upstream fixture (on `port`, 0 for any) and waits for its URL. */
async function startUpstream(port = 0, issuer?: string): Promise<Upstream> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", SERVER, "--port", String(port), ...(issuer ? ["--issuer", issuer] : [])],
    { cwd: root, stdio: ["ignore", "pipe", "inherit"] },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const match = /listening (\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`the upstream exited (${code})`)));
  });
  return {
    url,
    child,
    async stop() {
      child.kill("SIGKILL");
      await exited;
    },
  };
}

let folder: string;
let mcp: Connected | undefined;
const upstreams: Upstream[] = [];

beforeAll(async () => {
  ensureBuilt();
  folder = await mkdtemp(join(tmpdir(), "cordon-remote-"));
  // cordon mcp keeps its OAuth tokens under XDG_CONFIG_HOME: here, in this test's own folder.
  process.env.XDG_CONFIG_HOME = join(folder, "config");
});

afterEach(async () => {
  await mcp?.close();
  mcp = undefined;
  await Promise.all(upstreams.splice(0).map((upstream) => upstream.stop()));
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function upstream(port = 0, issuer?: string): Promise<Upstream> {
  const started = await startUpstream(port, issuer);
  upstreams.push(started);
  return started;
}

async function secretFile(name: string, text: string): Promise<string> {
  const path = join(folder, name);
  await writeFile(path, text);
  await chmod(path, 0o600);
  return path;
}

describe("remote upstreams over Streamable HTTP", () => {
  it("an HTTP upstream's tools are called from run_code, namespaced by its name", async () => {
    const server = await upstream();
    mcp = await connectStdio(["--upstream", `calc=${server.url}`]);
    const { tools } = await mcp.client.listTools();
    expect(tools[0]!.description).toContain("calc__add");
    const result = await runCode(mcp.client, "return (await tools.calc__add({ a: 2, b: 3 })).sum;");
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain("5");
  });

  it("an HTTP upstream restarted mid-session: the next call connects a new session and is answered", async () => {
    const first = await upstream();
    mcp = await connectStdio(["--upstream", `calc=${first.url}`]);
    const before = await runCode(mcp.client, "return await tools.calc__whoami({});");
    expect(textOf(before)).toContain(`pid ${first.child.pid}`);
    await first.stop();
    const port = new URL(first.url).port;
    const second = await upstream(Number(port));
    const after = await runCode(mcp.client, "return await tools.calc__whoami({});");
    expect(after.isError).toBeFalsy();
    expect(textOf(after)).toContain(`pid ${second.child.pid}`);
    // cordon's log and its answers come on different pipes: the line may arrive after the answer.
    const logged = mcp;
    await vi.waitFor(() => expect(logged.stderr()).toContain("upstream calc: lost its session"), {
      timeout: 15_000,
    });
  });

  it("an HTTP upstream restarted mid-session: the next resource read connects a new session and is answered", async () => {
    const first = await upstream();
    mcp = await connectStdio(["--upstream", `calc=${first.url}`]);
    const uri = "cordon://calc/test://static-text";
    expect((await mcp.client.readResource({ uri })).contents).toHaveLength(1);
    await first.stop();
    await upstream(Number(new URL(first.url).port));
    const after = await mcp.client.readResource({ uri });
    expect(after.contents).toEqual([{ uri, mimeType: "text/plain", text: "static text from remote" }]);
    const logged = mcp;
    await vi.waitFor(() => expect(logged.stderr()).toContain("upstream calc: lost its session"), {
      timeout: 15_000,
    });
  });

  it("an HTTP upstream's question reaches the client, and the answer reaches the upstream's tool", async () => {
    const server = await upstream();
    mcp = await connectStdio(["--upstream", `ask=${server.url}`], () => ({
      action: "accept",
      content: { answer: "green" },
    }));
    const result = await runCode(
      mcp.client,
      `return await tools.ask__ask({ question: "Your favourite colour?" });`,
    );
    expect(textOf(result)).toContain("accept: green");
    expect(mcp.questions).toEqual(['The MCP server "ask" asks: Your favourite colour?']);
  });

  it("a call whose answer stream the server closes is answered on the stream resumed with Last-Event-ID", async () => {
    const server = await upstream();
    mcp = await connectStdio(["--upstream", `calc=${server.url}`]);
    const result = await runCode(
      mcp.client,
      "return [await tools.calc__resumable({}), (await tools.calc__resumptions({})).resumptions];",
    );
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain('result: ["answered",1]');
  });

  it("an HTTP upstream that is down: the call says it could not be reached, and cordon keeps serving", async () => {
    const server = await upstream();
    await server.stop();
    mcp = await connectStdio(["--upstream", `calc=${server.url}`]);
    const { tools } = await mcp.client.listTools();
    expect(tools[0]!.description).toContain(`- calc: ${server.url} could not be reached`);
  });

  it("a URL of another scheme, or plain http beyond loopback, is a usage error saying what to give", async () => {
    const ws = await cordon(["mcp", "--upstream", "calc=ws://127.0.0.1:1/mcp"]);
    expect(ws.code).toBe(2);
    expect(ws.stderr).toContain("the scheme ws is not supported; an upstream URL must be https://");
    const plain = await cordon(["mcp", "--upstream", "calc=http://mcp.example.com/mcp"]);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain("plain http:// is only accepted to this machine");
  });
});

describe("remote upstreams behind OAuth", () => {
  let issuer: TestIssuer;
  beforeAll(async () => {
    issuer = await startIssuer();
  });
  afterAll(async () => {
    await issuer?.close();
  });

  it("with --upstream-client, cordon gets a token by client credentials and keeps it 0600", async () => {
    const server = await upstream(0, issuer.issuer);
    const client = await secretFile(
      "client.json",
      JSON.stringify({
        client_id: "alice",
        client_secret: CLIENTS.alice,
        issuer: issuer.issuer,
        scope: "mcp",
      }),
    );
    mcp = await connectStdio(["--upstream", `calc=${server.url}`, "--upstream-client", `calc=${client}`]);
    const result = await runCode(mcp.client, "return (await tools.calc__add({ a: 20, b: 22 })).sum;");
    expect(textOf(result)).toContain("42");
    const kept = join(folder, "config", "cordon", "upstream-auth");
    const files = await readdir(kept);
    expect(files).toHaveLength(1);
    expect((await stat(join(kept, files[0]!))).mode & 0o777).toBe(0o600);
    expect((await stat(kept)).mode & 0o777).toBe(0o700);
    expect(JSON.parse(await readFile(join(kept, files[0]!), "utf8")).tokens.access_token).toEqual(
      expect.any(String),
    );
  });

  it("behind OAuth, the upstream's resources and prompts reach the client namespaced, and code reads its resource", async () => {
    const server = await upstream(0, issuer.issuer);
    const client = await secretFile(
      "client-resources.json",
      JSON.stringify({
        client_id: "alice",
        client_secret: CLIENTS.alice,
        issuer: issuer.issuer,
        scope: "mcp",
      }),
    );
    mcp = await connectStdio(["--upstream", `calc=${server.url}`, "--upstream-client", `calc=${client}`]);
    const { resources } = await mcp.client.listResources();
    expect(resources.map((resource) => resource.uri)).toContain("cordon://calc/test://static-text");
    const read = await mcp.client.readResource({ uri: "cordon://calc/test://static-text" });
    expect(read.contents).toEqual([
      { uri: "cordon://calc/test://static-text", mimeType: "text/plain", text: "static text from remote" },
    ]);
    const { prompts } = await mcp.client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toContain("calc__test_simple_prompt");
    const prompt = await mcp.client.getPrompt({ name: "calc__test_simple_prompt" });
    expect(prompt.messages[0]!.content).toEqual({
      type: "text",
      text: "This is a simple prompt from remote.",
    });
    const fromCode = await runCode(
      mcp.client,
      'return (await tools.calc__read_resource({ uri: "test://static-text" })).contents[0].text;',
    );
    expect(textOf(fromCode)).toContain("static text from remote");
  });

  it("with --upstream-token, cordon sends the pre-issued token; a token file others can read is refused", async () => {
    const server = await upstream(0, issuer.issuer);
    const token = await secretFile("token", await issuer.token("bob", server.url));
    mcp = await connectStdio(["--upstream", `calc=${server.url}`, "--upstream-token", `calc=${token}`]);
    const result = await runCode(mcp.client, "return (await tools.calc__add({ a: 1, b: 1 })).sum;");
    expect(textOf(result)).toContain("2");
    await chmod(token, 0o644);
    const refused = await cordon([
      "mcp",
      "--upstream",
      `calc=${server.url}`,
      "--upstream-token",
      `calc=${token}`,
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("has mode 644: other users may read the secret");
  });

  it("without credentials, cordon logs the authorization URL and serves meanwhile; once a person signs in, the tools work", async () => {
    const server = await upstream(0, issuer.issuer);
    const connected = await connectStdio(["--upstream", `calc=${server.url}`]);
    mcp = connected;
    let url: URL | undefined;
    for (let tries = 0; url === undefined && tries < 600; tries++) {
      const match = /needs authorization: open (\S+) in a browser/.exec(connected.stderr());
      if (match) url = new URL(match[1]!);
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(url).toBeDefined();
    // Meanwhile cordon serves, and says what the upstream waits for; what it offers besides tools is
    // not known yet, so resources and prompts are declared, and listed once it is there.
    expect(connected.client.getServerCapabilities()?.resources).toBeDefined();
    expect(connected.client.getServerCapabilities()?.prompts).toBeDefined();
    expect((await connected.client.listResources()).resources).toEqual([]);
    let resourcesChanged = 0;
    connected.client.setNotificationHandler(ResourceListChangedNotificationSchema, async () => {
      resourcesChanged++;
    });
    const { tools } = await connected.client.listTools();
    expect(tools[0]!.description).toContain(`- calc: ${server.url} needs a person to authorize cordon`);
    const code = await signIn(url!, "carol");
    const redirect = new URL(url!.searchParams.get("redirect_uri")!);
    redirect.searchParams.set("code", code);
    redirect.searchParams.set("state", url!.searchParams.get("state")!);
    expect((await fetch(redirect)).status).toBe(200);
    // Then the upstream starts with its tokens, and its tools join run_code's description.
    for (let tries = 0; !connected.stderr().includes("upstream calc: ready") && tries < 600; tries++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await connected.client.listTools()).tools[0]!.description).toContain("calc__add");
    await vi.waitFor(() => expect(resourcesChanged).toBeGreaterThan(0), { timeout: 15_000 });
    const { resources } = await connected.client.listResources();
    expect(resources.map((resource) => resource.uri)).toContain("cordon://calc/test://static-text");
    const { prompts } = await connected.client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toContain("calc__test_simple_prompt");
    const result = await runCode(connected.client, "return (await tools.calc__add({ a: 3, b: 4 })).sum;");
    expect(textOf(result)).toContain("7");
    await connected.close();
    // Started again, cordon goes on with the tokens it kept: nobody needs to sign in.
    mcp = await connectStdio(["--upstream", `calc=${server.url}`]);
    const again = await runCode(mcp.client, "return (await tools.calc__add({ a: 5, b: 6 })).sum;");
    expect(textOf(again)).toContain("11");
    expect(mcp.stderr()).not.toContain("needs authorization");
  });
});
