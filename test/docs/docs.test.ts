// README.md and docs/ are checked like code: every TypeScript block type-checks against the built
// package (and a block that says what it prints is run and must print it), every shell command docs/
// shows for this repository runs (or its block says why it does not), no relative link is dead, and
// README.md stays short. (README's quickstart is run as written by quickstart.test.ts.)
//
// Markers a block may start with:
// - TypeScript: `// (continues the example above)` checks the block together with the one before it on
//   the same page; `// partial: <why>` skips a block that is deliberately incomplete. A block whose last
//   line is `// prints: <text>` is also run (from a project that installed cordon) and must print it.
// - Shell: a first line comment that says `not run by make test` or `in your project` skips the block
//   (the comment says why); `# needs docker` runs it only where a Docker engine answers (always under
//   CORDON_REQUIRE_DOCKER=1, as the Docker suites do).
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, posix, resolve } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anchorsOf, type Block, blocksOf, documentationFiles, linksOf, read, slug } from "./markdown.js";
import { runToEnd } from "./run-to-end.js";

const root = resolve(import.meta.dirname, "../..");
const files = documentationFiles(root);
const blocks = files.flatMap((file) => blocksOf(file, read(root, file)));

const CONTINUES = "// (continues the example above)";
/** What README.md may hold (what cordon is, the quickstart, install, the tables, the guides, headline figures). */
const README_MAX_LINES = 200;
const PARTIAL = /^\/\/ partial\b/;
const PRINTS = /^\/\/ prints: (.*)$/;

/** A consumer project in a temporary folder: cordon (this repository, built) and its packages installed. */
function consumerProject(): string {
  const dir = mkdtempSync(join(tmpdir(), "cordon-docs-"));
  const modules = join(dir, "node_modules");
  mkdirSync(modules);
  for (const name of readdirSync(join(root, "node_modules"))) {
    if (name.startsWith(".")) continue;
    symlinkSync(join(root, "node_modules", name), join(modules, name), "dir");
  }
  symlinkSync(root, join(modules, "cordon"), "dir");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", type: "module" }));
  return dir;
}

/** The TypeScript programs of the pages: a block, or a block with the ones it continues. */
function typeScriptPrograms(): { block: Block; source: string }[] {
  const programs: { block: Block; source: string }[] = [];
  for (const block of blocks) {
    if (block.lang !== "ts" && block.lang !== "typescript") continue;
    const first = block.text.split("\n")[0]!;
    if (PARTIAL.test(first)) continue;
    const previous = programs.at(-1);
    if (first === CONTINUES) {
      if (!previous || previous.block.file !== block.file) {
        throw new Error(`${block.file}:${block.line}: a block that continues another has none before it`);
      }
      programs[programs.length - 1] = { block, source: `${previous.source}\n${block.text}` };
    } else {
      programs.push({ block, source: block.text });
    }
  }
  return programs;
}

let project: string;

beforeAll(() => {
  // `make test` builds before the suites run; a lone vitest run builds here.
  if (!existsSync(join(root, "dist/index.d.ts")))
    execFileSync("npm", ["run", "build"], { cwd: root, stdio: "ignore" });
  project = consumerProject();
}, 180_000);

afterAll(() => rmSync(project, { recursive: true, force: true }));

describe("the documentation's TypeScript", () => {
  it("every block type-checks against the built package, as a user's project would compile it", () => {
    const programs = typeScriptPrograms();
    expect(programs.length).toBeGreaterThan(5);
    const names = programs.map(({ block, source }) => {
      const name = join(project, `${block.file.replace(/[/.]/g, "_")}_${block.line}.ts`);
      writeFileSync(name, source);
      return name;
    });
    const program = ts.createProgram(names, {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      moduleDetection: ts.ModuleDetectionKind.Force,
      target: ts.ScriptTarget.ES2022,
      lib: ["lib.es2023.d.ts"],
      types: ["node"],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
    });
    const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
      if (!diagnostic.file || diagnostic.start === undefined) return text;
      const at = names.indexOf(diagnostic.file.fileName);
      const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
      const where =
        at === -1
          ? diagnostic.file.fileName
          : `${programs[at]!.block.file} (block at ${programs[at]!.block.line}), line ${line + 1}`;
      return `${where}: ${text}`;
    });
    expect(problems).toEqual([]);
    // One TypeScript program over every block of the docs: 10-30 s of a core on a 2-core machine.
  }, 120_000);

  it("a block that says what it prints prints it", async () => {
    const printing = typeScriptPrograms().filter(({ block }) => PRINTS.test(block.text.split("\n").at(-1)!));
    expect(printing.length).toBeGreaterThan(0);
    for (const { block, source } of printing) {
      const expected = PRINTS.exec(source.split("\n").at(-1)!)![1];
      const file = join(project, `run_${block.line}.ts`);
      writeFileSync(file, source);
      const run = await runToEnd(process.execPath, ["--import", "tsx", file], {
        cwd: project,
        timeout: 60_000,
      });
      expect(run.stderr, `${block.file}:${block.line}`).toBe("");
      expect(run.stdout.trim(), `${block.file}:${block.line}`).toBe(expected);
    }
  }, 90_000);
});

describe("the documentation's shell commands", () => {
  const shell = blocks.filter(
    (block) => block.file.startsWith("docs/") && ["sh", "bash", "shell"].includes(block.lang),
  );
  const skipped = (block: Block) => /not run by make test|in your project/.test(block.text.split("\n")[0]!);
  const dockerAnswers = () => spawnSync("docker", ["info"], { stdio: "ignore" }).status === 0;

  it("every skipped block says why on its first line", () => {
    for (const block of shell.filter(skipped)) {
      expect(block.text.split("\n")[0], `${block.file}:${block.line}`).toMatch(/^# .{20,}/);
    }
  });

  it("every other block runs in this repository and succeeds", async () => {
    const runnable = shell.filter((block) => !skipped(block));
    expect(runnable.length).toBeGreaterThan(0);
    for (const block of runnable) {
      if (block.text.startsWith("# needs docker") && !dockerAnswers()) {
        expect(process.env.CORDON_REQUIRE_DOCKER, `${block.file}:${block.line} needs Docker`).not.toBe("1");
        continue;
      }
      const run = await runToEnd("bash", ["-euo", "pipefail", "-c", block.text], {
        cwd: root,
        timeout: 240_000,
        env: { ...process.env, PATH: `${join(root, "node_modules/.bin")}:${process.env.PATH}` },
      });
      expect(
        run.status,
        `${block.file}:${block.line} exited ${run.status}:\n${run.stdout.slice(-2_000)}\n${run.stderr.slice(-2_000)}`,
      ).toBe(0);
    }
  }, 600_000);
});

describe("README.md", () => {
  it(`stays a front door: at most ${README_MAX_LINES} lines, the rest in the guides of docs/`, () => {
    const lines = read(root, "README.md").trimEnd().split("\n").length;
    expect(lines, `README.md has ${lines} lines: move the details to a guide in docs/`).toBeLessThanOrEqual(
      README_MAX_LINES,
    );
  });
});

describe("the documentation's links", () => {
  it("every relative link names a file or folder that exists, and a heading that exists", () => {
    const dead: string[] = [];
    for (const file of files) {
      for (const link of linksOf(file, read(root, file))) {
        const [path, anchor] = link.target.split("#") as [string, string | undefined];
        const target = path === "" ? file : posix.normalize(posix.join(posix.dirname(file), path));
        if (!existsSync(join(root, target))) {
          dead.push(`${file}:${link.line}: ${link.target} (no ${target})`);
          continue;
        }
        if (anchor !== undefined && target.endsWith(".md") && !anchorsOf(read(root, target)).has(anchor)) {
          dead.push(`${file}:${link.line}: ${link.target} (${target} has no heading #${anchor})`);
        }
      }
    }
    expect(dead).toEqual([]);
  });

  it("every page of docs/ is linked from README.md", () => {
    const linked = new Set(
      linksOf("README.md", read(root, "README.md")).map((link) => link.target.split("#")[0]),
    );
    expect(files.filter((file) => file.startsWith("docs/") && !linked.has(file))).toEqual([]);
  });

  it("blocks inside list items are read, without their indentation", () => {
    expect(blocksOf("x.md", "- a command:\n\n  ```sh\n  echo hi\n  ```\n")).toEqual([
      { file: "x.md", line: 4, lang: "sh", text: "echo hi" },
    ]);
  });

  it("headings become the anchors GitHub makes of them", () => {
    expect(slug("The `cordon` command")).toBe("the-cordon-command");
    expect(slug('From "I have an agent loop" to "my code"')).toBe("from-i-have-an-agent-loop-to-my-code");
    expect([...anchorsOf("# A\n```\n# not a heading\n```\n## A\n")]).toEqual(["a", "a-1"]);
  });
});
