// Running the documentation's commands from a test: asynchronously, so that a long npm or a minute-long
// block does not block the vitest worker (a blocked worker fails vitest's own messages to it, "Timeout
// calling onTaskUpdate"), and with no standard input, as a user's terminal command that reads none: a
// bash whose standard input is a socket (what Node's pipes are) and whose SHLVL is unset thinks sshd
// started it and reads /etc/bash.bashrc, which then complains on standard error under `set -u`.
import { spawn } from "node:child_process";

/** What a finished process printed, and how it ended (`status` null when a signal or the timeout ended it). */
export interface Finished {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `file` with `args` to its end, or until `timeout` ms have passed (it is then killed). */
export function runToEnd(
  file: string,
  args: readonly string[],
  options: { cwd: string; timeout: number; env?: NodeJS.ProcessEnv },
): Promise<Finished> {
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: options.timeout,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", (error) => resolve({ status: null, stdout, stderr: `${stderr}${error.message}` }));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}
