/**
 * The lane of a sandbox-host process: how a sandbox alone in its process gets a tool call answered with
 * two wake-ups instead of four.
 *
 * Without a lane, a call wakes the sandbox host's main thread (the guest's message), then cordon, then
 * the main thread again (the answer), then the isolate's thread (the outcome goes in). With a lane, the
 * main thread runs the guest itself, in synchronous stretches (see `ExecutionDeps.lane`); a call the code
 * waits for alone is written out as a `call` report with `lane`, and the thread blocks reading the
 * lane, a pipe only cordon writes to (first looking for the answer without sleeping, for a moment, while
 * the machine has a core to spare), until cordon answers with one line: the `result`, a `later` (the
 * outcome is slow, or waits for a person: it comes as a `result` on stdin and the thread goes back to its
 * event loop meanwhile), or a `cancel` of the run. cordon answers every such call within a short window,
 * so the thread is never blocked for longer than that by a slow tool; while the guest computes, the
 * thread is held for at most what is left of the run's time, after which isolated-vm stops the code.
 *
 * Because the main thread is the guest's, a process with a lane hosts that one sandbox and nothing else
 * (its supervisor places no other sandbox on it), and cordon does not judge its pings while the sandbox
 * runs code; a cancelled run whose code goes on computing is stopped with its process.
 */

import { type Command, parseCommand } from "../contract/index.js";
import { hasSpareCore } from "../isolate/spare-core.js";
import type { HostLane } from "./host.js";
import { BlockingLineReader, nonBlockingSwitch } from "./sync-io.js";

/**
 * How long the thread looks for cordon's answer on the lane before it sleeps, in µs, while the machine
 * has a core to spare: longer than cordon takes to wake and answer a synchronous tool. A sleeping
 * thread must be woken, and on an idle machine (a VM's vCPU asleep) that costs the writer tens of µs in
 * its write and the reader as many again; with no core to spare the spin would take the core cordon
 * needs to answer, and the thread sleeps at once.
 */
const LANE_SPIN_US = 300;

/**
 * The lane on descriptor `fd`; `die` ends the process with a reason when the lane breaks; `waiting` runs
 * each blocking read (the watchdog is told the thread sleeps on purpose); `spinUs` says how long each
 * read looks for the answer before it sleeps (see {@link LANE_SPIN_US}).
 */
export function processLane(
  fd: number,
  die: (reason: string) => never,
  waiting: <T>(wait: () => T) => T = (wait) => wait(),
  spinUs: () => number = () => (hasSpareCore() ? LANE_SPIN_US : 0),
): HostLane {
  const nonBlocking = nonBlockingSwitch(fd);
  const reader = new BlockingLineReader(
    fd,
    nonBlocking === undefined ? undefined : { nonBlocking, microseconds: spinUs },
  );
  return {
    next(): Command {
      let line: string;
      try {
        line = waiting(() => reader.next());
      } catch (error) {
        return die(`the lane from cordon failed: ${(error as Error).message}`);
      }
      try {
        return parseCommand(line);
      } catch (error) {
        return die(
          `cordon sent a message on the lane this sandbox host cannot read: ${(error as Error).message}`,
        );
      }
    },
    broken: die,
  };
}
