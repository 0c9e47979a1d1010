/** `cordon run <file.ts | -> --tools <module>`: one run of the code, as run_code would do it, printed. */

import { createCodeMode } from "../../codemode/code-mode.js";
import type { CodeRunResult } from "../../codemode/result.js";
import { Dispatcher } from "../../dispatch/dispatcher.js";
import { APPROVE_POLICIES } from "../../mcp/approve-policy.js";
import { Toolset } from "../../tools/toolset.js";
import { EXIT } from "../cli-error.js";
import {
  choiceOption,
  flagOption,
  integerOption,
  type ParsedCommand,
  requiredOption,
  stringOption,
} from "../command-spec.js";
import { createEnvironment } from "../environments.js";
import { loadToolsModule } from "../load-tools.js";
import { formatRun } from "../print-run.js";
import { progressOn } from "../progress.js";
import { readCode } from "../read-code.js";
import { styleFor } from "../style.js";
import { terminalApproval } from "../terminal-approval.js";

/** The largest --timeout, in ms (a day). */
export const MAX_TIMEOUT_MS = 86_400_000;

/** Runs the command; resolves with the exit code. */
export async function run(input: ParsedCommand): Promise<number> {
  const source = input.positionals[0]!;
  const toolsPath = requiredOption(input, "tools", "the module whose tools the code calls");
  const json = flagOption(input, "json");
  const policy = choiceOption(input, "approve", APPROVE_POLICIES);
  const timeoutMs = integerOption(input, "timeout", { min: 1, max: MAX_TIMEOUT_MS });
  const envName = stringOption(input, "env");
  const progress = progressOn(process.stderr);
  const errStyle = styleFor(process.stderr);

  const code = await readCode(source, process.stdin);
  progress.show(`loading tools from ${toolsPath}`);
  let tools: Toolset;
  try {
    tools = new Toolset(await loadToolsModule(toolsPath));
  } finally {
    progress.clear();
  }
  const environment = createEnvironment(envName, { oneShot: true, env: process.env });
  const approval = terminalApproval(policy, {
    stdin: process.stdin,
    stderr: process.stderr,
    style: errStyle,
    progress,
  });
  const cm = createCodeMode({
    tools,
    environment,
    dispatcher: new Dispatcher(tools, { approvalHandler: approval.handler }),
    ...(timeoutMs === undefined ? {} : { limits: { timeoutMs } }),
  });
  const interrupt = new AbortController();
  const onInterrupt = () => interrupt.abort(new Error("interrupted (Ctrl-C)"));
  process.once("SIGINT", onInterrupt);
  try {
    progress.show(`running ${source === "-" ? "the code from standard input" : source}`);
    const result = await cm.run(code, { signal: interrupt.signal });
    progress.clear();
    if (json) process.stdout.write(`${resultJson(result)}\n`);
    else process.stdout.write(formatRun(result, styleFor(process.stdout)));
    if (interrupt.signal.aborted) return EXIT.interrupted;
    return result.status === "ok" ? EXIT.ok : EXIT.codeFailed;
  } finally {
    progress.clear();
    process.off("SIGINT", onInterrupt);
    approval.close();
    await cm.close();
  }
}

/**
 * The run as JSON. Should its value not encode (code mode bounds what comes out of the sandbox, but a
 * report must never be lost to its value), the value is replaced by a note and the rest is printed.
 */
function resultJson(result: CodeRunResult): string {
  try {
    return JSON.stringify(result, null, 2);
  } catch (error) {
    const note = `(the value could not be encoded as JSON: ${error instanceof Error ? error.message : String(error)})`;
    return JSON.stringify({ ...result, value: note }, null, 2);
  }
}
