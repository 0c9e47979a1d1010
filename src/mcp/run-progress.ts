/**
 * Progress of a run_code request told to its client: the calls its code makes, as they start and end,
 * with the time since the run began (`files__read_file finished (3 calls, 1.2 s)`).
 */

import { formatDuration } from "../dispatch/failures.js";
import { visibleText } from "../dispatch/preview.js";
import type { DispatchEvent } from "../dispatch/types.js";

/** The longest tool name a progress message carries (a name the code made up can be long). */
const MAX_NAME_CHARS = 80;

/**
 * An observer of the run_code dispatch's events that reports each call of the code (`parentCallId`
 * set) when its first attempt starts and when it ends: started calls are numbered, ended ones counted.
 */
export function runProgress(report: (message: string) => void): (event: DispatchEvent) => void {
  const began = performance.now();
  let started = 0;
  let ended = 0;
  return (event) => {
    if (event.parentCallId === undefined) return;
    const name = visibleText(event.name).slice(0, MAX_NAME_CHARS);
    const elapsed = formatDuration(Math.round(performance.now() - began));
    if (event.type === "started" && event.attempt === 1) {
      started += 1;
      report(`${name} started (call ${started}, ${elapsed})`);
    } else if (event.type === "completed") {
      ended += 1;
      report(`${name} finished (${ended} ${ended === 1 ? "call" : "calls"}, ${elapsed})`);
    } else if (event.type === "failed") {
      ended += 1;
      report(`${name} failed: ${event.error.kind} (${ended} ${ended === 1 ? "call" : "calls"}, ${elapsed})`);
    }
  };
}
