/**
 * The README's quickstart, as a new user follows it: this checkout packed (`npm pack`, the file the
 * quickstart's first step makes in a clone), then every command of the quickstart run as written in a
 * fresh folder beside it, with the npm registry reachable, `agent.ts` saved from the README, and its run
 * printing the line the README says. Slow on purpose (npm builds isolated-vm from source, a few minutes):
 * it is the first hour of a newcomer, tested.
 */

import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Block, blocksOf, read } from "./markdown.js";
import { runToEnd } from "./run-to-end.js";

const root = resolve(import.meta.dirname, "../..");
// Asynchronous on purpose, as in test/packed.test.ts: a worker blocked for minutes by npm fails vitest's
// own messages to it.
const exec = promisify(execFile);

/** The README's quickstart: its text and fenced blocks, from its heading to the next one. */
function quickstart(): { text: string; blocks: Block[] } {
  const readme = read(root, "README.md");
  const lines = readme.split("\n");
  const start = lines.indexOf("## Quickstart");
  const end = lines.findIndex((line, index) => index > start && line.startsWith("## "));
  if (start < 0 || end < 0) throw new Error("README.md has no ## Quickstart section followed by another");
  const blocks = blocksOf("README.md", readme).filter((block) => block.line > start && block.line < end);
  return { text: lines.slice(start, end).join("\n"), blocks };
}

/** The environment of a user's shell: without what `npm test` or `make` put in it for this repository. */
function userEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(name) && name !== "INIT_CWD" && name !== "NODE_OPTIONS") env[name] = value;
  }
  return env;
}

/** Runs a shell block in `cwd`, stopping at its first failing command; resolves with what it printed. */
async function runBlock(block: Block, cwd: string): Promise<{ stdout: string; stderr: string }> {
  const run = await runToEnd("bash", ["-euo", "pipefail", "-c", block.text], {
    cwd,
    env: userEnvironment(),
    timeout: 900_000,
  });
  if (run.status !== 0) {
    throw new Error(
      `README.md:${block.line} exited ${run.status}:\n${run.stdout.slice(-3_000)}\n${run.stderr.slice(-3_000)}`,
    );
  }
  return run;
}

const { text, blocks } = quickstart();
const shell = blocks.filter((block) => block.lang === "sh");
const program = blocks.find((block) => block.lang === "ts");

let scratch = "";
let project = "";
let installed = { stdout: "", stderr: "" };
let ran = { stdout: "", stderr: "" };

beforeAll(async () => {
  // `make test` builds before the suites run; a lone vitest run builds here.
  if (!existsSync(join(root, "dist/index.js"))) await exec("npm", ["run", "build"], { cwd: root });
  scratch = mkdtempSync(join(tmpdir(), "cordon-quickstart-"));
  // The clone's folder is named cordon, beside the user's project: the quickstart installs ../cordon/cordon-*.tgz.
  mkdirSync(join(scratch, "cordon"));
  await exec("npm", ["pack", "--pack-destination", join(scratch, "cordon")], { cwd: root });
  project = join(scratch, "my-agent");
  mkdirSync(project);
  installed = await runBlock(shell[1]!, project);
  const file = /Save this as `([^`]+)`:\s*$/.exec(text.slice(0, text.indexOf("```ts")))?.[1];
  if (!file || !program) throw new Error("the quickstart says no file to save its example in");
  writeFileSync(join(project, file), program.text);
  ran = await runBlock(shell[2]!, project);
}, 1_200_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("the README's quickstart, run as written in a fresh project", () => {
  it("has its steps in order: pack the clone, make the project, the example, run it", () => {
    expect(shell).toHaveLength(3);
    expect(shell[0]!.text).toContain("npm pack");
    expect(shell[1]!.text).toContain("npm init -y");
    expect(program?.text.split("\n").at(-1)).toMatch(/^\/\/ prints: /);
    expect(shell[2]!.text).toMatch(/^npx tsx agent\.ts/);
  });

  it("makes a project of ES modules that approves isolated-vm's and esbuild's install scripts before installing them", () => {
    const manifest = JSON.parse(readFileSync(join(project, "package.json"), "utf8"));
    expect(manifest.type).toBe("module");
    expect(manifest.allowScripts).toEqual({ "isolated-vm": true, esbuild: true });
    expect(Object.keys(manifest.dependencies).sort()).toEqual(["cordon", "isolated-vm", "zod"]);
    // Approved in time: npm ran both scripts and had nothing to warn about.
    expect(installed.stderr).not.toContain("not yet covered by allowScripts");
  });

  it("runs the example and prints the line the README says, and the example type-checks", () => {
    const expected = program!.text
      .split("\n")
      .at(-1)!
      .replace(/^\/\/ prints: /, "");
    expect(ran.stdout.trim()).toBe(expected);
    // tsc prints nothing when the file type-checks (it would print the errors and fail the block).
    expect(ran.stderr).toBe("");
  });
});
