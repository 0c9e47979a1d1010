/**
 * Where TypeScript's types cannot be stripped (workerd: esbuild runs as a process of its own, and
 * workerd starts none), what the model reads says to write plain JavaScript, never TypeScript, and code
 * mode takes JavaScript as it is. The runtime is the one thing pretended here (workerd itself runs these
 * in scripts/runtime-matrix.sh); the code mode and its sandbox are real.
 */

import { afterAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import { prepareCode } from "../../src/codemode/transpile.js";
import { type CodeMode, codeMode, tool } from "../../src/index.js";

vi.mock("../../common/runtime.js", async (original) => ({
  ...(await original<typeof import("../../common/runtime.js")>()),
  currentRuntime: () => ({ name: "workerd", loadsNodeAddons: false }),
}));

const add = tool({
  name: "add",
  description: "Adds two numbers.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});

const open: CodeMode[] = [];
function make(state: "fresh" | "session" = "fresh"): CodeMode {
  const cm = codeMode({ tools: [add], environment: isolateEnvironment(), state });
  open.push(cm);
  return cm;
}
afterAll(async () => {
  await Promise.all(open.map((cm) => cm.close()));
});

/** What would promise the model that its TypeScript is taken. */
const PROMISES_TYPESCRIPT = /\b(It is|Run|write) TypeScript\b|TypeScript to run|types are stripped/;

describe("where TypeScript cannot be stripped", () => {
  it("the instructions, run_code's description and its code argument say to write plain JavaScript, never TypeScript", () => {
    for (const cm of [make(), make("session")]) {
      const texts = [cm.instructions, cm.tool.description, JSON.stringify(cm.tool.parameters)];
      for (const text of texts) {
        expect(text).not.toMatch(PROMISES_TYPESCRIPT);
        expect(text).toContain("JavaScript");
      }
      expect(cm.instructions).toContain("It is plain JavaScript: TypeScript's types cannot be stripped here");
      expect(cm.tool.description).toMatch(/^Run JavaScript in a sandbox/);
    }
  });

  it("JavaScript with both < and > runs as written, without esbuild", async () => {
    const code = "const n = await tools.add({ a: 1, b: 2 });\nn < 5 && n > 1 ? n * 14 : 0";
    // Elsewhere `a < b > c` may be TypeScript's type arguments, and goes through esbuild.
    expect(await prepareCode(code)).toMatchObject({ via: "javascript" });
    expect(await make().run(code)).toMatchObject({ status: "ok", value: 42 });
  });

  it("TypeScript is refused on its line, saying why and to write plain JavaScript", async () => {
    const result = await make().run("const a = 1;\nconst b: number = a;\nb");
    expect(result.status).toBe("error");
    expect(result.error).toMatchObject({ name: "SyntaxError", line: 2 });
    expect(result.error?.message).toMatch(
      /^The code is not plain JavaScript \(.+ on line 2\): TypeScript's types cannot be stripped here .+ Write plain JavaScript without type annotations\.$/,
    );
    expect(result.calls).toEqual([]);
  });

  it("an import is refused as on every runtime: there are no modules", async () => {
    const result = await make().run('import x from "fs";\nx');
    expect(result.error).toMatchObject({ name: "SyntaxError", line: 1 });
    expect(result.error?.message).toMatch(/^import is not available in run_code/);
  });
});
