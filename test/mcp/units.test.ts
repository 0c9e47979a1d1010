/**
 * The pure parts of cordon's MCP side: upstream specs, tool names, result unwrapping, search, loopback,
 * learnt types per tenant.
 */

import { describe, expect, it } from "vitest";
import { ToolError, Toolset, tool, UserError } from "../../src/index.js";
import { isLoopbackName } from "../../src/mcp/http.js";
import { namesOnlyDeclarations, searchTools } from "../../src/mcp/search-tools.js";
import { MAX_NAMED_TENANTS, TenantObservedTypes } from "../../src/mcp/tenant-observed-types.js";
import { parseUpstreamSpec, splitCommand } from "../../src/mcp/upstream/spec.js";
import { namespacedName, unwrapResult } from "../../src/mcp/upstream/tools.js";

describe("--upstream NAME=COMMAND", () => {
  it("splits the command into words, with quotes grouping and backslashes escaping", () => {
    expect(parseUpstreamSpec(`gh=npx -y "@scope/server name" 'a b' c\\ d`)).toEqual({
      name: "gh",
      command: "npx",
      args: ["-y", "@scope/server name", "a b", "c d"],
    });
    expect(splitCommand(`node -e "console.log(\\"hi\\")"`)).toEqual(["node", "-e", 'console.log("hi")']);
  });

  it("refuses a missing name, a bad name, an empty command and an unclosed quote, saying what to write", () => {
    expect(() => parseUpstreamSpec("npx server")).toThrow(/expected NAME=COMMAND/);
    expect(() => parseUpstreamSpec("my-gh=npx server")).toThrow(UserError);
    expect(() => parseUpstreamSpec("a__b=npx server")).toThrow(/single underscores/);
    expect(() => parseUpstreamSpec("gh=  ")).toThrow(/the command is empty/);
    expect(() => parseUpstreamSpec(`gh=npx "oops`)).toThrow(/unclosed " quote/);
  });
});

describe("--upstream NAME=URL", () => {
  it("takes an https URL anywhere, and an http URL to this machine only", () => {
    expect(parseUpstreamSpec("docs=https://mcp.example.com/mcp")).toEqual({
      name: "docs",
      url: new URL("https://mcp.example.com/mcp"),
    });
    expect(parseUpstreamSpec("local=http://127.0.0.1:8123/mcp")).toEqual({
      name: "local",
      url: new URL("http://127.0.0.1:8123/mcp"),
    });
    expect(parseUpstreamSpec("local=http://localhost:8123/mcp")).toMatchObject({ name: "local" });
  });

  it("refuses plain http beyond loopback and any other scheme, saying what to give instead", () => {
    expect(() => parseUpstreamSpec("docs=http://mcp.example.com/mcp")).toThrow(
      /plain http:\/\/ is only accepted to this machine .* use https:\/\/ for mcp.example.com/,
    );
    expect(() => parseUpstreamSpec("docs=ws://127.0.0.1:8123/mcp")).toThrow(
      /the scheme ws is not supported; an upstream URL must be https:\/\//,
    );
    expect(() => parseUpstreamSpec("docs=file:///tmp/server")).toThrow(/the scheme file is not supported/);
    expect(() => parseUpstreamSpec("docs=https://")).toThrow(/not a valid URL/);
  });
});

describe("namespaced upstream tool names", () => {
  it("are <server>__<tool>, with characters code cannot use replaced", () => {
    expect(namespacedName("github", "search_issues", new Set())).toBe("github__search_issues");
    expect(namespacedName("fs", "read-file.v2", new Set())).toBe("fs__read_file_v2");
  });

  it("stay unique and within 64 characters", () => {
    expect(namespacedName("fs", "read.file", new Set(["fs__read_file"]))).toBe("fs__read_file_2");
    const long = "x".repeat(100);
    const a = namespacedName("srv", `${long}a`, new Set());
    const b = namespacedName("srv", `${long}b`, new Set());
    expect(a.length).toBeLessThanOrEqual(64);
    expect(a).not.toBe(b);
  });
});

describe("unwrapping an upstream's result", () => {
  it("gives structuredContent when present, else the text, else the content items", () => {
    expect(
      unwrapResult({ content: [{ type: "text", text: "3" }], structuredContent: { sum: 3 } }, "add"),
    ).toEqual({
      sum: 3,
    });
    expect(
      unwrapResult(
        {
          content: [
            { type: "text", text: "line one" },
            { type: "image", data: "AAAA", mimeType: "image/png" },
          ],
        },
        "shot",
      ),
    ).toEqual([
      { type: "text", text: "line one" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
    ]);
  });

  it("throws a ToolError with the upstream's message for isError", () => {
    const run = () =>
      unwrapResult({ content: [{ type: "text", text: "rate limited" }], isError: true }, "search");
    expect(run).toThrow(ToolError);
    expect(run).toThrow("rate limited");
    expect(() => unwrapResult({ content: [], isError: true }, "search")).toThrow(/without a message/);
  });
});

describe("search_tools", () => {
  const tools = new Toolset([
    tool({ name: "gh__list_issues", description: "List open issues of a repository.", run: () => [] }),
    tool({ name: "gh__create_issue", description: "Open a new issue.", run: () => ({}) }),
    tool({ name: "fs__read_file", description: "Read a file's text.", run: () => "" }),
  ]);

  it("declares the best matching tools first, with their documentation", () => {
    const found = searchTools(tools, "list issues");
    expect(found.indexOf("gh__list_issues(")).toBeGreaterThan(-1);
    expect(found.indexOf("gh__list_issues(")).toBeLessThan(found.indexOf("gh__create_issue("));
    expect(found).toContain("List open issues of a repository.");
    expect(found).not.toContain("fs__read_file");
    expect(searchTools(tools, "list issues", 1)).not.toContain("gh__create_issue(");
  });

  it("says so when nothing matches, naming the namespaces with their counts rather than every tool again", () => {
    const answer = searchTools(tools, "weather");
    expect(answer).toMatch(/^No tool matches "weather"\./);
    expect(answer).toContain("The 3 tools by namespace: gh (2), fs (1).");
    expect(answer).not.toContain("fs__read_file");
  });

  it("names-only declarations list every tool and point to search_tools", () => {
    const listing = namesOnlyDeclarations(tools);
    expect(listing).toContain("3 tools");
    expect(listing).toContain("search_tools");
    expect(listing).toContain("fs__read_file(args?: Record<string, unknown>): Promise<unknown>;");
  });
});

describe("loopback names (HTTP Host check)", () => {
  it("accepts names of this machine only", () => {
    for (const name of ["127.0.0.1", "127.1.2.3", "localhost", "LOCALHOST", "::1", "[::1]"]) {
      expect(isLoopbackName(name)).toBe(true);
    }
    for (const name of [
      "10.0.0.1",
      "0.0.0.0",
      "attacker.example",
      "127.0.0.1.attacker.example",
      "localhost.example",
    ]) {
      expect(isLoopbackName(name)).toBe(false);
    }
  });
});

describe("learnt result types per tenant", () => {
  it("each tenant, a connection or a name, has a store of its own; a tenant never taught anything has none", () => {
    const tenants = new TenantObservedTypes();
    const [a, b] = [{}, {}];
    tenants.storeOf(a).record("find_contact", { "ada@example.com": 1 });
    tenants.storeOf("team-red").record("find_contact", { nightjar: true });
    expect(tenants.find(b)).toBeUndefined();
    expect(tenants.find("team-blue")).toBeUndefined();
    expect(Object.keys(tenants.find(a)!.toJSON().tools)).toEqual(["find_contact"]);
    expect(tenants.find("team-red")!.typeOf("find_contact")).toEqual({
      object: { samples: 1, properties: [{ key: "nightjar", type: { boolean: true }, seen: 1 }] },
    });
  });

  it(`keeps at most ${MAX_NAMED_TENANTS} named tenants, dropping the one used least recently`, () => {
    const tenants = new TenantObservedTypes();
    for (let i = 0; i < MAX_NAMED_TENANTS; i++) tenants.storeOf(`tenant-${i}`);
    expect(tenants.find("tenant-0")).toBeDefined();
    tenants.storeOf("one-more");
    expect(tenants.find("tenant-0")).toBeDefined();
    expect(tenants.find("tenant-1")).toBeUndefined();
    expect(tenants.find("one-more")).toBeDefined();
  });
});
