/**
 * The type check from the command line: `cordon check` prints the diagnostics alone (exit 0 clean, 1
 * with errors, 2 for bad usage), `cordon run --typecheck block` runs nothing with a type error, and
 * `cordon mcp --typecheck block` serves a run_code that does the same.
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdio, runCode, textOf } from "../mcp/helpers.js";
import { cordon, ensureBuilt, SHOP_TOOLS } from "./helpers.js";

const folder = mkdtempSync(join(tmpdir(), "cordon-check-"));
beforeAll(() => ensureBuilt());
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Writes `code` to a file of the test's folder; returns its path. */
function codeFile(name: string, code: string): string {
  const path = join(folder, name);
  writeFileSync(path, code);
  return path;
}

const WRONG = `const [customer] = await tools.find_customers({ query: "dana" });
const orders = await tools.list_orders({ customer_id: customer.id, status: "overdue" });
return orders.map((o) => o.amout);
`;

describe("cordon check", () => {
  it("exit 0 and says so when the code has no type error (the shop's task)", async () => {
    const { code, stdout } = await cordon(["check", "examples/shop/task.ts", "--tools", SHOP_TOOLS]);
    expect(stdout).toBe("No type errors.\n");
    expect(code).toBe(0);
  });

  it("exit 1 with each error: file, line and column, the line of code with a caret, and the fix", async () => {
    const file = codeFile("wrong.ts", WRONG);
    const { code, stdout } = await cordon(["check", file, "--tools", SHOP_TOOLS]);
    expect(code).toBe(1);
    expect(stdout).toContain(`${file}:2:68 - error TS2322: Type '"overdue"' is not assignable to type`);
    expect(stdout).toContain(`${file}:3:28 - error TS2551: Property 'amout' does not exist on type`);
    expect(stdout).toContain(
      `    return orders.map((o) => o.amout);\n${" ".repeat(4 + 27)}^\n  fix: amount\n`,
    );
    expect(stdout).toMatch(/2 type errors\.\n$/);
  });

  it("counts lines in the file when the code is in a markdown fence; --json prints the diagnostics", async () => {
    const file = codeFile("fenced.md", `Here is the code:\n\n\`\`\`ts\n${WRONG}\`\`\`\n`);
    const { code, stdout } = await cordon(["check", file, "--tools", SHOP_TOOLS, "--json"]);
    expect(code).toBe(1);
    const printed = JSON.parse(stdout) as { ok: boolean; errorCount: number; diagnostics: unknown[] };
    expect(printed.ok).toBe(false);
    expect(printed.errorCount).toBe(2);
    expect(printed.diagnostics[1]).toEqual(
      expect.objectContaining({ line: 6, column: 28, code: 2551, fix: "amount" }),
    );
  });

  it("exit 1 for code that does not parse, with where", async () => {
    const file = codeFile("broken.ts", "const x = ;\n");
    const { code, stdout } = await cordon(["check", file, "--tools", SHOP_TOOLS]);
    expect(code).toBe(1);
    expect(stdout).toMatch(new RegExp(`^${file.replace(/[.]/g, "\\.")}:1:\\d+ - syntax error: `));
  });

  it("exit 2 without --tools, or without a file", async () => {
    const r1 = await cordon(["check", "examples/shop/task.ts"]);
    expect(r1.code).toBe(2);
    expect(r1.stderr).toContain("--tools is required");
    const r2 = await cordon(["check", "--tools", SHOP_TOOLS]);
    expect(r2.code).toBe(2);
  });
});

describe("cordon run --typecheck", () => {
  it("block: the code does not run and no tool is called; exit 1", async () => {
    const file = codeFile("run-wrong.ts", WRONG);
    const { code, stdout } = await cordon([
      "run",
      file,
      "--tools",
      SHOP_TOOLS,
      "--typecheck",
      "block",
      "--json",
    ]);
    expect(code).toBe(1);
    const result = JSON.parse(stdout) as {
      error: { name: string };
      calls: unknown[];
      diagnostics: unknown[];
    };
    expect(result.error.name).toBe("TypeCheckError");
    expect(result.calls).toEqual([]);
    expect(result.diagnostics).toHaveLength(2);
  });

  it("report: the code runs, and the errors come with the result", async () => {
    const file = codeFile("run-report.ts", WRONG);
    const { stdout } = await cordon(["run", file, "--tools", SHOP_TOOLS, "--typecheck", "report", "--json"]);
    const result = JSON.parse(stdout) as { calls: unknown[]; diagnostics: unknown[] };
    expect(result.calls.length).toBeGreaterThan(0);
    expect(result.diagnostics).toHaveLength(2);
  });

  it("a value that is not a mode is a usage error (exit 2)", async () => {
    const { code, stderr } = await cordon([
      "run",
      "examples/shop/task.ts",
      "--tools",
      SHOP_TOOLS,
      "--typecheck",
      "strict",
    ]);
    expect(code).toBe(2);
    expect(stderr).toContain("--typecheck strict: expected one of off, block, report.");
  });
});

describe("cordon mcp --typecheck block", () => {
  it("run_code says so in its description, and runs nothing with a type error", async () => {
    const mcp = await connectStdio(["--tools", SHOP_TOOLS, "--approve", "none", "--typecheck", "block"]);
    try {
      const { tools } = await mcp.client.listTools();
      expect(tools[0]?.description).toContain("Before it runs, the code is type-checked");
      const result = await runCode(mcp.client, WRONG);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("no tool calls");
      expect(textOf(result)).toContain(
        "TypeCheckError: The code did not run: TypeScript found 2 type errors",
      );
    } finally {
      await mcp.close();
    }
  }, 60_000);
});
