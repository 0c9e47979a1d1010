// What loads before any code runs: the static imports of an entry point, read from an esbuild bundle of
// it (type-only imports vanish there; a module loaded on first use is a dynamic import, which starts a
// chunk of its own, or a createRequire call, which is no import at all). Packages that only some tools
// or environments need are loaded when they are used: every process that imports cordon would pay for
// them otherwise, and `cordon run` would start its sandbox process later.
import { resolve } from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import entries from "../../scripts/entries.json" with { type: "json" };

const root = resolve(import.meta.dirname, "../..");

/**
 * Loaded on first use: HTML reading, HTTP, DNS, compression (bodies, checkpoints), worker threads (the
 * type checker), WebSockets, tracing, TypeScript, the MCP SDK, jose (by `cordon mcp --http` with an
 * OAuth issuer alone), the DBOS SDK (by `cordon/dbos` alone,
 * whose use is to run in a DBOS workflow), the Restate SDK (by `cordon/restate` alone), QuickJS (by the QuickJS environment's first sandbox). node-postgres is
 * never loaded by cordon: the host gives the Postgres journal its pool, so even `cordon/postgres` loads
 * without it.
 */
const LOADED_WHEN_USED = [
  "domhandler",
  "domelementtype",
  "htmlparser2",
  "undici",
  "node:http",
  "node:https",
  "node:dns",
  "node:zlib",
  "node:worker_threads",
  "ws",
  "@opentelemetry/api",
  "typescript",
  "esbuild",
  "@modelcontextprotocol/sdk",
  "jose",
  "pg",
  "@dbos-inc/dbos-sdk",
  "@restatedev/restate-sdk",
  "quickjs-emscripten-core",
  "@jitl/quickjs-wasmfile-release-sync",
];

/**
 * What only Node has: child processes and worker threads (the sandbox host, the type checker), and the
 * native addon. workerd stubs the first two, Bun and Deno have them, but none of them is needed to load
 * cordon's core, and each is reached only where Node runs.
 */
const NODE_ONLY = ["node:child_process", "node:worker_threads", "isolated-vm"];

const loadedWhenUsed = (name: string) =>
  LOADED_WHEN_USED.some((lazy) => name === lazy || name.startsWith(`${lazy}/`));

/**
 * The modules of the house and the packages that loading `entry` loads, following esbuild's chunks
 * through static imports only.
 */
async function staticClosure(entry: string): Promise<{ files: string[]; packages: string[] }> {
  const { metafile } = await build({
    entryPoints: [resolve(root, entry)],
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    packages: "external",
    write: false,
    metafile: true,
    outdir: "out",
    logLevel: "silent",
  });
  const outputs = metafile.outputs;
  const start = Object.keys(outputs).find((name) => outputs[name]?.entryPoint === entry);
  const seen = new Set<string>();
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = start === undefined ? [] : [start];
  for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
    const output = outputs[name];
    if (seen.has(name) || output === undefined) continue;
    seen.add(name);
    for (const input of Object.keys(output.inputs)) files.add(input);
    for (const item of output.imports) {
      if (item.kind !== "import-statement") continue;
      if (item.external) packages.add(item.path);
      else queue.push(item.path);
    }
  }
  return { files: [...files].sort(), packages: [...packages].sort() };
}

describe('import "cordon"', () => {
  it("loads no package that only some tools or environments use until one of them is used", async () => {
    const { files, packages } = await staticClosure("src/index.ts");
    expect(files).toContain("src/codemode/code-mode.ts");
    expect(packages).toContain("zod");
    expect(packages.filter(loadedWhenUsed)).toEqual([]);
  });

  it("loads no module that only Node has, so that it loads on Bun, Deno and workerd", async () => {
    const { packages } = await staticClosure("src/index.ts");
    expect(packages.filter((name) => NODE_ONLY.includes(name))).toEqual([]);
    expect(
      (await staticClosure("src/entries/quickjs.ts")).packages.filter((name) => NODE_ONLY.includes(name)),
    ).toEqual([]);
  });

  it("loads the default environments' drivers (the sandbox host on Node, QuickJS elsewhere) and no other, and none of the subpath entries' modules", async () => {
    const { files } = await staticClosure("src/index.ts");
    expect(files).toContain("environments/sandbox-host/index.ts");
    expect(files).toContain("environments/quickjs/index.ts");
    const elsewhere = files.filter(
      (file) =>
        ["src/builtins", "src/entries", "src/testing", "src/mcp", "src/cli", "src/durable"].some((folder) =>
          file.startsWith(`${folder}/`),
        ) ||
        ["in-process", "docker", "remote"].some((driver) => file.startsWith(`environments/${driver}/`)) ||
        ["src/providers/openai.ts", "src/providers/anthropic.ts", "src/providers/ai-sdk.ts"].includes(file),
    );
    expect(elsewhere).toEqual([]);
  });
});

describe("the subpath entries", () => {
  /** The packages an entry may load because loading them is what it is for. */
  const ITS_OWN: Record<string, string[]> = {
    "cordon/testing": ["node:http"],
    "cordon/dbos": ["@dbos-inc/dbos-sdk"],
    "cordon/restate": ["@restatedev/restate-sdk"],
  };

  it.each(Object.entries(entries).filter(([specifier]) => specifier !== "cordon"))(
    "%s loads no package that only some tools or environments use until one of them is used",
    async (specifier, source) => {
      const { packages } = await staticClosure(source);
      const own = ITS_OWN[specifier] ?? [];
      expect(packages.filter((name) => loadedWhenUsed(name) && !own.includes(name))).toEqual([]);
    },
  );

  it("cordon/testing is one of them: its server's HTTP is loaded when it is imported, not by the root", async () => {
    expect((await staticClosure("src/entries/testing.ts")).packages).toContain("node:http");
    expect((await staticClosure("src/index.ts")).packages).not.toContain("node:http");
  });
});

describe("cordon run", () => {
  it("can start the sandbox process before loading code mode or a driver it does not use", async () => {
    // The command's module and the run command's: what is loaded before run() asks for its environment.
    const loaded = await Promise.all(["src/cli/main.ts", "src/cli/commands/run.ts"].map(staticClosure));
    const files = loaded.flatMap((closure) => closure.files);
    expect(files).toContain("src/cli/env-choices.ts");
    const early = files.filter(
      (file) =>
        file.startsWith("sandbox/") ||
        (file.startsWith("environments/") && file !== "environments/remote/defaults.ts") ||
        file === "src/codemode/code-mode.ts",
    );
    expect(early).toEqual([]);
    const packages = loaded.flatMap((closure) => closure.packages);
    expect(packages.filter((name) => name === "acorn" || loadedWhenUsed(name))).toEqual([]);
  });
});
