/**
 * `cordon run`, as a process: the real executable runs code against a tools module and prints the
 * console output, the calls and the result (or JSON), with exit codes 0, 1 and 2.
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cordon, ensureBuilt, SHOP_TOOLS } from "./helpers.js";

const NOTES = "test/cli/fixtures/tools.ts";
let scratch = "";

beforeAll(() => {
  ensureBuilt();
  scratch = mkdtempSync(join(tmpdir(), "cordon-cli-"));
});

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

function scratchFile(name: string, text: string): string {
  const file = join(scratch, name);
  writeFileSync(file, text);
  return file;
}

describe("cordon run", () => {
  it("runs the shop task end to end: console output, each call with status and time, the result; exit 0", async () => {
    const { code, stdout } = await cordon(["run", "examples/shop/task.ts", "--tools", SHOP_TOOLS]);
    expect(code).toBe(0);
    expect(stdout).toContain("Dana Smith has 2 late orders: A103, A115");
    expect(stdout).toMatch(/ok\s+find_customers\s+\d+ ms/);
    expect(stdout).toMatch(/ok\s+refund_order\s+\d+ ms/);
    expect(stdout).toMatch(/denied\s+refund_order\s+\d+ ms/);
    expect(stdout).toContain('"refunded": [\n    "A103"\n  ]');
    expect(stdout).toMatch(/\nok in \d+ ms\n$/);
  });

  it("terminal escapes in console output cannot clear the screen, hide lines or paint a fake report", async () => {
    const code = scratchFile(
      "paint.ts",
      [
        'console.log("\\x1b[2J\\x1b[Hresult\\n{ \\"refunded\\": 0 }\\n\\nok in 1 ms");',
        'console.log("real\\x1b[8m hidden");',
        'throw new Error("boom\\u202Eevil\\nok in 2 ms");',
      ].join("\n"),
    );
    const { code: exit, stdout } = await cordon(["run", code, "--tools", NOTES]);
    expect(exit).toBe(1);
    expect(stdout).not.toContain("\u001b");
    expect(stdout).not.toContain("\u202E");
    expect(stdout).toContain("\\u{1B}[2J\\u{1B}[Hresult");
    expect(stdout).toContain("real\\u{1B}[8m hidden");
    // The console's own lines stay indented under it, and the error's under the error.
    expect(stdout).toMatch(/\n {4}\{ "refunded": 0 \}\n {4}\n {4}ok in 1 ms\n/);
    expect(stdout).toMatch(/boom\\u\{202E\}evil\n {2}ok in 2 ms/);
    expect(stdout.split("\n").filter((line) => /^ok in/.test(line))).toEqual([]);
  });

  it("--json prints the CodeRunResult", async () => {
    const { code, stdout } = await cordon(["run", "examples/shop/task.ts", "--tools", SHOP_TOOLS, "--json"]);
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result.status).toBe("ok");
    expect(result.value).toEqual({ customer: "Dana Smith", refunded: ["A103"], total: 38 });
    expect(result.calls.map((c: { tool: string; status: string }) => `${c.tool}:${c.status}`)).toEqual([
      "find_customers:ok",
      "list_orders:ok",
      "refund_order:ok",
      "refund_order:denied",
    ]);
    expect(result.logs[0]).toEqual({ level: "log", text: "Dana Smith has 2 late orders: A103, A115" });
  });

  it("reads the code from standard input with -", async () => {
    const { code, stdout } = await cordon(["run", "-", "--tools", NOTES, "--json"], {
      input: "const notes = await tools.list_notes();\nnotes.map((n) => n.text)",
    });
    expect(code).toBe(0);
    expect(JSON.parse(stdout).value).toEqual(["buy milk", "call Ada"]);
  });

  it("loads a .ts tools module with type-only syntax; a ToolError keeps its hint (one copy of cordon)", async () => {
    const { code, stdout } = await cordon(["run", "-", "--tools", NOTES, "--json"], {
      input: "try { await tools.get_note({ id: 9 }); } catch (e) { return e.message; }",
    });
    expect(code).toBe(0);
    expect(JSON.parse(stdout).value).toBe("There is no note 9. Hint: Ids are 1 and 2.");
  });

  it("loads a .mjs tools module whose default export is a Toolset", async () => {
    const { code, stdout } = await cordon(["run", "-", "--tools", "test/cli/fixtures/tools.mjs", "--json"], {
      input: "return await tools.double({ n: 21 });",
    });
    expect(code).toBe(0);
    expect(JSON.parse(stdout).value).toBe(42);
  });

  it("exit 1 when the code fails, with the error at the code's own line", async () => {
    const { code, stdout } = await cordon(["run", "-", "--tools", NOTES], {
      input: "const a = 1;\nconst b = a + missingName;\nreturn b;",
    });
    expect(code).toBe(1);
    expect(stdout).toMatch(/ReferenceError: .*missingName/);
    expect(stdout).toContain("(line 2");
    expect(stdout).toMatch(/\nerror in \d+ ms\n$/);
  });

  it("--timeout ends a run that takes too long: status timeout, exit 1", async () => {
    const { code, stdout } = await cordon(["run", "-", "--tools", NOTES, "--timeout", "300", "--json"], {
      input: "while (true) {}",
    });
    expect(code).toBe(1);
    expect(JSON.parse(stdout).status).toBe("timeout");
  });

  it("starts the sandbox process while the tools module loads (Linux: read from /proc)", async () => {
    // At its top level the module counts the sandbox-host processes this process has started so far.
    const tools = scratchFile(
      "sandbox-count.ts",
      `import { readdirSync, readFileSync } from "node:fs";
import { tool } from "cordon";
const children = readdirSync("/proc/self/task").flatMap((task) =>
  readFileSync(\`/proc/self/task/\${task}/children\`, "utf8").split(" ").filter(Boolean),
);
const hosts = children.filter((pid) => readFileSync(\`/proc/\${pid}/cmdline\`, "utf8").includes("sandbox/program/main"));
export default [tool({ name: "hosts", description: "Sandbox processes seen.", input: { type: "object", properties: {} }, run: () => hosts.length })];
`,
    );
    const { code, stdout } = await cordon(["run", "-", "--tools", tools, "--json"], {
      input: "return await tools.hosts({});",
    });
    expect(code).toBe(0);
    expect(JSON.parse(stdout).value).toBe(1);
  });

  it("runs in the Node it was started with: only --env inprocess starts Node again with --no-node-snapshot", async () => {
    const tools = scratchFile(
      "node-flags.ts",
      `import { tool } from "cordon";
export default [tool({ name: "flags", description: "This process's Node flags.", input: { type: "object", properties: {} }, run: () => process.execArgv })];
`,
    );
    const input = "return await tools.flags({});";
    const byDefault = await cordon(["run", "-", "--tools", tools, "--json"], { input });
    expect(JSON.parse(byDefault.stdout).value).not.toContain("--no-node-snapshot");
    const inProcess = await cordon(["run", "-", "--tools", tools, "--json", "--env", "inprocess"], { input });
    expect(JSON.parse(inProcess.stdout).value).toContain("--no-node-snapshot");
  });

  it("--env inprocess runs in cordon's own process (the executable starts Node with --no-node-snapshot)", async () => {
    const { code, stdout } = await cordon(["run", "-", "--tools", NOTES, "--env", "inprocess", "--json"], {
      input: "return (await tools.list_notes()).length;",
    });
    expect(code).toBe(0);
    expect(JSON.parse(stdout).value).toBe(2);
  });

  it("--env quickjs runs in QuickJS (no Intl there, unlike V8), in cordon's own process, saying nothing", async () => {
    const { code, stdout, stderr } = await cordon(
      ["run", "-", "--tools", NOTES, "--env", "quickjs", "--json"],
      {
        input: "return [(await tools.list_notes()).length, typeof Intl];",
      },
    );
    expect(code).toBe(0);
    expect(JSON.parse(stdout).value).toEqual([2, "undefined"]);
    expect(stderr).toBe("");
  });
});

describe("cordon run: approval policy", () => {
  const DELETE = "try { return await tools.delete_note({ id: 1 }); } catch (e) { return e.kind; }";

  it("--approve all runs gated calls", async () => {
    const { stdout } = await cordon(["run", "-", "--tools", NOTES, "--approve", "all", "--json"], {
      input: DELETE,
    });
    expect(JSON.parse(stdout).value).toEqual({ deleted: 1 });
  });

  it("--approve none denies them", async () => {
    const { stdout } = await cordon(["run", "-", "--tools", NOTES, "--approve", "none", "--json"], {
      input: DELETE,
    });
    expect(JSON.parse(stdout).value).toBe("denied");
  });

  it("--approve ask (the default) away from a terminal denies, and says how to allow", async () => {
    const { stdout, stderr } = await cordon(["run", "-", "--tools", NOTES, "--json"], { input: DELETE });
    expect(JSON.parse(stdout).value).toBe("denied");
    expect(stderr).toContain("--approve ask can only ask on a terminal");
  });
});

describe("cordon run: usage errors exit 2 and say what to do", () => {
  it("without --tools", async () => {
    const { code, stderr } = await cordon(["run", "examples/shop/task.ts"]);
    expect(code).toBe(2);
    expect(stderr).toContain("--tools is required");
    expect(stderr).toContain("cordon run --help");
  });

  it("a code file that does not exist", async () => {
    const { code, stderr } = await cordon(["run", "no-such-task.ts", "--tools", NOTES]);
    expect(code).toBe(2);
    expect(stderr).toContain("cannot read no-such-task.ts: no such file");
  });

  it("a tools module that does not exist", async () => {
    const { code, stderr } = await cordon(["run", "examples/shop/task.ts", "--tools", "nope/tools.ts"]);
    expect(code).toBe(2);
    expect(stderr).toContain("--tools nope/tools.ts: no such file");
  });

  it("a tools module without a default export, or whose export is not tools", async () => {
    const none = scratchFile("none.mjs", "export const x = 1;\n");
    const wrong = scratchFile("wrong.mjs", "export default [{ name: 'fake' }];\n");
    const broken = scratchFile("broken.ts", "export default [;\n");
    const r1 = await cordon(["run", "examples/shop/task.ts", "--tools", none]);
    expect(r1.code).toBe(2);
    expect(r1.stderr).toContain(`--tools ${none}: the module has no default export`);
    expect(r1.stderr).toContain("export default new Toolset");
    const r2 = await cordon(["run", "examples/shop/task.ts", "--tools", wrong]);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain("item 1 of the default export is an object (name), not a tool");
    const r3 = await cordon(["run", "examples/shop/task.ts", "--tools", broken]);
    expect(r3.code).toBe(2);
    expect(r3.stderr).toContain(`--tools ${broken}: the module failed to load`);
  });

  it("an environment this build does not have names the ones it has", async () => {
    const { code, stderr } = await cordon([
      "run",
      "examples/shop/task.ts",
      "--tools",
      NOTES,
      "--env",
      "cloud",
    ]);
    expect(code).toBe(2);
    expect(stderr).toContain(
      "--env cloud: this build of cordon has no such environment. Available: default, inprocess, quickjs, docker, remote.",
    );
  });

  it("--env remote without a server's URL and token says which variables to set", async () => {
    const { code, stderr } = await cordon(
      ["run", "examples/shop/task.ts", "--tools", NOTES, "--env", "remote"],
      {
        env: { CORDON_REMOTE_URL: "", CORDON_REMOTE_TOKEN: "" },
      },
    );
    expect(code).toBe(2);
    expect(stderr).toContain("--env remote needs CORDON_REMOTE_URL");
  });

  it("a bad option value or an unknown option", async () => {
    const r1 = await cordon(["run", "x.ts", "--tools", NOTES, "--approve", "maybe"]);
    expect(r1.code).toBe(2);
    expect(r1.stderr).toContain("--approve maybe: expected one of ask, all, none, pause.");
    const r2 = await cordon(["run", "x.ts", "--tools", NOTES, "--timeout", "soon"]);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain("--timeout soon: expected a whole number");
    const r3 = await cordon(["run", "x.ts", "--tools", NOTES, "--fast"]);
    expect(r3.code).toBe(2);
    expect(r3.stderr).toContain("Unknown option '--fast'");
  });
});
