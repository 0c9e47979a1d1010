/**
 * `cordon resume` on a real pseudo-terminal (util-linux `script`): --approve ask asks about each call
 * that waits, as `cordon run --approve ask` does, and an ask_human question is asked there whatever
 * --approve says; Ctrl-C at a question resumes nothing.
 */

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cordon, cordonOnTerminal, ensureBuilt } from "./helpers.js";

const PAUSE_TOOLS = "test/cli/fixtures/pause-tools.ts";

let scratch = "";
let count = 0;

beforeAll(() => {
  ensureBuilt();
  scratch = mkdtempSync(join(tmpdir(), "cordon-pause-tty-"));
});

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Runs `code` with --approve pause (it must pause: exit 3); returns how to resume it and its effects. */
async function paused(code: string) {
  const dir = mkdtempSync(join(scratch, `t${++count}-`));
  const codeFile = join(dir, "task.ts");
  writeFileSync(codeFile, code);
  const checkpoint = join(dir, "run.ckpt");
  const effects = join(dir, "effects");
  const env = {
    CORDON_TEST_EFFECTS: effects,
    CORDON_CHECKPOINT_KEY: "a test key for cordon checkpoints, 32+ bytes",
    XDG_CONFIG_HOME: join(dir, "config"),
  };
  const run = await cordon(
    ["run", codeFile, "--tools", PAUSE_TOOLS, "--approve", "pause", "--checkpoint", checkpoint],
    { env },
  );
  expect(run.code, run.stderr).toBe(3);
  return {
    checkpoint,
    env,
    args: ["resume", checkpoint, "--tools", PAUSE_TOOLS],
    effects: (): string[] =>
      existsSync(effects) ? readFileSync(effects, "utf8").split("\n").filter(Boolean) : [],
  };
}

/** What the terminal showed, without its colours. */
function plain(screen: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escapes are what is removed
  return screen.replace(/\u001b\[[0-9;]*[A-Za-z]/g, "");
}

const GATED = [
  'await tools.append({ line: "before" });',
  'try { return await tools.send({ to: "ann", body: "hello" }); } catch (e) { return "caught: " + e.kind; }',
].join("\n");

describe("cordon resume on a terminal", () => {
  it("--approve ask asks about the waiting call, its arguments shown as the approval prompt shows them; y approves it", async () => {
    const p = await paused(GATED);
    const { code, screen } = await cordonOnTerminal(p.args, { waitFor: "[y/N]", keys: "y\r", env: p.env });
    expect(code).toBe(0);
    // The tool's approvalKeys come first: `to` before `body`.
    expect(plain(screen)).toMatch(/\S+\.\d+ Allow send with:\r?\n {4}to: "ann"\r?\n {4}body: "hello"\r?\n/);
    expect(screen).toContain('"sent to ann"');
    expect(p.effects()).toEqual(["before", "sent to ann: hello"]);
  });

  it("--approve ask: n denies the waiting call, and the code sees the denial", async () => {
    const p = await paused(GATED);
    const { code, screen } = await cordonOnTerminal(p.args, { waitFor: "[y/N]", keys: "n\r", env: p.env });
    expect(code).toBe(0);
    expect(screen).toContain('"caught: denied"');
    expect(p.effects()).toEqual(["before"]);
  });

  it("two waiting calls are asked about one at a time, each with its own answer", async () => {
    const p = await paused(
      [
        "const outcomes = await Promise.allSettled([",
        '  tools.send({ to: "ann", body: "one" }),',
        '  tools.send({ to: "bo", body: "two" }),',
        "]);",
        'return outcomes.map((o) => o.status === "fulfilled" ? o.value : o.reason.kind);',
      ].join("\n"),
    );
    const { code, screen } = await cordonOnTerminal(p.args, {
      waitFor: "[y/N]",
      keys: "y\r",
      answers: [{ waitFor: "[y/N]", keys: "n\r" }],
      env: p.env,
    });
    expect(code).toBe(0);
    expect(screen).toMatch(/to: "ann"[\s\S]*Allow\? \[y\/N\][\s\S]*to: "bo"[\s\S]*Allow\? \[y\/N\]/);
    expect(screen).toMatch(/"sent to ann",\s*"denied"/);
    expect(p.effects()).toEqual(["sent to ann: one"]);
  });

  it("an ask_human question is asked on the terminal even with --approve all, and a number picks its suggested answer", async () => {
    const p = await paused(
      [
        "const colour = await tools.ask_human({",
        '  question: "Which colour?",',
        '  options: [{ label: "red" }, { label: "blue", description: "like the sea" }],',
        "});",
        'await tools.append({ line: "colour " + colour });',
        "return colour;",
      ].join("\n"),
    );
    const { code, screen } = await cordonOnTerminal([...p.args, "--approve", "all"], {
      waitFor: "Answer (",
      keys: "2\r",
      env: p.env,
    });
    expect(code).toBe(0);
    expect(plain(screen)).toMatch(
      /ask_human asks:\r?\n {4}Which colour\?\r?\n {4}1\. red\r?\n {4}2\. blue — like the sea/,
    );
    expect(screen).toContain('"blue"');
    expect(p.effects()).toEqual(["colour blue"]);
  });

  it("Ctrl-C at a question resumes nothing, exits 130 and leaves the checkpoint as it was", async () => {
    const p = await paused('return await tools.ask_human({ question: "Go on?" });');
    const before = readFileSync(p.checkpoint, "utf8");
    const { code, screen } = await cordonOnTerminal(p.args, {
      waitFor: "Answer:",
      keys: "\u0003",
      env: p.env,
    });
    expect(code).toBe(130);
    expect(screen).toContain("interrupted: nothing was resumed");
    expect(readFileSync(p.checkpoint, "utf8")).toBe(before);
  });
});
