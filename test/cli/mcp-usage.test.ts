/** `cordon mcp` usage errors, as a process: exit 2 with a message that says what to give instead. */

import { beforeAll, describe, expect, it } from "vitest";
import { MAX_TYPECHECK_WORKERS } from "../../src/codemode/typecheck/limits.js";
import { cordon, ensureBuilt, SHOP_TOOLS } from "./helpers.js";

beforeAll(() => ensureBuilt());

describe("cordon mcp: usage errors exit 2", () => {
  it("nothing to serve", async () => {
    const { code, stderr } = await cordon(["mcp"]);
    expect(code).toBe(2);
    expect(stderr).toContain("nothing to serve: give --tools <module>, one or more --upstream NAME=COMMAND");
  });

  it("an --upstream without NAME=, or the same name twice", async () => {
    const r1 = await cordon(["mcp", "--upstream", "npx some-server"]);
    expect(r1.code).toBe(2);
    expect(r1.stderr).toContain("expected NAME=COMMAND");
    const r2 = await cordon(["mcp", "--upstream", "a=node x.js", "--upstream", "a=node y.js"]);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain("--upstream a is given twice");
  });

  it("a --trust-upstream that names no --upstream server", async () => {
    const { code, stderr } = await cordon(["mcp", "--upstream", "a=node x.js", "--trust-upstream", "b"]);
    expect(code).toBe(2);
    expect(stderr).toContain("--trust-upstream b names no --upstream server; give the NAME of one of: a.");
  });

  it("--host without --http, and a port out of range", async () => {
    const r1 = await cordon(["mcp", "--tools", SHOP_TOOLS, "--host", "127.0.0.1"]);
    expect(r1.code).toBe(2);
    expect(r1.stderr).toContain("--host and --allow-host only apply with --http <port>");
    const r2 = await cordon(["mcp", "--tools", SHOP_TOOLS, "--http", "70000"]);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain("--http 70000: expected a whole number from 0 to 65535");
  });

  it("authentication flags without --http, half of OAuth's pair, or contradicting --no-auth", async () => {
    const r1 = await cordon(["mcp", "--tools", SHOP_TOOLS, "--auth-token-file", "/nonexistent"]);
    expect(r1.code).toBe(2);
    expect(r1.stderr).toContain("--auth-token-file only apply with --http <port>");
    const r2 = await cordon([
      "mcp",
      "--tools",
      SHOP_TOOLS,
      "--http",
      "0",
      "--auth-issuer",
      "https://id.example.com",
    ]);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain("--auth-issuer and --auth-audience go together");
    const r3 = await cordon([
      "mcp",
      "--tools",
      SHOP_TOOLS,
      "--http",
      "0",
      "--no-auth",
      "--auth-token-file",
      "/x",
    ]);
    expect(r3.code).toBe(2);
    expect(r3.stderr).toContain("--no-auth contradicts --auth-token-file");
  });

  it("--typecheck-workers without --typecheck, or out of range", async () => {
    const r1 = await cordon(["mcp", "--tools", SHOP_TOOLS, "--typecheck-workers", "2"]);
    expect(r1.code).toBe(2);
    expect(r1.stderr).toContain("--typecheck-workers only applies with --typecheck block or report");
    const r2 = await cordon([
      "mcp",
      "--tools",
      SHOP_TOOLS,
      "--typecheck",
      "block",
      "--typecheck-workers",
      "0",
    ]);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain(
      `--typecheck-workers 0: expected a whole number from 1 to ${MAX_TYPECHECK_WORKERS}`,
    );
  });
});
