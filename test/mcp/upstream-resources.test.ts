/**
 * Upstream resources, resource templates, prompts and completions through `cordon mcp` (the built CLI),
 * seen by the official SDK client: a stdio upstream and a remote one on 127.0.0.1 (both official-SDK
 * servers serving the same URIs and prompt names, fixtures/resource-catalog.ts), each reached under its
 * own namespace; subscriptions per client session; and code reading a resource from run_code.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  PromptListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, root } from "../cli/helpers.js";
import {
  type Connected,
  connectHttp,
  connectStdio,
  returnedBy,
  runCode,
  UPSTREAM_COMMAND,
} from "./helpers.js";

const RESOURCE_COMMAND = `${process.execPath} --import tsx ${join(root, "test/mcp/fixtures/resource-server.ts")} files`;
const PAGING_COMMAND = `${process.execPath} --import tsx ${join(root, "test/mcp/fixtures/paging-server.ts")}`;
const HTTP_SERVER = join(root, "test/mcp/fixtures/http-upstream-server.ts");

let remote: { url: string; child: ChildProcess };
let mcp: (Connected & { url?: string }) | undefined;
const others: Client[] = [];

beforeAll(async () => {
  ensureBuilt();
  const child = spawn(process.execPath, ["--import", "tsx", HTTP_SERVER, "--port", "0"], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const match = /listening (\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`the HTTP upstream exited (${code})`)));
  });
  remote = { url, child };
});

afterEach(async () => {
  await Promise.all(others.splice(0).map((client) => client.close()));
  await mcp?.close();
  mcp = undefined;
});

afterAll(() => {
  remote.child.kill("SIGKILL");
});

function upstreamArgs(): string[] {
  return ["--upstream", `files=${RESOURCE_COMMAND}`, "--upstream", `remote=${remote.url}`];
}

/** Another client session on the same `cordon mcp --http`; `leave()` ends the session (DELETE). */
async function anotherSession(url: string): Promise<Client & { leave(): Promise<void> }> {
  const client = new Client({ name: "cordon-test-other", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  others.push(client);
  return Object.assign(client, { leave: () => transport.terminateSession() });
}

/** Resolves with the first `count` resource updates `client` receives, and keeps every one in `seen`. */
function resourceUpdates(client: Client, count: number, seen: string[] = []): Promise<string[]> {
  return new Promise((resolve) => {
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      seen.push(notification.params.uri);
      if (seen.length === count) resolve([...seen]);
    });
  });
}

describe("upstream resources", () => {
  it("lists each upstream's resources under cordon://<upstream>/ and reads each from the upstream that owns it", async () => {
    mcp = await connectStdio(upstreamArgs());
    const { client } = mcp;
    expect(client.getServerCapabilities()?.resources).toEqual({ listChanged: true, subscribe: true });
    const uris: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listResources(cursor === undefined ? {} : { cursor });
      uris.push(...page.resources.map((resource) => resource.uri));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(uris).toContain("cordon://files/test://static-text");
    expect(uris).toContain("cordon://remote/test://static-text");
    // The same URI at two upstreams: each read reaches its own.
    const files = await client.readResource({ uri: "cordon://files/test://static-text" });
    const other = await client.readResource({ uri: "cordon://remote/test://static-text" });
    expect(files.contents).toEqual([
      { uri: "cordon://files/test://static-text", mimeType: "text/plain", text: "static text from files" },
    ]);
    expect(other.contents[0]).toMatchObject({ text: "static text from remote" });
    const binary = await client.readResource({ uri: "cordon://remote/test://static-binary" });
    expect(binary.contents[0]).toMatchObject({ mimeType: "image/png", blob: expect.any(String) });
  });

  it("refuses to read a URI that is not cordon's form, or names no upstream, saying what to use", async () => {
    mcp = await connectStdio(upstreamArgs());
    const { client } = mcp;
    await expect(client.readResource({ uri: "test://static-text" })).rejects.toThrow(
      /Resource not found: "test:\/\/static-text"\. cordon names each upstream's resources cordon:\/\/<upstream>\/<the upstream's own URI>; use a URI from resources\/list/,
    );
    await expect(client.readResource({ uri: "cordon://nobody/test://static-text" })).rejects.toThrow(
      /there is no upstream named "nobody" \(there are: files, remote\)/,
    );
    await expect(client.readResource({ uri: "cordon://files/test://missing" })).rejects.toThrow(
      /The MCP server "files" could not read the resource test:\/\/missing/,
    );
  });

  it("lists resource templates under their upstream, and reads a filled-in template at that upstream", async () => {
    mcp = await connectStdio(upstreamArgs());
    const { client } = mcp;
    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates.map((template) => template.uriTemplate)).toContain(
      "cordon://files/test://template/{id}/data",
    );
    const read = await client.readResource({ uri: "cordon://remote/test://template/123/data" });
    expect(read.contents[0]).toMatchObject({
      uri: "cordon://remote/test://template/123/data",
      text: JSON.stringify({ id: "123", label: "remote" }),
    });
  });

  it("completes a template variable and a prompt argument at the upstream that owns them", async () => {
    mcp = await connectStdio(upstreamArgs());
    const { client } = mcp;
    expect(client.getServerCapabilities()?.completions).toEqual({});
    const ids = await client.complete({
      ref: { type: "ref/resource", uri: "cordon://files/test://template/{id}/data" },
      argument: { name: "id", value: "12" },
    });
    expect(ids.completion.values).toEqual(["123", "124"]);
    const args = await client.complete({
      ref: { type: "ref/prompt", name: "remote__test_prompt_with_arguments" },
      argument: { name: "arg1", value: "test" },
    });
    expect(args.completion.values).toEqual(["testValue1"]);
    await expect(
      client.complete({
        ref: { type: "ref/prompt", name: "test_prompt_with_arguments" },
        argument: { name: "arg1", value: "" },
      }),
    ).rejects.toThrow(
      /Unknown prompt "test_prompt_with_arguments"\. cordon names each upstream's prompts <upstream>__/,
    );
  });

  it("passes an upstream's pages on one by one, then the next upstream's, and refuses a cursor it did not give", async () => {
    mcp = await connectStdio([
      "--upstream",
      `paged=${PAGING_COMMAND}`,
      "--upstream",
      `files=${RESOURCE_COMMAND}`,
    ]);
    const { client } = mcp;
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listResources(cursor === undefined ? {} : { cursor });
      pages.push(page.resources.map((resource) => resource.uri));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(pages.slice(0, 3)).toEqual([
      ["cordon://paged/page://item/0", "cordon://paged/page://item/1"],
      ["cordon://paged/page://item/2", "cordon://paged/page://item/3"],
      ["cordon://paged/page://item/4"],
    ]);
    expect(pages).toHaveLength(4);
    // The paging server offers no tools: it starts all the same.
    expect(mcp.stderr()).toContain("upstream paged: ready, 0 tools");
    expect(pages[3]).toContain("cordon://files/test://static-text");
    await expect(client.listResources({ cursor: "not-a-cursor" })).rejects.toThrow(
      /The cursor "not-a-cursor" is not one cordon gave out \(or its upstream is gone\); list again without a cursor\./,
    );
  });

  it("declares no resources, prompts or completions when no upstream offers them", async () => {
    mcp = await connectStdio(["--upstream", `plain=${UPSTREAM_COMMAND}`]);
    const capabilities = mcp.client.getServerCapabilities();
    expect(capabilities?.tools).toBeDefined();
    expect(capabilities?.resources).toBeUndefined();
    expect(capabilities?.prompts).toBeUndefined();
    expect(capabilities?.completions).toBeUndefined();
  });
});

describe("upstream prompts", () => {
  it("lists prompts as <upstream>__<prompt> and gets one with its arguments from its upstream", async () => {
    mcp = await connectStdio(upstreamArgs());
    const { client } = mcp;
    const names = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
    const next = await client.listPrompts({ cursor: (await client.listPrompts()).nextCursor! });
    expect([...names, ...next.prompts.map((prompt) => prompt.name)]).toEqual(
      expect.arrayContaining(["files__test_simple_prompt", "remote__test_simple_prompt"]),
    );
    const got = await client.getPrompt({
      name: "remote__test_prompt_with_arguments",
      arguments: { arg1: "one", arg2: "two" },
    });
    expect(got.messages[0]!.content).toEqual({
      type: "text",
      text: "Prompt with arguments: arg1='one', arg2='two'",
    });
    // An embedded resource's URI comes as cordon names it, so the client can read it through cordon.
    const embedded = await client.getPrompt({
      name: "files__test_prompt_with_embedded_resource",
      arguments: { resourceUri: "test://static-text" },
    });
    expect(embedded.messages[0]!.content).toMatchObject({
      type: "resource",
      resource: { uri: "cordon://files/test://static-text" },
    });
  });

  it("tells the client when an upstream's prompts changed", async () => {
    mcp = await connectStdio(upstreamArgs());
    const { client } = mcp;
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(PromptListChangedNotificationSchema, () => resolve()),
    );
    await returnedBy(mcp, `return await tools.files__add_prompt({ name: "fresh" })`);
    await changed;
    const names = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
    expect(names).toContain("files__fresh");
  });
});

describe("subscriptions", () => {
  it("delivers an upstream's resource update to the session that subscribed and not to another session", async () => {
    mcp = await connectHttp(upstreamArgs());
    const other = await anotherSession(mcp.url!);
    const mine = resourceUpdates(mcp.client, 1);
    const theirs: string[] = [];
    const theirsArrived = resourceUpdates(other, 1, theirs);
    await mcp.client.subscribeResource({ uri: "cordon://files/test://watched-resource" });
    await other.subscribeResource({ uri: "cordon://files/test://static-text" });
    await returnedBy(mcp, `return await tools.files__update_resource({ uri: "test://watched-resource" })`);
    expect(await mine).toEqual(["cordon://files/test://watched-resource"]);
    // Both go down the same way in this order: had the other session been told of the first, it would be first.
    await returnedBy(mcp, `return await tools.files__update_resource({ uri: "test://static-text" })`);
    expect(await theirsArrived).toEqual(["cordon://files/test://static-text"]);
  });

  it("subscribes upstream once per URI, and unsubscribes there when its last session unsubscribed or left", async () => {
    mcp = await connectHttp(upstreamArgs());
    const other = await anotherSession(mcp.url!);
    const uri = "cordon://remote/test://watched-resource";
    const upstreamSubscriptions = () =>
      returnedBy(mcp!, `return (await tools.remote__subscriptions({})).uris`) as Promise<string[]>;
    await mcp.client.subscribeResource({ uri });
    await other.subscribeResource({ uri });
    expect(await upstreamSubscriptions()).toEqual(["test://watched-resource"]);
    await mcp.client.unsubscribeResource({ uri });
    expect(await upstreamSubscriptions()).toEqual(["test://watched-resource"]);
    const updates = resourceUpdates(other, 1);
    await returnedBy(mcp, `return await tools.remote__update_resource({ uri: "test://watched-resource" })`);
    expect(await updates).toEqual([uri]);
    await other.leave();
    await expect.poll(upstreamSubscriptions).toEqual([]);
  });

  it("subscribes again at an upstream that restarted, so the session's updates keep coming", async () => {
    mcp = await connectStdio(upstreamArgs());
    const { client } = mcp;
    await client.subscribeResource({ uri: "cordon://files/test://watched-resource" });
    await runCode(client, "await tools.files__crash({})");
    const updates = resourceUpdates(client, 1);
    // The call starts the server again; it must already know the subscription to tell anyone.
    expect(
      await returnedBy(mcp, `return await tools.files__update_resource({ uri: "test://watched-resource" })`),
    ).toBe("told");
    expect(await updates).toEqual(["cordon://files/test://watched-resource"]);
  });

  it("refuses a subscription to a URI of no upstream, saying what to use", async () => {
    mcp = await connectStdio(upstreamArgs());
    await expect(mcp.client.subscribeResource({ uri: "test://watched-resource" })).rejects.toThrow(
      /Resource not found: "test:\/\/watched-resource"\. cordon names each upstream's resources cordon:\/\//,
    );
  });
});

describe("resources from code", () => {
  it("reads an upstream resource from run_code with <upstream>__read_resource, as run_code's description declares", async () => {
    mcp = await connectStdio(upstreamArgs());
    const { tools } = await mcp.client.listTools();
    const description = tools.find((tool) => tool.name === "run_code")!.description!;
    expect(description).toMatch(/files__read_resource\(/);
    expect(description).toContain('Reads one resource of the MCP server "files" by its URI');
    const read = await returnedBy(
      mcp,
      `const own = await tools.files__read_resource({ uri: "test://static-text" });
       const namespaced = await tools.remote__read_resource({ uri: "cordon://remote/test://template/7/data" });
       return [own.contents[0].text, namespaced.contents[0].text];`,
    );
    expect(read).toEqual(["static text from files", JSON.stringify({ id: "7", label: "remote" })]);
  });

  it("refuses a read from code of another upstream's cordon URI, saying which tool reads it", async () => {
    mcp = await connectStdio(upstreamArgs());
    const read = await returnedBy(
      mcp,
      `try { await tools.files__read_resource({ uri: "cordon://remote/test://static-text" }); return "read"; }
       catch (error) { return error.message; }`,
    );
    expect(read).toMatch(
      /"cordon:\/\/remote\/test:\/\/static-text" is not a resource of the MCP server "files".*read another server's resources with its own read_resource/,
    );
  });
});
