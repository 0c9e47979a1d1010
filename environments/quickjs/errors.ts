/**
 * The QuickJS environment's words for how a run ended, and its reading of QuickJS's errors: positions
 * moved back to the model's lines, out of memory told from the code's own errors.
 */

import {
  type RecordedZone,
  recordedZone,
  runEnding,
  type SandboxError,
} from "../../sandbox/contract/index.js";
import { USER_CODE_FILENAME } from "../../sandbox/guest/interface.js";

const HOST_FINE =
  "Only the sandbox was affected: the agent's process is fine, and the next run gets a fresh sandbox.";

/** The endings only this environment reports, in the words of the isolate engine's where they agree. */
export const quickjsLimitMessages = {
  memory: (mb: number) =>
    runEnding(
      "MemoryLimit",
      `The code ran out of memory: the sandbox's heap is limited to ${mb} MB (memoryMb). It was stopped ` +
        `and the sandbox was reset. Work on smaller pieces of data. ${HOST_FINE}`,
    ),
  crashed: (detail: string) =>
    runEnding(
      "SandboxCrashed",
      `The sandbox's WebAssembly instance stopped unexpectedly (${detail}) and was dropped. ${HOST_FINE}`,
    ),
};

/** QuickJS's own error when an allocation passes the runtime's memory limit. */
export function isOutOfMemory(error: Pick<SandboxError, "name" | "message">): boolean {
  return error.name === "InternalError" && error.message === "out of memory";
}

/** A frame in the model's code, as QuickJS writes it (`at f (run_code.js:3:7)` or `at run_code.js:3:7`). */
const FRAME = new RegExp(`^([ \\t]+at .*?${USER_CODE_FILENAME.replace(".", "\\.")}:)(\\d+)(:\\d+\\)?)$`);

/**
 * The error with its frames in the model's lines: QuickJS compiles the code one line below where it
 * starts (the wrapper's header is line 1, and QuickJS takes no line offset), so each line is one less;
 * a frame on the header's line is the wrapper's own and is dropped.
 */
export function shiftLines(error: SandboxError): SandboxError {
  if (error.stack === undefined) return error;
  const lines: string[] = [];
  for (const line of error.stack.split("\n")) {
    const frame = FRAME.exec(line);
    if (frame === null) {
      if (!/^[ \t]+at /.test(line)) lines.push(line);
      continue;
    }
    const at = Number(frame[2]) - 1;
    if (at >= 1) lines.push(`${frame[1]}${at}${frame[3]}`);
  }
  return { ...error, stack: lines.join("\n") };
}

/** A syntax error from compiling the code, at its place in the model's lines. */
export function compileFailure(error: SandboxError): SandboxError {
  return shiftLines(error);
}

/** The time zone and locale of this process: those QuickJS's local time follows. */
export function hostZone(): RecordedZone | undefined {
  try {
    const { timeZone, locale } = Intl.DateTimeFormat().resolvedOptions();
    return recordedZone({ timeZone, locale });
  } catch {
    return undefined;
  }
}
