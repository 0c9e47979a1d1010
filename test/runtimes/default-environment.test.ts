// The default environment is chosen by what the runtime can load: the sandbox host where isolated-vm
// loads (Node, with it installed and built), QuickJS elsewhere, said in one line. The other runtimes themselves run in
// scripts/runtime-matrix.sh (test/runtimes/checks.ts); here the choice is made for each on Node.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { currentRuntime } from "../../common/runtime.js";
import { HOW_TO_GET_ISOLATED_VM } from "../../environments/sandbox-host/index.js";
import { environmentFor } from "../../src/defaults.js";
import { codeMode, tool } from "../../src/index.js";

const add = tool({
  name: "add",
  description: "Adds two numbers.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});

describe("the default environment", () => {
  it("on Node is the sandbox host, and nothing is said", async () => {
    expect(currentRuntime()).toEqual({ name: "Node.js", loadsNodeAddons: true });
    const said: string[] = [];
    const environment = environmentFor(currentRuntime(), (line) => said.push(line));
    expect(environment.name).toBe("sandbox-host");
    expect(said).toEqual([]);
    await environment.close();
  });

  it.each(["Bun", "Deno", "workerd"])(
    "on %s, where isolated-vm cannot load, is QuickJS, said in one line, and runs code",
    async (name) => {
      const said: string[] = [];
      const environment = environmentFor({ name, loadsNodeAddons: false }, (line) => said.push(line));
      expect(environment.name).toBe("quickjs");
      expect(said).toEqual([
        `cordon: isolated-vm cannot load on ${name}; code runs in quickjsEnvironment() (QuickJS in WebAssembly, in this process). Pass an environment to codeMode() to choose another.`,
      ]);
      const cm = codeMode({ tools: [add], environment });
      try {
        expect((await cm.run("await tools.add({ a: 40, b: 2 })")).value).toBe(42);
        expect(cm.instructions).toContain("QuickJS");
      } finally {
        await cm.close();
        await environment.close();
      }
    },
  );

  it.each([
    "isolated-vm is not installed",
    "isolated-vm is installed (/x) but its native addon is not built",
  ])(
    "on Node where %s, is QuickJS, said in one line with how to get isolated-vm, and runs code",
    async (problem) => {
      const said: string[] = [];
      const environment = environmentFor(
        currentRuntime(),
        (line) => said.push(line),
        () => problem,
      );
      expect(environment.name).toBe("quickjs");
      expect(said).toEqual([
        `cordon: ${problem}; code runs in quickjsEnvironment() (QuickJS in WebAssembly, in this process). For isolated-vm isolates in sandbox processes, ${HOW_TO_GET_ISOLATED_VM}. Pass an environment to codeMode() to choose another.`,
      ]);
      expect(said[0]).toContain("`npm install isolated-vm`");
      expect(said[0]).toContain("C++ toolchain");
      expect(said[0]).toContain("--no-node-snapshot");
      const cm = codeMode({ tools: [add], environment });
      try {
        expect((await cm.run("await tools.add({ a: 40, b: 2 })")).value).toBe(42);
      } finally {
        await cm.close();
        await environment.close();
      }
    },
  );
});
