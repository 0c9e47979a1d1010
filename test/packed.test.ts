/**
 * The package as a user installs it: `npm pack`, installed into a fresh TypeScript project that has only
 * cordon's own dependencies (no isolated-vm, no dev dependencies), type-checked with skipLibCheck off.
 * The install, and the programs and commands run there, see a PATH with no compiler (no g++, cc or make),
 * as on a machine without a C++ toolchain: install scripts run, and code mode runs on QuickJS.
 */

import { execFile, execFileSync, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import entries from "../scripts/entries.json" with { type: "json" };
import { MCP_SDK_PACKAGE, MCP_SDK_RANGE } from "../src/mcp/sdk-package.js";

const root = resolve(import.meta.dirname, "..");
/**
 * The package's entries that need no optional package to load: all but those made for an SDK, whose
 * types and classes they use (the providers' adapters, cordon/restate's Restate SDK and cordon/dbos's
 * DBOS SDK).
 */
const ENTRIES_WITHOUT_SDK = Object.keys(entries).filter(
  (specifier) =>
    !["cordon/openai", "cordon/anthropic", "cordon/ai-sdk", "cordon/restate", "cordon/dbos"].includes(
      specifier,
    ),
);
let consumer = "";
let packed: string[] = [];
/** The process environment of a machine without a compiler: PATH holds node, npm and sh alone. */
let noCompiler: NodeJS.ProcessEnv = {};
/** What `command -v g++ cc make` found on that PATH (nothing, or the test would prove nothing). */
let compilersFound = "";
/** The diagnostics of the consumer's files (CONSUMER_SOURCES), as text. */
let problems: string[] = [];

// Asynchronous on purpose: npm can take long (it waits 10 s and more before retrying a registry request),
// and a test worker whose event loop is blocked for over a minute fails vitest's own messages to it
// ("Timeout calling onTaskUpdate", an unhandled error) though every test passed.
const run = promisify(execFile);

beforeAll(async () => {
  if (!existsSync(join(root, "dist/index.js"))) await run("npm", ["run", "build"], { cwd: root });
  consumer = mkdtempSync(join(tmpdir(), "cordon-packed-"));
  noCompiler = { ...process.env, PATH: binWithNodeAndNpmOnly(join(consumer, ".bin-no-compiler")) };
  compilersFound = await run("sh", ["-c", "command -v g++ cc gcc c++ make || true"], {
    env: noCompiler,
  }).then(({ stdout }) => stdout.trim());
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", consumer], { cwd: root });
  const [info] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }];
  packed = info.files.map((file) => file.path);
  writeFileSync(
    join(consumer, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  // Only what a user installs: cordon (with its dependencies) and zod; no isolated-vm. Install scripts
  // run, with no compiler on the PATH; packages come from npm's cache where it has them.
  await run(
    "npm",
    ["install", join(consumer, info.filename), "zod@4", "--no-audit", "--no-fund", "--prefer-offline"],
    { cwd: consumer, env: noCompiler },
  );
  problems = typeCheck(CONSUMER_SOURCES);
}, 180_000);

afterAll(() => {
  if (consumer) rmSync(consumer, { recursive: true, force: true });
});

/**
 * The consumer's TypeScript files, type-checked together once (with skipLibCheck off, checking every
 * declaration file of cordon they reach is most of the work): a use of the root entry, every entry but
 * those made for an SDK (which need it installed) whole, and a wrong use that must be a type error.
 */
const CONSUMER_SOURCES: Record<string, string> = {
  "agent.ts": `import { z } from "zod";
import { codeMode, Dispatcher, Toolset, tool, type CodeRunResult } from "cordon";

const getOrder = tool({
  name: "get_order",
  description: "Look up one order.",
  input: z.object({ order_id: z.string(), limit: z.number().optional() }),
  run: async ({ order_id, limit }) => ({ id: order_id.toUpperCase(), limit: limit ?? 10 }),
});
const tools = new Toolset([getOrder]);
export const dispatcher = new Dispatcher(tools, { approvalTimeoutMs: 60_000 });
export const make = () => codeMode({ tools });
export const statusOf = (result: CodeRunResult): string => result.status;
`,
  // Every entry but those made for an SDK (which need it installed), whole.
  "entries.ts": `${ENTRIES_WITHOUT_SDK.map((specifier, i) => `import * as entry${i} from "${specifier}";`).join("\n")}
export const loaded = [${ENTRIES_WITHOUT_SDK.map((_, i) => `entry${i}`).join(", ")}];
`,
  "wrong.ts": `import { z } from "zod";
import { tool } from "cordon";

export const getOrder = tool({
  name: "get_order",
  description: "Look up one order.",
  input: z.object({ order_id: z.string() }),
  run: ({ order_id }) => order_id.toFixed(2),
});
`,
};

/** Type-checks `sources` as files of the consumer project, by name; returns the diagnostics as text. */
function typeCheck(sources: Record<string, string>): string[] {
  const files = Object.entries(sources).map(([name, source]) => {
    writeFileSync(join(consumer, name), source);
    return join(consumer, name);
  });
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2023.d.ts"],
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    types: ["node"],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${d.file.fileName.slice(consumer.length + 1)}: ` : "";
    return `${where}TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
  });
}

/**
 * A folder with links to node, npm and sh (which npm runs install scripts with) alone, for a PATH on
 * which no compiler is found; its path.
 */
function binWithNodeAndNpmOnly(folder: string): string {
  mkdirSync(folder);
  symlinkSync(process.execPath, join(folder, "node"));
  for (const program of ["npm", "sh"]) {
    const found = execFileSync("sh", ["-c", `command -v ${program}`], { encoding: "utf8" }).trim();
    symlinkSync(realpathSync(found), join(folder, program));
  }
  return folder;
}

/** The packages installed under `folder`/node_modules, nested ones too (`a/node_modules/b`), sorted. */
function installedPackages(folder: string): string[] {
  const found: string[] = [];
  const visit = (dir: string, name: string) => {
    if (!existsSync(join(dir, "package.json"))) return;
    found.push(name);
    walk(join(dir, "node_modules"), `${name}/node_modules/`);
  };
  const walk = (modules: string, prefix: string) => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules)) {
      if (entry.startsWith(".")) continue;
      if (!entry.startsWith("@")) visit(join(modules, entry), prefix + entry);
      else
        for (const scoped of readdirSync(join(modules, entry))) {
          visit(join(modules, entry, scoped), `${prefix}${entry}/${scoped}`);
        }
    }
  };
  walk(join(folder, "node_modules"), "");
  return found.sort();
}

/** The most packages `npm install cordon` may bring when MCP is not used (cordon itself included). */
const MAX_INSTALLED_PACKAGES = 40;

/** Runs a module in the consumer project, on the PATH without a compiler; returns what it printed. */
function runInConsumer(source: string, flags: string[] = []): string {
  return runInConsumerWithStderr(source, flags).stdout;
}

/** Runs a module in the consumer project, on the PATH without a compiler; its stdout and stderr. */
function runInConsumerWithStderr(source: string, flags: string[] = []): { stdout: string; stderr: string } {
  const file = join(consumer, `run-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, source);
  const done = spawnSync(process.execPath, [...flags, file], {
    cwd: consumer,
    encoding: "utf8",
    env: noCompiler,
  });
  if (done.status !== 0) throw new Error(`${file} ended with ${done.status}: ${done.stderr}`);
  return { stdout: done.stdout, stderr: done.stderr };
}

describe("the packed package in a fresh consumer project", () => {
  it("installs with no compiler on the PATH: QuickJS's WebAssembly packages come with it, isolated-vm does not", () => {
    expect(compilersFound).toBe("");
    expect(existsSync(join(consumer, "node_modules/isolated-vm"))).toBe(false);
    expect(existsSync(join(consumer, "node_modules/quickjs-emscripten-core/package.json"))).toBe(true);
    expect(existsSync(join(consumer, "node_modules/@jitl/quickjs-wasmfile-release-sync/package.json"))).toBe(
      true,
    );
  });

  it("type-checks with skipLibCheck off and only cordon's own dependencies installed", () => {
    expect(existsSync(join(consumer, "node_modules/@standard-schema/spec"))).toBe(false);
    expect(problems.filter((problem) => !problem.startsWith("wrong.ts: "))).toEqual([]);
  });

  it("every entry but those made for an SDK (the providers', cordon/restate, cordon/dbos) loads without any optional package installed", () => {
    const out = runInConsumer(`const loaded = [];
for (const specifier of ${JSON.stringify(ENTRIES_WITHOUT_SDK)}) {
  const names = Object.keys(await import(specifier));
  loaded.push(names.length > 0 ? specifier : \`\${specifier} (exports nothing)\`);
}
console.log(JSON.stringify(loaded));`);
    expect(JSON.parse(out)).toEqual(ENTRIES_WITHOUT_SDK);
  });

  it("a wrong use of a tool's argument is a type error (the arguments are typed, not any)", () => {
    const wrong = problems.filter((problem) => problem.startsWith("wrong.ts: "));
    expect(wrong).toHaveLength(1);
    expect(wrong[0]).toMatch(/^wrong\.ts: TS(2339|2551) Property 'toFixed' does not exist on type 'string'/);
  });

  it("codeMode() without isolated-vm runs code and its tool calls on QuickJS, saying in one line how to get isolated-vm", () => {
    const { stdout, stderr } = runInConsumerWithStderr(`import { z } from "zod";
import { codeMode, tool } from "cordon";
const add = tool({ name: "add", description: "Adds.", input: z.object({ a: z.number(), b: z.number() }), run: ({ a, b }) => a + b });
const cm = codeMode({ tools: [add] });
const result = await cm.run("const x = await tools.add({ a: 40, b: 2 }); x * 10");
console.log(JSON.stringify({ status: result.status, value: result.value }));
await cm.close();`);
    expect(JSON.parse(stdout)).toEqual({ status: "ok", value: 420 });
    const lines = stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^cordon: isolated-vm is not installed; code runs in quickjsEnvironment\(\) \(QuickJS in WebAssembly, in this process\)\. For isolated-vm isolates in sandbox processes, install it with `npm install isolated-vm`: .*C\+\+ toolchain.*--no-node-snapshot/,
    );
  });

  it("sandboxHostEnvironment() without isolated-vm installed fails when it is created, naming the package and how to get it", () => {
    const out = runInConsumer(`import { sandboxHostEnvironment } from "cordon";
try { sandboxHostEnvironment(); console.log("created"); } catch (error) { console.log(error.name + ": " + error.message); }`);
    expect(out).toMatch(
      /^UserError: sandboxHostEnvironment\(\) runs isolates in sandbox processes and needs the isolated-vm package, but isolated-vm is not installed\. To get it, install it with `npm install isolated-vm`/,
    );
  });

  it("the in-process environment without --no-node-snapshot fails when it is created, naming the flag", () => {
    const out = runInConsumer(`import { isolateEnvironment } from "cordon/in-process";
try { isolateEnvironment(); console.log("created"); } catch (error) { console.log(error.name + ": " + error.message); }`);
    expect(out).toMatch(/^UserError: isolated-vm needs Node to run with --no-node-snapshot/);
  });

  it("installs the cordon executable: it runs, loads a .ts tools module, and without isolated-vm runs code on QuickJS", () => {
    const bin = join(consumer, "node_modules/.bin/cordon");
    const cordon = (args: string[]) =>
      spawnSync(bin, args, { cwd: consumer, encoding: "utf8", env: { ...noCompiler, NO_COLOR: "1" } });
    expect(cordon(["--help"]).stdout).toContain("cordon <command>");
    writeFileSync(
      join(consumer, "tools.ts"),
      `import { tool } from "cordon";
import { z } from "zod";
const ping = tool({ name: "ping", description: "Answers pong.", input: z.object({}), run: (): string => "pong" });
export default [ping];
`,
    );
    writeFileSync(
      join(consumer, "ping.ts"),
      "const answer = await tools.ping({});\n({ answer, twice: answer + answer });\n",
    );
    const ran = cordon(["run", "ping.ts", "--tools", "tools.ts", "--json"]);
    expect(ran.status, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout).value).toEqual({ answer: "pong", twice: "pongpong" });
    expect(ran.stderr).toMatch(
      /^cordon: isolated-vm is not installed; code runs in QuickJS \(--env quickjs: WebAssembly, in this process\)\. For isolated-vm isolates in sandbox processes, install it with `npm install isolated-vm`/,
    );
    writeFileSync(join(consumer, "empty.ts"), "export const nothing: number = 1;\n");
    const failure = cordon(["types", "--tools", "empty.ts"]);
    expect(failure.status).toBe(2);
    expect(failure.stderr).toContain("--tools empty.ts: the module has no default export");
  });

  it(`brings as many packages as README's Install says, at most ${MAX_INSTALLED_PACKAGES}, and neither the MCP SDK nor its web servers`, () => {
    const installed = installedPackages(consumer);
    expect(installed).toContain("cordon");
    const said = /`npm install cordon` brings (\d+) packages/.exec(
      readFileSync(join(root, "README.md"), "utf8"),
    );
    expect(said, "README's Install says how many packages `npm install cordon` brings").not.toBeNull();
    expect(installed.length, installed.join(" ")).toBe(Number(said![1]));
    expect(installed.filter((name) => /(^|\/)(@modelcontextprotocol|express|hono)\b/.test(name))).toEqual([]);
    expect(installed.length, installed.join(" ")).toBeLessThanOrEqual(MAX_INSTALLED_PACKAGES);
  });

  it("cordon mcp without the MCP SDK installed says how to install it, and cordon run does not need it", () => {
    const bin = join(consumer, "node_modules/.bin/cordon");
    writeFileSync(join(consumer, "none.ts"), "export default [];\n");
    let failure: { status?: number; stderr?: string } = {};
    try {
      execFileSync(bin, ["mcp", "--tools", "none.ts"], { cwd: consumer, encoding: "utf8", stdio: "pipe" });
    } catch (error) {
      failure = error as typeof failure;
    }
    expect(failure.status).toBe(2);
    expect(failure.stderr).toContain(
      `cordon mcp needs the MCP SDK, an optional peer dependency that is not installed: install it with \`npm install ${MCP_SDK_PACKAGE}@"${MCP_SDK_RANGE}"\``,
    );
    // cordon run runs code (on QuickJS: isolated-vm is not installed here) without the SDK.
    writeFileSync(
      join(consumer, "one-tool.ts"),
      'import { tool } from "cordon";\nexport default [tool({ name: "one", description: "One.", input: { type: "object" }, run: () => 1 })];\n',
    );
    writeFileSync(join(consumer, "code.ts"), "1 + (await tools.one({}));\n");
    const ran = spawnSync(bin, ["run", "code.ts", "--tools", "one-tool.ts", "--json"], {
      cwd: consumer,
      encoding: "utf8",
      env: noCompiler,
    });
    expect(ran.status, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout).value).toBe(2);
    expect(ran.stderr).not.toContain(MCP_SDK_PACKAGE);
  });

  it("ships no source maps or references to files it does not ship", () => {
    expect(packed.filter((path) => path.endsWith(".map"))).toEqual([]);
    expect(packed.some((path) => path.startsWith("src/"))).toBe(false);
    const shipped = join(consumer, "node_modules/cordon");
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (/\.(js|d\.ts)$/.test(entry.name)) {
          const text = readFileSync(path, "utf8");
          if (/sourceMappingURL|DESIGN\.md/.test(text)) offenders.push(path.slice(shipped.length + 1));
        }
      }
    };
    walk(join(shipped, "dist"));
    expect(offenders).toEqual([]);
  });
});
