/** The sandbox's `console`: each line formatted and capped here, then sent to the host. */

import { flushTape } from "./clock.js";
import { run } from "./current-run.js";
import { formatLine } from "./format.js";
import { freeze } from "./intrinsics.js";
import { send } from "./links.js";
import { slice } from "./objects.js";

/** Formats one console call and sends it, within the run's cap on console output. */
const log = (level: "log" | "info" | "warn" | "error" | "debug", args: unknown[]): void => {
  const current = run;
  if (current === undefined || current.finished) return;
  // Every line costs its length plus one (its line break), so even empty lines use up the cap and a
  // flood of them never reaches the host.
  const room = current.config.maxLogChars - current.logChars - 1;
  if (room < 0) {
    current.droppedLogCalls++;
    return;
  }
  let text = formatLine(args, room + 1);
  if (text.length > room) {
    text = slice(text, 0, room);
    current.droppedLogCalls++;
  }
  current.logChars += text.length + 1;
  flushTape(current.id);
  send("log", current.id, 0, level, text);
};

/** A console whose methods write to the current run at their level (trace as debug; dir and table as log). */
const makeConsole = () => {
  const methods: Record<string, (...args: unknown[]) => void> = {
    log: (...args) => log("log", args),
    info: (...args) => log("info", args),
    warn: (...args) => log("warn", args),
    error: (...args) => log("error", args),
    debug: (...args) => log("debug", args),
    trace: (...args) => log("debug", args),
    dir: (...args) => log("log", args),
    table: (...args) => log("log", args),
  };
  return freeze(methods);
};
/** The console of every run of this sandbox (frozen; it writes to the current run). */
export const sandboxConsole = makeConsole();
