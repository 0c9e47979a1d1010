/**
 * `cordon run --approve pause --checkpoint <file>` and `cordon resume <file>`, as processes: a run that
 * pauses at a gated call exits 3 with its checkpoint in a 0600 file, a resume in another process goes on
 * with the decision and every effect (a line appended to a real file) happens exactly once, a second
 * pause rewrites the file, and a checkpoint that was tampered with, sealed with another key or made for
 * other tools is refused before anything runs. The terminal prompts are in pause-terminal.test.ts.
 */

import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cordon, ensureBuilt } from "./helpers.js";

const PAUSE_TOOLS = "test/cli/fixtures/pause-tools.ts";
const KEY = "a test key for cordon checkpoints, 32+ bytes";

/** One gated call between two free ones; the code reports how the gated call ended. */
const AROUND_A_GATED_CALL = [
  'await tools.append({ line: "before" });',
  "let sent;",
  'try { sent = await tools.send({ to: "ann", body: "hello" }); } catch (e) { sent = "caught: " + e.kind; }',
  'await tools.append({ line: "after" });',
  "return sent;",
].join("\n");

/** Two gated calls one after the other: the run pauses at each. */
const TWO_GATED_CALLS = [
  'await tools.append({ line: "before" });',
  'const first = await tools.send({ to: "ann", body: "one" });',
  'await tools.append({ line: "between" });',
  'const second = await tools.send({ to: "bo", body: "two" });',
  "return [first, second];",
].join("\n");

let scratch = "";
let count = 0;

beforeAll(() => {
  ensureBuilt();
  scratch = mkdtempSync(join(tmpdir(), "cordon-pause-"));
});

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** A folder of one test's own: its code, its checkpoint, its effects file and its config folder. */
function workspace(code: string) {
  const dir = mkdtempSync(join(scratch, `t${++count}-`));
  const codeFile = join(dir, "task.ts");
  writeFileSync(codeFile, code);
  const effects = join(dir, "effects");
  const env = {
    CORDON_TEST_EFFECTS: effects,
    CORDON_CHECKPOINT_KEY: KEY,
    XDG_CONFIG_HOME: join(dir, "config"),
  };
  return {
    dir,
    codeFile,
    checkpoint: join(dir, "run.ckpt"),
    env,
    /** The effects so far, one line each. */
    effects: (): string[] =>
      existsSync(effects) ? readFileSync(effects, "utf8").split("\n").filter(Boolean) : [],
    run: (more: string[] = [], extraEnv: NodeJS.ProcessEnv = {}) =>
      cordon(
        [
          "run",
          codeFile,
          "--tools",
          PAUSE_TOOLS,
          "--approve",
          "pause",
          "--checkpoint",
          join(dir, "run.ckpt"),
          ...more,
        ],
        { env: { ...env, ...extraEnv } },
      ),
    resume: (more: string[] = [], extraEnv: NodeJS.ProcessEnv = {}) =>
      cordon(["resume", join(dir, "run.ckpt"), "--tools", PAUSE_TOOLS, ...more], {
        env: { ...env, ...extraEnv },
      }),
  };
}

describe("cordon run --approve pause", () => {
  it("a gated call ends the run: exit 3, the checkpoint in a 0600 file, the pending call and the resume command printed", async () => {
    const w = workspace(AROUND_A_GATED_CALL);
    const { code, stdout } = await w.run();
    expect(code).toBe(3);
    expect(statSync(w.checkpoint).mode & 0o777).toBe(0o600);
    expect(readFileSync(w.checkpoint, "utf8")).toMatch(/^cordon-ckpt\./);
    expect(w.effects()).toEqual(["before"]);
    expect(stdout).toMatch(/paused\s+send\s+\d+ ms/);
    expect(stdout).toMatch(
      /waiting for a person \(1\)\n {2}\S+\.\d+ {2}approval {2}send\n {6}to: "ann"\n {6}body: "hello"\n/,
    );
    expect(stdout).toContain(`cordon resume ${w.checkpoint} --tools ${PAUSE_TOOLS}\n`);
    expect(stdout).toMatch(/\npaused in \d+ ms\n/);
  });

  it("--json prints the result with its pending calls and the checkpoint's file, not the checkpoint text", async () => {
    const w = workspace(AROUND_A_GATED_CALL);
    const { code, stdout, stderr } = await w.run(["--json"]);
    expect(code).toBe(3);
    const result = JSON.parse(stdout);
    expect(result.status).toBe("paused");
    expect(result.pending).toEqual([
      {
        id: expect.stringMatching(/\.\d+$/),
        tool: "send",
        args: { to: "ann", body: "hello" },
        kind: "approval",
      },
    ]);
    expect(result.checkpointFile).toBe(w.checkpoint);
    expect(typeof result.checkpointId).toBe("string");
    expect(result).not.toHaveProperty("checkpoint");
    expect(stderr).toContain(`paused: go on with cordon resume ${w.checkpoint} --tools ${PAUSE_TOOLS}`);
  });

  it("the --timeout the run was given is part of the resume command it prints", async () => {
    const w = workspace(AROUND_A_GATED_CALL);
    const { code, stdout } = await w.run(["--timeout", "20000", "--env", "inprocess"]);
    expect(code).toBe(3);
    expect(stdout).toContain(
      `cordon resume ${w.checkpoint} --tools ${PAUSE_TOOLS} --env inprocess --timeout 20000`,
    );
  });

  it("--approve pause without --checkpoint is a usage error that says to add --checkpoint", async () => {
    const w = workspace(AROUND_A_GATED_CALL);
    const { code, stderr } = await cordon(["run", w.codeFile, "--tools", PAUSE_TOOLS, "--approve", "pause"], {
      env: w.env,
    });
    expect(code).toBe(2);
    expect(stderr).toContain("--approve pause needs --checkpoint <file>");
    expect(w.effects()).toEqual([]);
  });

  it("--checkpoint without --approve pause is a usage error that says to add --approve pause", async () => {
    const w = workspace(AROUND_A_GATED_CALL);
    const { code, stderr } = await cordon(
      ["run", w.codeFile, "--tools", PAUSE_TOOLS, "--checkpoint", w.checkpoint],
      { env: w.env },
    );
    expect(code).toBe(2);
    expect(stderr).toContain("--checkpoint goes with --approve pause: add --approve pause");
    expect(w.effects()).toEqual([]);
  });

  it("a --checkpoint that would overwrite the code file, or lies in a missing folder, is refused before anything runs", async () => {
    const w = workspace(AROUND_A_GATED_CALL);
    const over = await cordon(
      ["run", w.codeFile, "--tools", PAUSE_TOOLS, "--approve", "pause", "--checkpoint", w.codeFile],
      { env: w.env },
    );
    expect(over.code).toBe(2);
    expect(over.stderr).toContain("is also the code file, which the checkpoint would overwrite");
    const missing = join(w.dir, "no-such-folder", "run.ckpt");
    const nowhere = await cordon(
      ["run", w.codeFile, "--tools", PAUSE_TOOLS, "--approve", "pause", "--checkpoint", missing],
      { env: w.env },
    );
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toContain("does not exist. Create it");
    expect(w.effects()).toEqual([]);
  });

  it("--approve still accepts only its choices, and names pause among them", async () => {
    const w = workspace(AROUND_A_GATED_CALL);
    const { code, stderr } = await cordon(["run", w.codeFile, "--tools", PAUSE_TOOLS, "--approve", "later"]);
    expect(code).toBe(2);
    expect(stderr).toContain("--approve later: expected one of ask, all, none, pause.");
  });
});

describe("the checkpoint key", () => {
  it("without CORDON_CHECKPOINT_KEY, a key file is created with 0600 (its folder 0700) and reused afterwards", async () => {
    const w = workspace(AROUND_A_GATED_CALL);
    const unset = { CORDON_CHECKPOINT_KEY: undefined };
    const keyFile = join(w.env.XDG_CONFIG_HOME, "cordon", "checkpoint.key");
    expect(existsSync(keyFile)).toBe(false);
    expect((await w.run([], unset)).code).toBe(3);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(w.env.XDG_CONFIG_HOME, "cordon")).mode & 0o777).toBe(0o700);
    const key = readFileSync(keyFile, "utf8");
    expect(key).toMatch(/^[0-9a-f]{64}\n$/);
    // The same key opens it in another process, and is not replaced.
    const resumed = await w.resume(["--approve", "all"], unset);
    expect(resumed.code).toBe(0);
    expect(readFileSync(keyFile, "utf8")).toBe(key);
    // On another machine, CORDON_CHECKPOINT_KEY set to the file's content is the same key.
    expect((await w.run([], unset)).code).toBe(3);
    const elsewhere = await w.resume(["--approve", "all"], {
      XDG_CONFIG_HOME: join(w.dir, "another-machine"),
      CORDON_CHECKPOINT_KEY: key.trim(),
    });
    expect(elsewhere.code).toBe(0);
  });

  it("a key file others can read is refused, saying to chmod it", async () => {
    const w = workspace(AROUND_A_GATED_CALL);
    const unset = { CORDON_CHECKPOINT_KEY: undefined };
    expect((await w.run([], unset)).code).toBe(3);
    const keyFile = join(w.env.XDG_CONFIG_HOME, "cordon", "checkpoint.key");
    chmodSync(keyFile, 0o644);
    const { code, stderr } = await w.resume(["--approve", "all"], unset);
    expect(code).toBe(2);
    expect(stderr).toContain(`Run \`chmod 600 ${keyFile}\``);
    expect(w.effects()).toEqual(["before"]);
  });

  it("a key file that is a symbolic link (to a key someone else chose) is refused, saying what to do", async () => {
    const w = workspace(AROUND_A_GATED_CALL);
    const folder = join(w.env.XDG_CONFIG_HOME, "cordon");
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const planted = join(w.dir, "planted.key");
    writeFileSync(planted, "a key the attacker knows, 32 bytes\n", { mode: 0o600 });
    symlinkSync(planted, join(folder, "checkpoint.key"));
    const { code, stderr } = await w.run([], { CORDON_CHECKPOINT_KEY: undefined });
    expect(code).toBe(2);
    expect(stderr).toContain(`the checkpoint key file ${join(folder, "checkpoint.key")} is a symbolic link`);
    expect(stderr).toContain("set CORDON_CHECKPOINT_KEY");
    expect(existsSync(w.checkpoint)).toBe(false);
    expect(w.effects()).toEqual([]);
  });

  it("a key folder others can write to (0777) is refused, before a key is made or read, saying to chmod it", async () => {
    const w = workspace(AROUND_A_GATED_CALL);
    const folder = join(w.env.XDG_CONFIG_HOME, "cordon");
    mkdirSync(folder, { recursive: true });
    chmodSync(folder, 0o777);
    const unset = { CORDON_CHECKPOINT_KEY: undefined };
    const made = await w.run([], unset);
    expect(made.code).toBe(2);
    expect(made.stderr).toContain(
      `${folder}, the folder of the checkpoint key file, can be written by other users (mode 777)`,
    );
    expect(made.stderr).toContain(`Run \`chmod 700 ${folder}\``);
    expect(existsSync(join(folder, "checkpoint.key"))).toBe(false);
    // A key file made while the folder was private is refused too once the folder is opened up.
    chmodSync(folder, 0o700);
    expect((await w.run([], unset)).code).toBe(3);
    chmodSync(folder, 0o777);
    const resumed = await w.resume(["--approve", "all"], unset);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain("can be written by other users (mode 777)");
    expect(w.effects()).toEqual(["before"]);
  });

  it("a CORDON_CHECKPOINT_KEY shorter than 16 bytes is a usage error that says what to set", async () => {
    const w = workspace(AROUND_A_GATED_CALL);
    const { code, stderr } = await w.run([], { CORDON_CHECKPOINT_KEY: "too short" });
    expect(code).toBe(2);
    expect(stderr).toContain("CORDON_CHECKPOINT_KEY is 9 bytes long; a checkpoint key must be at least 16");
    expect(existsSync(w.checkpoint)).toBe(false);
    expect(w.effects()).toEqual([]);
  });
});

describe("cordon resume", () => {
  it("--approve all: the run completes with exit 0, and every effect happened exactly once", async () => {
    const w = workspace(AROUND_A_GATED_CALL);
    expect((await w.run()).code).toBe(3);
    const { code, stdout, stderr } = await w.resume(["--approve", "all"]);
    expect(code).toBe(0);
    expect(stdout).toContain('"sent to ann"');
    expect(stdout).toMatch(/\nok in \d+ ms\n$/);
    expect(stderr).toMatch(/approved send \(\S+\.\d+, --approve all\)/);
    expect(w.effects()).toEqual(["before", "sent to ann: hello", "after"]);
    // Used up: the file is gone, and its claimed copy holds a note of that, not the checkpoint.
    expect(existsSync(w.checkpoint)).toBe(false);
    expect(readFileSync(`${w.checkpoint}.used`, "utf8")).toMatch(
      /^cordon: this checkpoint was resumed at \S+Z/,
    );
    expect(statSync(`${w.checkpoint}.used`).mode & 0o777).toBe(0o600);
  });

  it("a checkpoint resumes once: after a run that ended ok, resuming the file again says it was resumed already, naming the file", async () => {
    const w = workspace(AROUND_A_GATED_CALL);
    expect((await w.run()).code).toBe(3);
    const checkpoint = readFileSync(w.checkpoint, "utf8");
    const done = await w.resume(["--approve", "all"]);
    expect(done.code).toBe(0);
    expect(done.stderr).toContain(`${w.checkpoint} was used: a checkpoint resumes once.`);
    // The note keeps nothing of the checkpoint: no code, arguments or results stay behind.
    const note = readFileSync(`${w.checkpoint}.used`, "utf8");
    expect(note.length).toBeLessThan(400);
    expect(checkpoint.length).toBeGreaterThan(400);
    const twice = await w.resume(["--approve", "all"]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(
      new RegExp(
        `${w.checkpoint.replace(/[.\\/]/g, "\\$&")} was resumed already, at \\S+Z, and that run ended ok`,
      ),
    );
    expect(twice.stderr).toContain("Run the code again with cordon run");
    expect(twice.stderr).not.toContain("no such file");
    expect(w.effects().filter((line) => line.startsWith("sent to"))).toEqual(["sent to ann: hello"]);
  });

  it("--approve none: the code sees a denial, and the gated call never takes effect", async () => {
    const w = workspace(AROUND_A_GATED_CALL);
    expect((await w.run()).code).toBe(3);
    const { code, stdout } = await w.resume(["--approve", "none", "--json"]);
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result.value).toBe("caught: denied");
    expect(result.calls.map((c: { tool: string; status: string }) => `${c.tool}:${c.status}`)).toEqual([
      "append:ok",
      "send:denied",
      "append:ok",
    ]);
    expect(w.effects()).toEqual(["before", "after"]);
  });

  it("a second pause rewrites the checkpoint file and exits 3 again; resuming that one completes the run", async () => {
    const w = workspace(TWO_GATED_CALLS);
    expect((await w.run()).code).toBe(3);
    const first = readFileSync(w.checkpoint, "utf8");
    const again = await w.resume(["--approve", "all"]);
    expect(again.code).toBe(3);
    const second = readFileSync(w.checkpoint, "utf8");
    expect(second).not.toBe(first);
    expect(statSync(w.checkpoint).mode & 0o777).toBe(0o600);
    expect(existsSync(`${w.checkpoint}.used`)).toBe(false);
    expect(again.stdout).toMatch(/waiting for a person \(1\)\n {2}\S+ {2}approval {2}send\n {6}to: "bo"/);
    expect(w.effects()).toEqual(["before", "sent to ann: one", "between"]);
    const done = await w.resume(["--approve", "all", "--json"]);
    expect(done.code).toBe(0);
    expect(JSON.parse(done.stdout).value).toEqual(["sent to ann", "sent to bo"]);
    expect(w.effects()).toEqual(["before", "sent to ann: one", "between", "sent to bo: two"]);
  });

  it("a tampered checkpoint is refused with exit 1 and the refusal's message, and nothing runs", async () => {
    const w = workspace(AROUND_A_GATED_CALL);
    expect((await w.run()).code).toBe(3);
    const parts = readFileSync(w.checkpoint, "utf8").split(".");
    const body = parts[3]!;
    const at = Math.floor(body.length / 2);
    parts[3] = `${body.slice(0, at)}${body[at] === "A" ? "B" : "A"}${body.slice(at + 1)}`;
    writeFileSync(w.checkpoint, parts.join("."));
    const { code, stderr } = await w.resume(["--approve", "all"]);
    expect(code).toBe(1);
    expect(stderr).toContain("This checkpoint was altered since it was made: it cannot be trusted.");
    expect(stderr).toContain("Nothing ran.");
    expect(w.effects()).toEqual(["before"]);
    // Refused before anything: the file is left where it was.
    expect(existsSync(w.checkpoint)).toBe(true);
  });

  it("a checkpoint sealed with another key is refused, saying to set CORDON_CHECKPOINT_KEY", async () => {
    const w = workspace(AROUND_A_GATED_CALL);
    expect((await w.run()).code).toBe(3);
    const { code, stderr } = await w.resume(["--approve", "all"], {
      CORDON_CHECKPOINT_KEY: "another key of at least sixteen bytes",
    });
    expect(code).toBe(1);
    expect(stderr).toContain("made with another checkpoint key");
    expect(stderr).toContain("set CORDON_CHECKPOINT_KEY to the key of the machine that paused it");
    expect(w.effects()).toEqual(["before"]);
  });

  it("another tools module or another --timeout than the run's is refused before anyone is asked", async () => {
    const w = workspace(AROUND_A_GATED_CALL);
    expect((await w.run()).code).toBe(3);
    const tools = await cordon(["resume", w.checkpoint, "--tools", "test/cli/fixtures/tools.ts"], {
      env: w.env,
    });
    expect(tools.code).toBe(1);
    expect(tools.stderr).toContain("made for other tools");
    expect(tools.stderr).toContain("Give the same --tools module the run paused with");
    // Refused before --approve ask would have found no terminal to ask on.
    expect(tools.stderr).not.toContain("nobody can be asked");
    const limits = await w.resume(["--approve", "all", "--timeout", "1234"]);
    expect(limits.code).toBe(1);
    expect(limits.stderr).toContain("Give the same --timeout the run paused with");
    expect(w.effects()).toEqual(["before"]);
  });

  it("--approve ask away from a terminal decides nothing, says how to go on, and leaves the checkpoint as it was", async () => {
    const w = workspace(AROUND_A_GATED_CALL);
    expect((await w.run()).code).toBe(3);
    const before = readFileSync(w.checkpoint, "utf8");
    const { code, stderr } = await w.resume();
    expect(code).toBe(2);
    expect(stderr).toMatch(/the run waits for a person \(\S+\.\d+ \(approval of send\)\)/);
    expect(stderr).toContain("decide them all with --approve all or --approve none");
    expect(readFileSync(w.checkpoint, "utf8")).toBe(before);
    expect(w.effects()).toEqual(["before"]);
  });

  it("a checkpoint resumes once: after a run that failed it is kept as <file>.used, and resuming the file again is refused", async () => {
    const w = workspace(
      `${AROUND_A_GATED_CALL.replace("return sent;", 'throw new Error("after " + sent);')}`,
    );
    expect((await w.run()).code).toBe(3);
    const failed = await w.resume(["--approve", "all"]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain("after sent to ann");
    expect(failed.stderr).toContain(`it is kept as ${w.checkpoint}.used`);
    expect(existsSync(`${w.checkpoint}.used`)).toBe(true);
    const twice = await w.resume(["--approve", "all"]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain(`${w.checkpoint} was resumed already`);
    expect(w.effects().filter((line) => line.startsWith("sent to"))).toEqual(["sent to ann: hello"]);
  });

  it("a question away from a terminal is not answered for the person, even with --approve all: exit 2, the file as it was", async () => {
    const w = workspace('return await tools.ask_human({ question: "Go on?" });');
    expect((await w.run()).code).toBe(3);
    const before = readFileSync(w.checkpoint, "utf8");
    const { code, stderr } = await w.resume(["--approve", "all"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/\(\S+\.1 \(question of ask_human\)\)/);
    expect(stderr).toContain("A question is answered on a terminal: run cordon resume in a terminal.");
    expect(readFileSync(w.checkpoint, "utf8")).toBe(before);
  });

  it("a missing checkpoint file is a usage error that says which file to give", async () => {
    const w = workspace(AROUND_A_GATED_CALL);
    const { code, stderr } = await w.resume(["--approve", "all"]);
    expect(code).toBe(2);
    expect(stderr).toContain(`cannot read the checkpoint ${w.checkpoint}: no such file.`);
    expect(stderr).toContain("Give the file that `cordon run --approve pause --checkpoint <file>` wrote.");
  });

  it("without --tools, or with an --approve it does not know, is a usage error", async () => {
    const w = workspace(AROUND_A_GATED_CALL);
    const noTools = await cordon(["resume", w.checkpoint]);
    expect(noTools.code).toBe(2);
    expect(noTools.stderr).toContain("--tools is required");
    const pause = await w.resume(["--approve", "pause"]);
    expect(pause.code).toBe(2);
    expect(pause.stderr).toContain("--approve pause: expected one of ask, all, none.");
  });
});

describe("the help", () => {
  it("cordon --help lists resume, and cordon resume --help says where the key comes from and the exit codes", async () => {
    const global = await cordon(["--help"]);
    expect(global.stdout).toMatch(/\n {2}resume\s+Go on with a run that paused/);
    const { code, stdout } = await cordon(["resume", "--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("cordon resume <run.ckpt> --tools <module>");
    expect(stdout).toContain("CORDON_CHECKPOINT_KEY");
    expect(stdout).toContain("checkpoint.key");
    expect(stdout).toMatch(/3 when the run\s+paused/);
    const run = await cordon(["run", "--help"]);
    expect(run.stdout).toContain("--approve ask|all|none|pause");
    expect(run.stdout).toContain("--checkpoint <file>");
    expect(run.stdout).toMatch(/130 when\s+interrupted/);
  });
});
