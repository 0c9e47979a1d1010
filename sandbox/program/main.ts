/**
 * The sandbox-host program: `node --no-node-snapshot sandbox/program/main.js [--rss-limit-mb=N] [--warm-limits=JSON] [--lane]`.
 * With `--warm-limits`, it opens and closes one sandbox with those limits before it says hello, so that
 * the prelude's code cache and a spare isolate for them are ready for the first run. With `--lane`,
 * descriptor 3 is its lane (`lane.ts`) and it may host one sandbox that runs on its main thread. It reads
 * commands from stdin and writes reports to stdout, one JSON line each (`protocol.ts`), and hosts the
 * isolates that run the model's code. cordon starts it as a supervised child process; a Docker image
 * runs the same program.
 *
 * It is built to be killed: whatever goes wrong inside it (V8 aborting on a huge allocation, a thread
 * that ignores termination, memory outside the heap), the worst outcome is this process ending, which
 * its supervisor notices and repairs. It ends itself when its input closes (its supervisor is gone) and
 * when it uses more memory than it was given.
 */

import {
  type Command,
  encodeMessage,
  LANE_FD,
  LineSplitter,
  parseCommand,
  type Report,
  type SandboxLimits,
} from "../contract/index.js";
import { isolateEngine } from "../isolate/index.js";
import { loadIsolatedVm } from "../isolate/load.js";
import { processHealth } from "./health.js";
import { type HostLane, SandboxHost } from "./host.js";
import { processLane } from "./lane.js";
import { overBudgetReason, processPeakWatch } from "./peak-memory.js";
import { writeAllSync } from "./sync-io.js";
import { startWatchdog, WatchBoard } from "./watchdog.js";

/** How often the process checks its own memory, in ms. */
const MEMORY_CHECK_MS = 100;

/** stdout's descriptor: reports are written to it directly, never through `process.stdout`. */
const STDOUT_FD = 1;

/** With a lane: what the main thread shares with the watchdog thread. */
let board: WatchBoard | undefined;

void main();

async function main(): Promise<void> {
  // stdout carries the protocol and nothing else: anything printed goes to stderr.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  const args = process.argv.slice(2);
  const rssLimitMb = readRssLimit(args);

  let ivm: ReturnType<typeof loadIsolatedVm>;
  try {
    ivm = loadIsolatedVm();
  } catch (error) {
    die(error instanceof Error ? error.message : String(error));
  }
  let lane: HostLane | undefined;
  if (args.includes("--lane")) {
    const watched = new WatchBoard();
    board = watched;
    startWatchdog(watched, rssLimitMb, die);
    lane = processLane(LANE_FD, die, (wait) => watched.waiting(wait));
  }
  // A run whose peak passed its limit alone ends as out of memory; one of several sharing a window ends
  // the process, as its RSS budget does (checked on the peak too: a run can pass the budget and end
  // between two of the checks every MEMORY_CHECK_MS). Every answer comes from another process: calls are
  // offered synchronously only to a lane's sandbox, which blocks on the lane for them (see syncCalls).
  const environment = isolateEngine({
    ivm,
    warm: 1,
    memory: processPeakWatch((reason) => die(reason), { budgetMb: rssLimitMb }),
    syncCalls: false,
    ...(board ? { stretches: board } : {}),
  });
  const warmLimits = readWarmLimits(args);
  if (warmLimits) {
    try {
      await (await environment.open(warmLimits, { lane: lane !== undefined })).dispose();
    } catch (error) {
      die(`this sandbox host could not open a sandbox: ${(error as Error).message}`);
    }
  }
  const host = new SandboxHost(environment, send, processHealth, lane);
  send(SandboxHost.hello());

  const splitter = new LineSplitter();
  process.stdin.on("data", (chunk: Buffer) => {
    let lines: string[];
    try {
      lines = splitter.push(chunk);
    } catch (error) {
      die(`cordon sent an oversized message: ${(error as Error).message}`);
    }
    for (const line of lines) {
      let command: Command;
      try {
        command = parseCommand(line);
      } catch (error) {
        die(`cordon sent a message this sandbox host cannot read: ${(error as Error).message}`);
      }
      host.handle(command);
    }
  });
  // The supervisor is gone (or closed the pipe to stop this process): nothing here is worth keeping.
  process.stdin.on("end", () => killSelf());
  process.stdin.on("error", () => killSelf());

  // With a lane the watchdog thread checks the budget, also while the lane's code holds this thread.
  if (rssLimitMb !== undefined && board === undefined) {
    setInterval(() => {
      const rssMb = process.memoryUsage.rss() / 2 ** 20;
      if (rssMb > rssLimitMb) {
        die(overBudgetReason(rssMb, rssLimitMb));
      }
    }, MEMORY_CHECK_MS).unref();
  }
}

/**
 * Writes a report to stdout, whole, before it returns (see `sync-io.ts`); false when it is over the
 * protocol's size cap. A stdout that fails means the supervisor is gone: the process ends.
 */
function send(report: Report): boolean {
  let line: string;
  try {
    line = encodeMessage(report);
  } catch {
    return false;
  }
  try {
    if (board) board.withStdout(() => writeAllSync(STDOUT_FD, line));
    else writeAllSync(STDOUT_FD, line);
  } catch {
    killSelf();
  }
  return true;
}

/** Says why the process cannot go on, then ends it. */
function die(reason: string): never {
  send({ type: "fatal", reason });
  killSelf();
}

/**
 * Ends the process at once. `process.exit()` is not enough: after an isolate ran out of memory, a thread
 * stuck in isolated-vm's handler can keep exit from ever returning.
 */
function killSelf(): never {
  process.kill(process.pid, "SIGKILL");
  // Still here: this process is a PID namespace's init (a container without an init process), which
  // ignores signals it sends itself. Exiting is the next best thing.
  process.exit(137);
}

/** The limits of `--warm-limits=JSON`, checked as an `open` command would be; undefined without it. */
function readWarmLimits(args: string[]): SandboxLimits | undefined {
  const arg = args.find((item) => item.startsWith("--warm-limits="));
  if (arg === undefined) return undefined;
  try {
    const command = parseCommand(
      JSON.stringify({ type: "open", sandbox: 0, limits: JSON.parse(arg.slice(14)) }),
    );
    return command.type === "open" ? command.limits : undefined;
  } catch (error) {
    return die(`--warm-limits is not a valid set of limits: ${(error as Error).message}`);
  }
}

function readRssLimit(args: string[]): number | undefined {
  for (const arg of args) {
    const match = /^--rss-limit-mb=(\d+)$/.exec(arg);
    if (match) return Number(match[1]);
  }
  return undefined;
}
