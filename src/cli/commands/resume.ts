/**
 * `cordon resume <run.ckpt> --tools <module>`: goes on with a run `cordon run --approve pause` paused.
 * The checkpoint is checked first (its seal and key, its expiry, the tools and limits it was made with:
 * `CodeMode.inspect`); then each call that waits is decided (`--approve ask|all|none`; questions are
 * asked on the terminal), or a saved plan (`cordon run --plan --approve pause`) is shown and decided
 * once; then the run goes on by replay and is printed as `cordon run` prints it.
 * Should it pause again, the new checkpoint replaces the file and the exit code is 3 again. A refused
 * checkpoint exits 1, and nothing runs. The file is claimed just before the run goes on (see
 * checkpoint-file.ts): a checkpoint resumes once, and resuming the file again says it was resumed already.
 */

import { messageOf } from "../../../common/errors.js";
import { createCodeMode } from "../../codemode/code-mode.js";
import { CheckpointRefused } from "../../codemode/pause/checkpoint.js";
import type { CheckpointSummary } from "../../codemode/pause/pause.js";
import type { CodeRunResult } from "../../codemode/result.js";
import { APPROVE_POLICIES, type ApprovePolicy } from "../../mcp/approve-policy.js";
import { Toolset } from "../../tools/toolset.js";
import {
  claimCheckpointFile,
  noteCheckpointResumed,
  readCheckpointFile,
  removeUsedCheckpoint,
  usedCheckpointPath,
} from "../checkpoint-file.js";
import { CHECKPOINT_KEY_VARIABLE, loadCheckpointKey } from "../checkpoint-key.js";
import { EXIT } from "../cli-error.js";
import {
  choiceOption,
  flagOption,
  integerOption,
  type ParsedCommand,
  requiredOption,
  stringOption,
} from "../command-spec.js";
import { type DecideIo, decidePending, type PeopleSaid } from "../decide-pending.js";
import { createEnvironment } from "../env-choices.js";
import { loadToolsShowingProgress } from "../load-tools.js";
import { observedTypesSaver, readObservedTypesFile } from "../observed-types-file.js";
import { decidePlan, formatPlan } from "../plan-prompt.js";
import { progressOn } from "../progress.js";
import { reportRun } from "../report-run.js";
import { type Style, styleFor } from "../style.js";
import { MAX_TIMEOUT_MS } from "./run.js";

/** Runs the command; resolves with the exit code. */
export async function run(input: ParsedCommand): Promise<number> {
  const checkpointFile = input.positionals[0]!;
  const toolsPath = requiredOption(input, "tools", "the module the paused run's tools came from");
  const json = flagOption(input, "json");
  const policy = choiceOption(input, "approve", APPROVE_POLICIES);
  const timeoutMs = integerOption(input, "timeout", { min: 1, max: MAX_TIMEOUT_MS });
  const envName = stringOption(input, "env");
  const progress = progressOn(process.stderr);
  const errStyle = styleFor(process.stderr);

  const text = await readCheckpointFile(checkpointFile);
  const observedFile = stringOption(input, "observed-types") || undefined;
  const observed =
    observedFile === undefined
      ? undefined
      : await readObservedTypesFile(observedFile, "empty", {
          "the checkpoint": checkpointFile,
          "--tools": toolsPath,
        });
  const { key } = await loadCheckpointKey(process.env);
  const tools = new Toolset(await loadToolsShowingProgress(toolsPath, progress));
  const approvalKeysOf = (name: string) => tools.get(name)?.options.approvalKeys;
  const environment = await createEnvironment(envName, { oneShot: true, env: process.env });
  let claimProblem: string | undefined;
  let claimed = false;
  const cm = createCodeMode({
    tools,
    environment,
    approval: "pause",
    pause: {
      key,
      // Last before the run goes on, after every check: the file is claimed, so that it resumes once.
      onCheckpointUsed: async () => {
        try {
          await claimCheckpointFile(checkpointFile, text);
          claimed = true;
        } catch (error) {
          claimProblem = messageOf(error);
          throw error;
        }
      },
    },
    ...(timeoutMs === undefined ? {} : { limits: { timeoutMs } }),
    ...(observed === undefined ? {} : { observe: { store: observed.store } }),
  });
  // The types learnt by the resumed run go back to the file, whatever its outcome.
  const saver =
    observedFile === undefined || observed === undefined
      ? undefined
      : observedTypesSaver(observedFile, observed, (line) =>
          process.stderr.write(`${errStyle.yellow("cordon resume:")} ${line}\n`),
        );
  try {
    let summary: CheckpointSummary;
    try {
      // The same checks as the resume (seal, key, expiry, tools, limits), before anyone is asked.
      summary = cm.inspect(text);
    } catch (error) {
      if (error instanceof CheckpointRefused) return refused(error, checkpointFile, errStyle);
      throw error;
    }
    const io = { stdin: process.stdin, stderr: process.stderr, style: errStyle, approvalKeysOf };
    const said =
      summary.effects === undefined
        ? await decidePending(summary.pending, policy, io)
        : await decideSavedPlan(summary, policy, { ...io, json, checkpointFile });
    if (said === "declined") {
      process.stderr.write(
        `${errStyle.yellow("not carried out:")} no effect of the plan ran, and ${checkpointFile} is kept: resume it again to decide.\n`,
      );
      return EXIT.ok;
    }
    if (said === "interrupted") {
      process.stderr.write(`\ninterrupted: nothing was resumed, and ${checkpointFile} is as it was.\n`);
      return EXIT.interrupted;
    }
    const interrupt = new AbortController();
    const onInterrupt = () => interrupt.abort(new Error("interrupted (Ctrl-C)"));
    process.once("SIGINT", onInterrupt);
    let result: CodeRunResult;
    try {
      progress.show(`resuming ${checkpointFile}`);
      result = await cm.resume(text, { ...said, signal: interrupt.signal });
    } catch (error) {
      if (!(error instanceof CheckpointRefused)) throw error;
      if (claimProblem !== undefined) {
        process.stderr.write(`${errStyle.red("cordon resume:")} ${claimProblem} Nothing ran.\n`);
        return EXIT.codeFailed;
      }
      return refused(error, checkpointFile, errStyle);
    } finally {
      progress.clear();
      process.off("SIGINT", onInterrupt);
    }
    const code = await reportRun(result, {
      json,
      interrupted: interrupt.signal.aborted,
      approvalKeysOf,
      resume: {
        checkpointFile,
        toolsPath,
        ...(envName === undefined ? {} : { envName }),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      },
    });
    if (code === EXIT.paused) {
      // Replaced by the new checkpoint the run paused with.
      await removeUsedCheckpoint(checkpointFile);
      claimed = false;
    } else if (code === EXIT.ok) {
      // Done with: a note of it stays, so that resuming the file again says it was resumed already.
      await noteCheckpointResumed(checkpointFile, new Date());
      claimed = false;
      process.stderr.write(
        `${errStyle.dim(`${checkpointFile} was used: a checkpoint resumes once. ${usedCheckpointPath(checkpointFile)} keeps a note of it, and nothing of the checkpoint.`)}\n`,
      );
    }
    return code;
  } finally {
    await saver?.save();
    await cm.close();
    if (claimed) {
      process.stderr.write(
        `${errStyle.dim(
          `The checkpoint was used: it is kept as ${usedCheckpointPath(checkpointFile)}. Resuming it again would run the calls that were decided again; rename it back to ${checkpointFile} only if you are sure they did not take effect.`,
        )}\n`,
      );
    }
  }
}

/**
 * A plan saved by `cordon run --plan --approve pause`: shown (where the run's report goes; with --json,
 * on standard error) and decided once, as `cordon run --plan` decides it.
 */
async function decideSavedPlan(
  summary: CheckpointSummary,
  policy: ApprovePolicy,
  io: DecideIo & { json: boolean; checkpointFile: string },
): Promise<PeopleSaid | "declined" | "interrupted"> {
  const plan = { effects: summary.effects ?? [], pending: summary.pending };
  const out = io.json ? process.stderr : process.stdout;
  out.write(formatPlan(plan, { style: styleFor(out), approvalKeysOf: io.approvalKeysOf }));
  return decidePlan(plan, policy, io, `cordon resume of the plan in ${io.checkpointFile}`);
}

/** Says why the checkpoint was refused, and what to do. */
function refused(error: CheckpointRefused, file: string, style: Style): number {
  const what: Partial<Record<CheckpointRefused["problem"], string>> = {
    tools: "Give the same --tools module the run paused with, unchanged.",
    limits: "Give the same --timeout the run paused with (or none, if it had none).",
    "another-key": `It was sealed with another key: set ${CHECKPOINT_KEY_VARIABLE} to the key of the machine that paused it.`,
    expired: "Run the code again with cordon run.",
    altered: `${file} was changed after cordon wrote it: run the code again with cordon run.`,
  };
  const hint = what[error.problem];
  process.stderr.write(
    `${style.red("cordon resume:")} ${file} cannot be resumed: ${error.message}${hint ? ` ${hint}` : ""} Nothing ran.\n`,
  );
  return EXIT.codeFailed;
}
