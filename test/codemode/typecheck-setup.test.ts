/**
 * Creating a code mode with a type check: the typescript package is found then (a clear UserError when
 * it is missing or the wrong kind), the options are checked, and the instructions say what the mode
 * means only when it is on.
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import { type CodeMode, type CodeModeOptions, codeMode, UserError } from "../../src/index.js";
import { countingShop } from "./typecheck-fixtures.js";

const opened: CodeMode[] = [];
const folders: string[] = [];
afterAll(async () => {
  await Promise.all(opened.map((mode) => mode.close()));
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function create(options: Partial<CodeModeOptions>): CodeMode {
  const mode = codeMode({ tools: countingShop().tools, environment: isolateEnvironment(), ...options });
  opened.push(mode);
  return mode;
}

/** A resolver that finds a package named typescript of the given version, in a folder of its own. */
function typescriptOfVersion(version: string): () => string {
  const folder = mkdtempSync(join(tmpdir(), "cordon-ts-"));
  folders.push(folder);
  writeFileSync(join(folder, "package.json"), JSON.stringify({ name: "typescript", version }));
  writeFileSync(join(folder, "version.cjs"), "module.exports = {};");
  return () => join(folder, "version.cjs");
}

describe("finding typescript", () => {
  const missing = () => {
    throw new Error("Cannot find module 'typescript'");
  };

  it("a missing typescript is a UserError when the code mode is created, saying what to install", () => {
    for (const typecheck of ["block", "report"] as const) {
      expect(() => create({ typecheck: { mode: typecheck, resolveTypeScript: missing } })).toThrow(UserError);
      expect(() => create({ typecheck: { mode: typecheck, resolveTypeScript: missing } })).toThrow(
        `codeMode: typecheck "${typecheck}" needs the typescript package (version 5), which could not be found: install it with \`npm install typescript@5\`, or set typecheck to "off".`,
      );
    }
  });

  it('typecheck "off" never looks for it', () => {
    expect(() => create({ typecheck: { mode: "off", resolveTypeScript: missing } })).not.toThrow();
  });

  it("typescript 7, the native compiler without the JavaScript API, is refused with what to install", () => {
    expect(() =>
      create({ typecheck: { mode: "block", resolveTypeScript: typescriptOfVersion("7.0.2") } }),
    ).toThrow(
      /^codeMode: typecheck "block" needs typescript 5 \(its JavaScript compiler API\), but typescript 7\.0\.2 was found at .*: install it with `npm install typescript@5`/,
    );
  });
});

describe("the options", () => {
  it("refuses a mode that is not one of the three, and limits that cannot work", () => {
    expect(() => create({ typecheck: "strict" as never })).toThrow(
      'codeMode: typecheck must be "block", "report" or "off", got "strict".',
    );
    expect(() => create({ typecheck: { mode: "block", limits: { timeMs: 0 } } })).toThrow(
      "codeMode: typecheck.limits.timeMs must be a number of ms > 0, got 0.",
    );
    expect(() => create({ typecheck: { mode: "block", limits: { memoryMb: 16 } } })).toThrow(
      /^codeMode: typecheck.limits.memoryMb must be a whole number of MB, at least 128/,
    );
  });
});

describe("what the model reads", () => {
  const BLOCK =
    "Before it runs, the code is type-checked against the declarations of `tools`: with a type error nothing runs, and you get each error with its line and the fix TypeScript suggests.";
  const REPORT =
    "The code is type-checked against the declarations of `tools`; type errors are listed with the result, and the code runs anyway.";

  it("one sentence in the instructions and the tool's description, only when the check is on", () => {
    const block = create({ typecheck: "block" });
    expect(block.instructions).toContain(`- ${BLOCK}\n`);
    expect(block.tool.description).toContain(`\n${BLOCK}\n`);
    expect(block.instructions).not.toContain(REPORT);
    const report = create({ typecheck: "report" });
    expect(report.instructions).toContain(`- ${REPORT}\n`);
    expect(report.tool.description).toContain(`\n${REPORT}\n`);
    const off = create({});
    expect(off.instructions).not.toMatch(/type-checked/);
    expect(off.tool.description).not.toMatch(/type-checked/);
  });

  it("the declarations the model reads do not change: a tool without an output schema still returns unknown", () => {
    const off = create({});
    const block = create({ typecheck: "block" });
    expect(block.declarations).toBe(off.declarations);
    expect(block.declarations).toContain("notes(args: { customer: string }): Promise<unknown>;");
    expect(block.declarations).toMatch(/^declare const tools: \{/);
  });
});
