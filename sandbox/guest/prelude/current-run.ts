/** The run this sandbox is running (or ran last): the one whose calls, logs and outcome count now. */

import type { Run } from "./types.js";

/** The current run; undefined before the first. */
export let run: Run | undefined;

/** Makes `next` the current run. */
export const setRun = (next: Run) => {
  run = next;
};
