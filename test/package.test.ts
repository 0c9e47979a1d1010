import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..");

describe("the published package", () => {
  beforeAll(() => {
    // `make test` builds before the suites run; a lone vitest run builds here.
    if (!existsSync(join(root, "dist/index.js")))
      execFileSync("npm", ["run", "build"], { cwd: root, stdio: "ignore" });
  }, 120_000);

  it('import from "cordon" resolves to dist/index.js and exposes the public API', () => {
    const script = `import("cordon").then((m) => console.log(JSON.stringify({
      url: import.meta.resolve("cordon"),
      names: ["tool", "Toolset", "Dispatcher", "ToolError", "InvalidToolArguments", "RunCancelled", "BudgetExceeded", "UserError"].filter((n) => typeof m[n] !== "function"),
    })))`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: root,
      encoding: "utf8",
    });
    const { url, names } = JSON.parse(out) as { url: string; names: string[] };
    expect(url.endsWith("/dist/index.js")).toBe(true);
    expect(names).toEqual([]);
  });

  it("ships type declarations that a consumer's TypeScript resolves", () => {
    const dir = mkdtempSync(join(tmpdir(), "cordon-consumer-"));
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(root, join(dir, "node_modules", "cordon"), "dir");
    const file = join(dir, "use.ts");
    writeFileSync(
      file,
      `import { Dispatcher, Toolset, tool } from "cordon";
const t = tool({ name: "t", description: "T.", input: { type: "object", properties: {} }, run: () => 1 });
const d: Dispatcher = new Dispatcher(new Toolset([t]));
export const handle = d.dispatch([{ id: "1", name: "t", arguments: "{}" }]);
// @ts-expect-error: the dispatcher has no such method
d.nothing();
`,
    );
    const program = ts.createProgram([file], {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: [],
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(problems).toEqual([]);
  });
});
