/**
 * Runs the real `cordon` executable (the built dist/src/cli/bin.js, through the same re-exec a user's
 * shell gets) as a child process.
 */

import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

export const root = resolve(import.meta.dirname, "../..");
export const CORDON_BIN = join(root, "dist/src/cli/bin.js");
export const SHOP_TOOLS = "examples/shop/tools.ts";

/** Builds dist/ when it is missing (`make test` builds before the suites run). */
export function ensureBuilt(): void {
  if (!existsSync(CORDON_BIN)) execFileSync("npm", ["run", "build"], { cwd: root, stdio: "ignore" });
}

/** What a finished `cordon` process printed, and how it ended. */
export interface CordonOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `cordon ...args` in the repository root; `input` is written to its stdin (which is then closed). */
export function cordon(
  args: readonly string[],
  options: { input?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CordonOutcome> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CORDON_BIN, ...args], {
      cwd: root,
      env: { ...process.env, NO_COLOR: "", FORCE_COLOR: "", ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`cordon ${args.join(" ")} did not finish; stderr so far: ${stderr}`));
    }, options.timeoutMs ?? 30_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? "");
  });
}

/**
 * Runs `cordon ...args` on a pseudo-terminal (util-linux `script`), typing `keys` once `waitFor` has
 * appeared in the output; resolves with everything the terminal showed.
 */
export function cordonOnTerminal(
  args: readonly string[],
  options: {
    waitFor?: string;
    keys?: string;
    /** More answers, each typed once its text appears after the previous one's. */
    answers?: { waitFor: string; keys: string }[];
    timeoutMs?: number;
    env?: NodeJS.ProcessEnv;
  } = {},
): Promise<{ code: number | null; screen: string }> {
  const command = [process.execPath, CORDON_BIN, ...args].map(shellQuote).join(" ");
  const steps = [
    ...(options.waitFor === undefined ? [] : [{ waitFor: options.waitFor, keys: options.keys ?? "" }]),
    ...(options.answers ?? []),
  ];
  return new Promise((resolvePromise, reject) => {
    const child = spawn("script", ["-qfec", command, "/dev/null"], {
      cwd: root,
      env: { ...process.env, NO_COLOR: "", FORCE_COLOR: "", TERM: "xterm", ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let screen = "";
    let searchFrom = 0;
    child.stdout.on("data", (chunk: Buffer) => {
      screen += chunk.toString("utf8");
      const step = steps[0];
      if (step === undefined) return;
      const at = screen.indexOf(step.waitFor, searchFrom);
      if (at === -1) return;
      steps.shift();
      searchFrom = at + step.waitFor.length;
      child.stdin.write(step.keys);
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`cordon ${args.join(" ")} on a terminal did not finish; screen: ${screen}`));
    }, options.timeoutMs ?? 30_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolvePromise({ code, screen });
    });
  });
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
