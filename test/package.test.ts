import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import ts from "typescript";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import entries from "../scripts/entries.json" with { type: "json" };
import { MCP_SDK_PACKAGE, MCP_SDK_RANGE } from "../src/mcp/sdk-package.js";

const root = resolve(import.meta.dirname, "..");
const made: string[] = [];

/** A consumer project's directory, removed after the test. */
function consumerDirectory(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

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

  it("each subpath export resolves to its own file in dist and exposes its functions", () => {
    const script = `const subpaths = {
      "cordon/openai": ["chatCompletionTools", "responsesTools", "chatToolCalls", "chatToolMessages", "runChatToolCalls", "responseToolCalls", "functionCallOutputs", "runResponseToolCalls"],
      "cordon/anthropic": ["anthropicTools", "toolUseCalls", "toolResultBlocks", "runToolUses"],
      "cordon/ai-sdk": ["aiSdkTools", "ToolCallFailed"],
      "cordon/builtins": ["webFetch", "HttpReader", "webSearch", "askHuman", "HumanChannel", "fence"],
      "cordon/discovery": ["createToolIndex", "toolIndexText", "observe", "renderObservedType"],
      "cordon/in-process": ["isolateEnvironment"],
      "cordon/quickjs": ["quickjsEnvironment"],
      "cordon/docker": ["dockerEnvironment", "buildSandboxImage"],
      "cordon/remote": ["remoteEnvironment", "serveSandboxes"],
      "cordon/postgres": ["postgresJournal"],
      "cordon/durable": ["memoryJournal", "fileJournal", "RecoveryRefused"],
      "cordon/dbos": ["dbosRunCode"],
      "cordon/testing": ["startScriptedModelServer", "scriptedLanguageModel", "runCodeTurn"],
      "cordon/restate": ["restateRunCode"],
    };
    const out = {};
    for (const [path, names] of Object.entries(subpaths)) {
      const m = await import(path);
      out[path] = { url: import.meta.resolve(path), missing: names.filter((n) => typeof m[n] !== "function") };
    }
    console.log(JSON.stringify(out));`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: root,
      encoding: "utf8",
    });
    const resolved = JSON.parse(out) as Record<string, { url: string; missing: string[] }>;
    for (const [path, entry] of Object.entries(resolved)) {
      expect(entry.url.endsWith(`/dist/${path.slice("cordon/".length)}.js`), path).toBe(true);
      expect(entry.missing, path).toEqual([]);
    }
    expect(Object.keys(resolved).sort()).toEqual(
      Object.keys(entries)
        .filter((specifier) => specifier !== "cordon")
        .sort(),
    );
  });

  it("ships type declarations that a consumer's TypeScript resolves", () => {
    const dir = consumerDirectory("cordon-consumer-");
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
  }, 120_000);

  // The peer ranges take two majors of the OpenAI SDK and the AI SDK: the previous ones are installed
  // under other names (package.json devDependencies), and the consumer sees each set as itself.
  it.each([
    {
      majors: "the current majors",
      installed: { openai: "openai", "@anthropic-ai/sdk": "@anthropic-ai/sdk", ai: "ai" },
    },
    {
      majors: "the previous majors",
      installed: { openai: "openai-6", "@anthropic-ai/sdk": "@anthropic-ai/sdk", ai: "ai-6" },
    },
  ])(
    "the subpaths ship types that fit the official SDKs' own parameter types in a consumer's program ($majors)",
    ({ installed }) => {
      const dir = consumerDirectory("cordon-provider-consumer-");
      mkdirSync(join(dir, "node_modules", "@anthropic-ai"), { recursive: true });
      // A copy, not a link: cordon's declarations must find the SDKs in the consumer's node_modules.
      cpSync(join(root, "dist"), join(dir, "node_modules/cordon/dist"), { recursive: true });
      cpSync(join(root, "package.json"), join(dir, "node_modules/cordon/package.json"));
      for (const [pkg, from] of Object.entries(installed)) {
        symlinkSync(join(root, "node_modules", from), join(dir, "node_modules", pkg), "dir");
      }
      const file = join(dir, "use.ts");
      writeFileSync(
        file,
        `import type Anthropic from "@anthropic-ai/sdk";
import type { ToolSet } from "ai";
import type OpenAI from "openai";
import { Dispatcher, Toolset, tool } from "cordon";
import { aiSdkTools } from "cordon/ai-sdk";
import { anthropicTools, runToolUses } from "cordon/anthropic";
import { chatCompletionTools, responsesTools, runChatToolCalls, runResponseToolCalls } from "cordon/openai";

const t = tool({ name: "t", description: "T.", input: { type: "object", properties: {} }, run: () => 1 });
const d = new Dispatcher(new Toolset([t]));
export const chat: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = {
  model: "m",
  messages: [],
  tools: chatCompletionTools(d),
};
export const responses: OpenAI.Responses.ResponseCreateParamsNonStreaming = { model: "m", tools: responsesTools(d) };
export const messages: Anthropic.MessageCreateParamsNonStreaming = {
  model: "m",
  max_tokens: 1,
  messages: [],
  tools: anthropicTools(d),
};
export const aiTools: ToolSet = aiSdkTools(d);

export async function loop(
  openai: OpenAI,
  anthropic: Anthropic,
  history: OpenAI.Chat.ChatCompletionMessageParam[],
  anthropicHistory: Anthropic.MessageParam[],
  inputs: OpenAI.Responses.ResponseInputItem[],
) {
  const completion = await openai.chat.completions.create(chat);
  const turn = await runChatToolCalls(d, completion.choices[0]!.message);
  history.push(...turn.messages);
  const response = await openai.responses.create(responses);
  inputs.push(...(await runResponseToolCalls(d, response)).items);
  const message = await anthropic.messages.create(messages);
  anthropicHistory.push((await runToolUses(d, message)).message);
  // @ts-expect-error: a Chat Completions message is not a number
  await runChatToolCalls(d, 42);
}
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
    },
    120_000,
  );

  it("the declarations of every entry import no package but its dependencies, its peers and Node's own", () => {
    const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      exports: Record<string, { types: string }>;
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
    };
    const declared = new Set([
      ...Object.keys(manifest.dependencies),
      ...Object.keys(manifest.peerDependencies),
    ]);
    const { imported, seen } = importedByDeclarations(Object.values(manifest.exports).map((e) => e.types));
    expect(seen.size).toBeGreaterThan(Object.keys(manifest.exports).length);
    const missing = [...imported].filter(([name]) => !name.startsWith("node:") && !declared.has(name));
    expect(missing.map(([name, file]) => `${name} (${file})`)).toEqual([]);
  });

  it("the Restate SDK is imported by the declarations of cordon/restate only", () => {
    const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      exports: Record<string, { types: string }>;
    };
    const others = Object.entries(manifest.exports).filter(([path]) => path !== "./restate");
    const imported = importedByDeclarations(others.map(([, entry]) => entry.types)).imported;
    expect(imported.get("@restatedev/restate-sdk")).toBeUndefined();
    expect(
      importedByDeclarations([manifest.exports["./restate"]!.types]).imported.has("@restatedev/restate-sdk"),
    ).toBe(true);
  });
});

/**
 * The packages the declaration files `entries` (paths in the package) import, they or the files they
 * import in turn: each package with the last file that imports it, and every file read.
 */
function importedByDeclarations(entries: string[]): { imported: Map<string, string>; seen: Set<string> } {
  const imported = new Map<string, string>();
  const queue = entries.map((entry) => resolve(root, entry));
  const seen = new Set<string>();
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const { importedFiles, referencedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    for (const { fileName } of [...importedFiles, ...referencedFiles]) {
      if (fileName.startsWith(".")) queue.push(resolve(dirname(file), fileName.replace(/\.js$/, ".d.ts")));
      else imported.set(/^(@[^/]+\/[^/]+|[^/]+)/.exec(fileName)![1]!, file.slice(root.length + 1));
    }
  }
  return { imported, seen };
}

describe("the dependencies", () => {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
    peerDependencies: Record<string, string>;
    peerDependenciesMeta: Record<string, { optional?: boolean }>;
  };

  it("every peer range ends at a major cordon is tested with: none is open-ended", () => {
    // Each alternative of a range (a || b) is a caret range or has an upper bound.
    const open = Object.entries(manifest.peerDependencies).filter(([, range]) =>
      range.split("||").some((part) => !/^\s*\^\d/.test(part) && !/<\s*\d/.test(part)),
    );
    expect(open).toEqual([]);
  });

  it("the MCP SDK is an optional peer, in the range cordon mcp names when it is missing, and not a dependency", () => {
    expect(manifest.dependencies[MCP_SDK_PACKAGE]).toBeUndefined();
    expect(manifest.peerDependencies[MCP_SDK_PACKAGE]).toBe(MCP_SDK_RANGE);
    expect(manifest.peerDependenciesMeta[MCP_SDK_PACKAGE]).toEqual({ optional: true });
    expect(manifest.devDependencies[MCP_SDK_PACKAGE]).toBe(MCP_SDK_RANGE);
  });
});
