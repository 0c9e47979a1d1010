/**
 * The messages and error records of the isolate engine: limits, syntax errors, and the position of
 * an error in the model's code.
 */

import {
  MAX_ERROR_MESSAGE_CHARS,
  MAX_ERROR_NAME_CHARS,
  MAX_STACK_FRAMES,
  type SandboxError,
} from "../contract/index.js";
import { USER_CODE_FILENAME } from "../guest/interface.js";

/** The message for `import` statements, which have no meaning inside `run_code`. */
const IMPORT_MESSAGE =
  "import is not available in run_code: there are no modules here. Call tools.<name>(args) instead.";

/** The messages for each way a run can be stopped by the host. */
export const limitMessages = {
  timeout: (ms: number) =>
    `The code did not finish within ${ms} ms (timeoutMs) and was stopped; the sandbox was reset. ` +
    "Do less in one run, or make sure every promise settles.",
  lingering: (ms: number) =>
    `The code returned, but work it left running (a loop in a callback or a promise chain) kept the sandbox busy past ${ms} ms (timeoutMs); it was stopped and the sandbox was reset.`,
  cpu: (ms: number) =>
    `The code used more than ${ms} ms of CPU time (cpuTimeMs) and was stopped; the sandbox was reset. ` +
    "Avoid long synchronous loops and expensive regular expressions.",
  memory: (mb: number) =>
    `The code ran out of memory: the sandbox's heap is limited to ${mb} MB (memoryMb). It was stopped ` +
    "and the sandbox was reset. Work on smaller pieces of data.",
  spike: (mb: number, roseMb: number, allowedMb: number) =>
    `The code ran out of memory: it built a value larger than the sandbox's heap limit of ${mb} MB ` +
    `(memoryMb), which raised the sandbox process's memory by ${roseMb} MB where a run within that limit ` +
    `stays under ${allowedMb} MB. It was stopped and the sandbox was reset. Work on smaller pieces of data.`,
  messages: (max: number) =>
    `The code sent more than ${max} messages to the host (console lines and tool calls) and was stopped; the sandbox was reset.`,
  cancelled: () => "The run was cancelled before the code finished; the sandbox was reset.",
  disposed: () => "The sandbox was closed while the code was running.",
  crashed: (detail: string) => `The sandbox stopped unexpectedly (${detail}); it was reset.`,
};

/**
 * Converts a compile error from isolated-vm (whose message ends with `[run_code.js:LINE:COLUMN]`) into
 * a SandboxError whose stack has one frame at that position in the model's code.
 */
export function compileError(error: unknown): SandboxError {
  const raw = readMessage(error);
  const at = new RegExp(` \\[${escapeRegExp(USER_CODE_FILENAME)}:(\\d+):(\\d+)\\]$`).exec(raw);
  let message = at ? raw.slice(0, at.index) : raw;
  const name = readName(error, "SyntaxError");
  if (/^Cannot use import statement outside a module$/.test(message)) message = IMPORT_MESSAGE;
  const frame = at ? `\n    at ${USER_CODE_FILENAME}:${at[1]}:${at[2]}` : "";
  return { name, message, stack: `${name}: ${message}${frame}` };
}

/**
 * isolated-vm rejects `import()` with a bare "Not supported" error; when the code used `import(`, the
 * error is given the same explanation as an import statement.
 */
export function explainDynamicImport(error: SandboxError, code: string): SandboxError {
  if (error.name !== "Error" || error.message !== "Not supported" || !/\bimport\s*\(/.test(code))
    return error;
  const message =
    "import() is not available in run_code: there are no modules here. Call tools.<name>(args) instead.";
  const frames = (error.stack ?? "").split("\n").slice(1);
  return { ...error, message, stack: [`Error: ${message}`, ...frames].join("\n") };
}

/** A stack frame in the model's code: the pattern is applied to one line at a time (linear time). */
const USER_FRAME = new RegExp(`^[ \\t]+at .*?${escapeRegExp(USER_CODE_FILENAME)}:(\\d+):(\\d+)`);

/**
 * The line and column (1-based) of the first stack frame in the model's code, or undefined when the
 * stack has none. Lines are those of `ExecutionRequest.code`.
 */
export function userCodePosition(
  error: Pick<SandboxError, "stack">,
): { line: number; column: number } | undefined {
  if (!error.stack) return undefined;
  // Only frame lines count: the message itself may mention the file name.
  for (const line of error.stack.split("\n")) {
    const frame = USER_FRAME.exec(line);
    if (frame) return { line: Number(frame[1]), column: Number(frame[2]) };
  }
  return undefined;
}

/**
 * Cuts an error's name, message and stack to their caps (the stack to the frames of the model's code
 * and at most {@link MAX_STACK_FRAMES} of them), before anything else reads them.
 */
export function boundError(error: SandboxError): SandboxError {
  const bounded: SandboxError = {
    ...error,
    name: cut(error.name, MAX_ERROR_NAME_CHARS),
    message: cut(error.message, MAX_ERROR_MESSAGE_CHARS),
  };
  if (error.stack !== undefined) {
    const stack = cut(error.stack, MAX_ERROR_MESSAGE_CHARS + 40_000);
    const lines = stack.split("\n");
    const frames = lines.filter((line) => USER_FRAME.test(line)).slice(0, MAX_STACK_FRAMES);
    bounded.stack = [`${bounded.name}: ${bounded.message}`, ...frames.map((line) => line.slice(0, 500))].join(
      "\n",
    );
  }
  return bounded;
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

function readMessage(error: unknown): string {
  const message = (error as { message?: unknown })?.message;
  return typeof message === "string" ? message : String(error);
}

function readName(error: unknown, fallback: string): string {
  const name = (error as { name?: unknown })?.name;
  return typeof name === "string" && name !== "" ? name : fallback;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
