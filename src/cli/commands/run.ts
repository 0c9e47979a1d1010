/**
 * `cordon run <file.ts | -> --tools <module>`: one run of the code, as run_code would do it, printed.
 * With `--approve pause --checkpoint <file>`, a call that needs a person ends the run instead: its
 * checkpoint goes to the file, the waiting calls are printed, and the exit code is 3.
 */

import { randomBytes } from "node:crypto";
import { UsageError } from "../../../common/errors.js";
import type { CodeMode } from "../../codemode/code-mode.js";
import { resolveLimits, sandboxLimitsOf } from "../../codemode/limits.js";
import type { CodeRunResult } from "../../codemode/result.js";
import type { ApprovePolicy } from "../../mcp/approve-policy.js";
import type { Toolset } from "../../tools/toolset.js";
import { checkCheckpointTarget } from "../checkpoint-file.js";
import { loadCheckpointKey } from "../checkpoint-key.js";
import { EXIT } from "../cli-error.js";
import {
  choiceOption,
  flagOption,
  integerOption,
  type ParsedCommand,
  requiredOption,
  stringOption,
} from "../command-spec.js";
import type { DecideIo } from "../decide-pending.js";
import { createEnvironment } from "../env-choices.js";
import { observedTypesSaver, readObservedTypesFile } from "../observed-types-file.js";
import { decidePlan, formatPlan } from "../plan-prompt.js";
import { progressOn } from "../progress.js";
import { readCode } from "../read-code.js";
import { RUN_APPROVE_CHOICES } from "../run-approve.js";
import { styleFor } from "../style.js";
import type { terminalApproval } from "../terminal-approval.js";
import { TYPECHECK_CHOICES } from "../typecheck-choice.js";

/** The largest --timeout, in ms (a day). */
export const MAX_TIMEOUT_MS = 86_400_000;

/** Runs the command; resolves with the exit code. */
export async function run(input: ParsedCommand): Promise<number> {
  const source = input.positionals[0]!;
  const toolsPath = requiredOption(input, "tools", "the module whose tools the code calls");
  const json = flagOption(input, "json");
  const choice = choiceOption(input, "approve", RUN_APPROVE_CHOICES);
  const planning = flagOption(input, "plan");
  const checkpointFile = stringOption(input, "checkpoint") || undefined;
  const timeoutMs = integerOption(input, "timeout", { min: 1, max: MAX_TIMEOUT_MS });
  const envName = stringOption(input, "env");
  const typecheck = choiceOption(input, "typecheck", TYPECHECK_CHOICES);
  const progress = progressOn(process.stderr);
  const errStyle = styleFor(process.stderr);

  if (choice === "pause" && checkpointFile === undefined) {
    throw new UsageError(
      "--approve pause needs --checkpoint <file>: the file the paused run is saved to, for cordon resume. Add --checkpoint run.ckpt, for example.",
    );
  }
  if (choice !== "pause" && checkpointFile !== undefined) {
    throw new UsageError(
      "--checkpoint goes with --approve pause: add --approve pause to end the run at calls that need a person and save it there, or leave --checkpoint out.",
    );
  }
  const pausing = choice === "pause";
  if (checkpointFile !== undefined) {
    await checkCheckpointTarget(checkpointFile, {
      code: source === "-" ? undefined : source,
      "--tools": toolsPath,
    });
  }
  // A plan carried out in this process has a key of its own; one saved for cordon resume, the machine's.
  const key = pausing
    ? (await loadCheckpointKey(process.env)).key
    : planning
      ? randomBytes(32).toString("hex")
      : undefined;
  const observedFile = stringOption(input, "observed-types") || undefined;
  const observed =
    observedFile === undefined
      ? undefined
      : await readObservedTypesFile(observedFile, "empty", {
          code: source === "-" ? undefined : source,
          "--tools": toolsPath,
          "--checkpoint": checkpointFile,
        });

  const code = await readCode(source, process.stdin);
  const limits = timeoutMs === undefined ? {} : { timeoutMs };
  const environment = await createEnvironment(envName, { oneShot: true, env: process.env });
  // The sandbox (a process, in the default environment) starts while the tools module loads.
  environment.prepare?.(sandboxLimitsOf(resolveLimits(limits)));
  // What loads the tools and runs the code is imported now, while the sandbox process starts.
  const [codeMode, dispatch, toolset, loadTools, report, terminal] = await Promise.all([
    import("../../codemode/code-mode.js"),
    import("../../dispatch/dispatcher.js"),
    import("../../tools/toolset.js"),
    import("../load-tools.js"),
    import("../report-run.js"),
    import("../terminal-approval.js"),
  ]);
  const { createCodeMode } = codeMode;
  const { Dispatcher } = dispatch;
  const { Toolset } = toolset;
  const { loadToolsShowingProgress } = loadTools;
  const { reportRun } = report;
  const { terminalApproval } = terminal;
  let tools: Toolset;
  let approval: ReturnType<typeof terminalApproval> | undefined;
  let cm: CodeMode;
  try {
    tools = new Toolset(await loadToolsShowingProgress(toolsPath, progress));
    // Pausing: no handler decides, so every gated call (and every question) pauses the run.
    approval = pausing
      ? undefined
      : terminalApproval(choice, { stdin: process.stdin, stderr: process.stderr, style: errStyle, progress });
    cm = createCodeMode({
      environment,
      dispatcher: new Dispatcher(tools, approval ? { approvalHandler: approval.handler } : {}),
      limits,
      ...(key === undefined ? {} : { pause: { key } }),
      ...(pausing ? { approval: "pause" as const } : {}),
      typecheck,
      ...(observed === undefined ? {} : { observe: { store: observed.store } }),
    });
  } catch (error) {
    approval?.close();
    await environment.close();
    throw error;
  }
  // The types learnt in this run go back to the file, whatever the run's outcome.
  const saver =
    observedFile === undefined || observed === undefined
      ? undefined
      : observedTypesSaver(observedFile, observed, (line) =>
          process.stderr.write(`${errStyle.yellow("cordon run:")} ${line}\n`),
        );
  const interrupt = new AbortController();
  const onInterrupt = () => interrupt.abort(new Error("interrupted (Ctrl-C)"));
  process.once("SIGINT", onInterrupt);
  try {
    progress.show(
      `${planning ? "planning" : "running"} ${source === "-" ? "the code from standard input" : source}`,
    );
    const approvalKeysOf = (name: string) => tools.get(name)?.options.approvalKeys;
    let result = planning
      ? await cm.plan(code, { signal: interrupt.signal })
      : await cm.run(code, { signal: interrupt.signal });
    progress.clear();
    // With --approve pause the plan is saved for cordon resume to decide and carry out, later.
    if (!pausing && (result.status === "planned" || (planning && result.status === "paused"))) {
      const carried = await carryOut(cm, result, choice as ApprovePolicy, {
        stdin: process.stdin,
        stderr: process.stderr,
        style: errStyle,
        approvalKeysOf,
        signal: interrupt.signal,
        json,
      });
      if (typeof carried === "number") return carried;
      result = carried;
    }
    return await reportRun(result, {
      json,
      plan: planning && pausing,
      interrupted: interrupt.signal.aborted,
      approvalKeysOf,
      ...(checkpointFile === undefined
        ? {}
        : {
            resume: {
              checkpointFile,
              toolsPath,
              ...(envName === undefined ? {} : { envName }),
              ...(timeoutMs === undefined ? {} : { timeoutMs }),
            },
          }),
    });
  } finally {
    progress.clear();
    process.off("SIGINT", onInterrupt);
    approval?.close();
    await saver?.save();
    await cm.close();
  }
}

/**
 * Shows a plan and decides it once (see `decidePlan`): the run that carries it out, or the exit code
 * when it is not carried out (declined: 0, as a dry run; interrupted: 130).
 */
async function carryOut(
  cm: CodeMode,
  plan: CodeRunResult,
  policy: ApprovePolicy,
  io: DecideIo & { signal: AbortSignal; json: boolean },
): Promise<CodeRunResult | number> {
  // The plan goes where the run's report goes; with --json, the report is the run that carried it out.
  const shown = formatPlan(plan, {
    style: styleFor(io.json ? process.stderr : process.stdout),
    approvalKeysOf: io.approvalKeysOf,
  });
  (io.json ? process.stderr : process.stdout).write(shown);
  const said = await decidePlan(plan, policy, io);
  if (said === "interrupted") return EXIT.interrupted;
  if (said === "declined") {
    io.stderr.write(`${io.style.yellow("not carried out:")} only the plan's reads ran; no effect did.\n`);
    return EXIT.ok;
  }
  // Anything the code asks for beyond what was approved is asked about as a run asks (its --approve).
  return cm.resume(plan.checkpoint!, { ...said, approval: "wait", signal: io.signal });
}
