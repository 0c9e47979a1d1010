/**
 * `cordon run --plan` with the built CLI: the plan's effects are printed as the approval prompt shows
 * them and asked about once on a real pseudo-terminal (util-linux `script`); y carries the plan out
 * (each effect once, the read not again), e decides each effect, n carries nothing out; --approve all
 * and none decide without a terminal. With --approve pause the plan is saved to a checkpoint file, and
 * cordon resume (another process) shows it and decides it once.
 */

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cordon, cordonOnTerminal, ensureBuilt } from "./helpers.js";

const PLAN_TOOLS = "test/cli/fixtures/plan-tools.ts";

const REFUNDS = `
const orders = await tools.list_orders({});
const done = [];
for (const order of orders) {
  try {
    done.push((await tools.refund({ order, amount: 10 })).status);
  } catch (error) {
    done.push(error.kind);
  }
}
return done;
`;

let scratch = "";
let count = 0;

beforeAll(() => {
  ensureBuilt();
  scratch = mkdtempSync(join(tmpdir(), "cordon-plan-"));
});

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** A folder with the code in task.ts, and the lines of what ran. */
function task() {
  const dir = mkdtempSync(join(scratch, `t${++count}-`));
  const codeFile = join(dir, "task.ts");
  writeFileSync(codeFile, REFUNDS);
  const effects = join(dir, "effects");
  return {
    dir,
    args: ["run", codeFile, "--tools", PLAN_TOOLS, "--plan"],
    env: { CORDON_TEST_EFFECTS: effects, XDG_CONFIG_HOME: join(dir, "config") },
    ran: (): string[] =>
      existsSync(effects) ? readFileSync(effects, "utf8").split("\n").filter(Boolean) : [],
  };
}

/** What the terminal showed, without its colours. */
function plain(screen: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escapes are what is removed
  return screen.replace(/\u001b\[[0-9;]*[A-Za-z]/g, "");
}

describe("cordon run --plan", () => {
  it("prints each effect with its arguments, asks once, and y runs each effect once without running the read again", async () => {
    const t = task();
    const { code, screen } = await cordonOnTerminal(t.args, {
      waitFor: "Carry out this plan? [y/N]",
      keys: "y\r",
      env: t.env,
    });
    expect(code, screen).toBe(0);
    // The tool's approvalKeys come first: `order` before `amount`.
    expect(plain(screen)).toMatch(/plan: 2 effects, none run yet/);
    expect(plain(screen)).toMatch(/\S+\.2 {2}refund\r?\n {6}order: "A1"\r?\n {6}amount: 10\r?\n/);
    expect(plain(screen)).toMatch(/\S+\.3 {2}refund\r?\n {6}order: "A2"\r?\n {6}amount: 10\r?\n/);
    expect(screen).toContain('"refunded"');
    expect(t.ran()).toEqual(["read list_orders", "refund A1 10", "refund A2 10"]);
  });

  it("e decides each effect: the one denied is seen by the code as a denial", async () => {
    const t = task();
    const { code, screen } = await cordonOnTerminal(t.args, {
      answers: [
        { waitFor: "Carry out this plan? [y/N]", keys: "e\r" },
        { waitFor: "Allow? [y/N]", keys: "n\r" },
        { waitFor: "Allow? [y/N]", keys: "y\r" },
      ],
      env: t.env,
    });
    expect(code, screen).toBe(0);
    expect(plain(screen)).toContain('"denied"');
    expect(t.ran()).toEqual(["read list_orders", "refund A2 10"]);
  });

  it("n carries nothing out: only the read ran", async () => {
    const t = task();
    const { code, screen } = await cordonOnTerminal(t.args, {
      waitFor: "Carry out this plan? [y/N]",
      keys: "n\r",
      env: t.env,
    });
    expect(code, screen).toBe(0);
    expect(plain(screen)).toContain("not carried out");
    expect(t.ran()).toEqual(["read list_orders"]);
  });

  it("--approve all carries the plan out without a terminal, --approve none only prints it", async () => {
    const all = task();
    const carried = await cordon([...all.args, "--approve", "all"], { env: all.env });
    expect(carried.code, carried.stderr).toBe(0);
    expect(carried.stdout).toContain("plan: 2 effects");
    expect(all.ran()).toEqual(["read list_orders", "refund A1 10", "refund A2 10"]);
    const none = task();
    const shown = await cordon([...none.args, "--approve", "none"], { env: none.env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("plan: 2 effects");
    expect(none.ran()).toEqual(["read list_orders"]);
  });

  it("asked without a terminal, it carries nothing out and says how to decide", async () => {
    const t = task();
    const outcome = await cordon(t.args, { env: t.env });
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain("--plan asks on a terminal");
    expect(t.ran()).toEqual(["read list_orders"]);
  });

  it("--approve pause saves the plan and runs no effect; cordon resume in another process shows it and carries it out once", async () => {
    const t = task();
    const file = join(t.dir, "plan.ckpt");
    const env = { ...t.env, CORDON_CHECKPOINT_KEY: "plan tests: a key of 32 characters or more" };
    const saved = await cordon([...t.args, "--approve", "pause", "--checkpoint", file], { env });
    expect(saved.code, saved.stderr).toBe(3);
    expect(saved.stdout).toContain("plan: 2 effects, none run yet");
    expect(saved.stdout).toContain("cordon resume");
    expect(t.ran()).toEqual(["read list_orders"]);

    // --approve none only shows the plan, and keeps the file for a decision later.
    const shown = await cordon(["resume", file, "--tools", PLAN_TOOLS, "--approve", "none"], { env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/\S+\.2 {2}refund\n {6}order: "A1"\n {6}amount: 10\n/);
    expect(shown.stderr).toContain("not carried out");
    expect(existsSync(file)).toBe(true);
    expect(t.ran()).toEqual(["read list_orders"]);

    const carried = await cordon(["resume", file, "--tools", PLAN_TOOLS, "--approve", "all"], { env });
    expect(carried.code, carried.stderr).toBe(0);
    expect(carried.stdout).toContain('"refunded"');
    // The read is not run again; each effect runs once.
    expect(t.ran()).toEqual(["read list_orders", "refund A1 10", "refund A2 10"]);
    const again = await cordon(["resume", file, "--tools", PLAN_TOOLS, "--approve", "all"], { env });
    expect(again.code).not.toBe(0);
    expect(t.ran()).toEqual(["read list_orders", "refund A1 10", "refund A2 10"]);
  });

  it("cordon resume of a saved plan asks once on a terminal: e decides each effect", async () => {
    const t = task();
    const file = join(t.dir, "plan.ckpt");
    const env = { ...t.env, CORDON_CHECKPOINT_KEY: "plan tests: a key of 32 characters or more" };
    const saved = await cordon([...t.args, "--approve", "pause", "--checkpoint", file], { env });
    expect(saved.code, saved.stderr).toBe(3);
    const { code, screen } = await cordonOnTerminal(["resume", file, "--tools", PLAN_TOOLS], {
      answers: [
        { waitFor: "Carry out this plan? [y/N]", keys: "e\r" },
        { waitFor: "Allow? [y/N]", keys: "y\r" },
        { waitFor: "Allow? [y/N]", keys: "n\r" },
      ],
      env,
    });
    expect(code, screen).toBe(0);
    expect(plain(screen)).toContain('"denied"');
    expect(t.ran()).toEqual(["read list_orders", "refund A1 10"]);
  });

  it("cordon resume of a saved plan without a terminal carries nothing out, says how to decide, and keeps the file", async () => {
    const t = task();
    const file = join(t.dir, "plan.ckpt");
    const env = { ...t.env, CORDON_CHECKPOINT_KEY: "plan tests: a key of 32 characters or more" };
    expect((await cordon([...t.args, "--approve", "pause", "--checkpoint", file], { env })).code).toBe(3);
    const asked = await cordon(["resume", file, "--tools", PLAN_TOOLS], { env });
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain(`cordon resume of the plan in ${file} asks on a terminal`);
    expect(existsSync(file)).toBe(true);
    expect(t.ran()).toEqual(["read list_orders"]);
  });
});
