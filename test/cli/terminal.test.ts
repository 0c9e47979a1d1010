/**
 * `cordon` on a real pseudo-terminal (util-linux `script`): --approve ask asks there, and colour appears
 * only on a terminal.
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cordon, cordonOnTerminal, ensureBuilt } from "./helpers.js";

const NOTES = "test/cli/fixtures/tools.ts";
const ESC = "\u001b[";
let scratch = "";
/** A gated call whose outcome depends on --approve. */
let CODE_FILE = "";

beforeAll(() => {
  ensureBuilt();
  scratch = mkdtempSync(join(tmpdir(), "cordon-tty-"));
  CODE_FILE = join(scratch, "delete-note.ts");
  writeFileSync(
    CODE_FILE,
    "try {\n  return await tools.delete_note({ id: 1 });\n} catch (e) {\n  return e.kind;\n}\n",
  );
});

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("cordon run on a terminal", () => {
  it("--approve ask asks on the terminal; y runs the gated call", async () => {
    const { code, screen } = await cordonOnTerminal(["run", CODE_FILE, "--tools", NOTES], {
      waitFor: "[y/N]",
      keys: "y\r",
    });
    expect(code).toBe(0);
    // One line per argument, then the question (readline moves the cursor before it).
    expect(screen).toMatch(/Allow .*delete_note.* with:\r?\n {4}id: 1\r?\n[^\n]{0,20} {2}Allow\? \[y\/N\]/);
    expect(screen).toContain('"deleted": 1');
  });

  it("a padded argument cannot push another off the question, and v shows every argument in full first", async () => {
    const padded = join(scratch, "padded.ts");
    writeFileSync(
      padded,
      'try {\n  return await tools.delete_note({ id: 1, why: "tidy" + " ".repeat(3000) + "\\u202E" });\n} catch (e) {\n  return e.kind;\n}\n',
    );
    const { code, screen } = await cordonOnTerminal(["run", padded, "--tools", NOTES], {
      waitFor: "[y/N]",
      keys: "v\r",
      answers: [{ waitFor: "[y/N]", keys: "n\r" }],
    });
    expect(code).toBe(0);
    expect(screen).toContain("id: 1");
    expect(screen).toContain('why: "tidy⟨3,000 spaces⟩\\u{202E}"');
    // The full view, asked for with v, before the question comes again.
    expect(screen).toMatch(/"why": "tidy⟨3,000 spaces⟩\\u\{202E\}"[\s\S]*Allow\? \[y\/N\]/);
    expect(screen).not.toContain("\u202E");
    expect(screen).toContain('"denied"');
  });

  it("--approve ask: any other answer denies", async () => {
    const { code, screen } = await cordonOnTerminal(["run", CODE_FILE, "--tools", NOTES], {
      waitFor: "[y/N]",
      keys: "n\r",
    });
    expect(code).toBe(0);
    expect(screen).toContain('"denied"');
  });

  it("colours its output on a terminal, and never when piped", async () => {
    const onTerminal = await cordonOnTerminal(["run", CODE_FILE, "--tools", NOTES, "--approve", "none"]);
    expect(onTerminal.screen).toContain(`${ESC}32m`);
    const piped = await cordon(["run", CODE_FILE, "--tools", NOTES, "--approve", "none"]);
    expect(piped.stdout).toContain("denied");
    expect(piped.stdout).not.toContain(ESC);
    expect(piped.stderr).not.toContain(ESC);
    const noColor = await cordonOnTerminal(["run", CODE_FILE, "--tools", NOTES, "--approve", "none"], {
      env: { NO_COLOR: "1" },
    });
    expect(noColor.screen).toContain("denied");
    expect(noColor.screen).not.toContain(`${ESC}32m`);
  });
});
