/**
 * One sandbox-host child process under supervision: started with a minimal environment, spoken to over
 * its stdio with the wire protocol, pinged for health, held to a memory and thread budget, and killed
 * (SIGKILL: after some V8 failures nothing gentler works) when it crashes, hangs, exceeds a budget,
 * breaks the protocol, or was tainted by a run that had to be stopped while it was running code.
 */

import type { ChildProcess, StdioOptions } from "node:child_process";
import type { Writable } from "node:stream";
import { childProcess } from "../../common/node-builtins.js";
import { LANE_FD, runEnding, type SandboxLimits } from "../../sandbox/contract/index.js";
import { type Transport, WireConnection } from "../wire/connection.js";
import {
  crashEnding,
  type Ending,
  fatalEnding,
  memoryEnding,
  sharedEnding,
  threadsEnding,
  unresponsiveEnding,
  violationEnding,
} from "../wire/endings.js";
import type { WireSandbox } from "../wire/wire-sandbox.js";
import type { ProgramCommand } from "./program.js";

/** How a sandbox-host process is run and watched. */
export interface HostProcessSettings {
  program: ProgramCommand;
  /** Resident memory the process may use, in MB. */
  maxRssMb: number;
  /** Threads the process may have (checked where the platform reports them). */
  maxThreads: number;
  /** How often it is pinged, and how long a pong may take, in ms. */
  heartbeatMs: number;
  hangTimeoutMs: number;
  /** How long it may take to start and say hello, in ms. */
  startTimeoutMs: number;
  /** The process is started with a lane (see `sandbox/program/lane.ts`). */
  lane?: boolean;
  /** The limits runs were last opened with: a new process prepares a spare isolate for them. */
  warmLimits?: SandboxLimits;
}

/** The characters of the process's stderr kept to explain a crash. */
const STDERR_TAIL_CHARS = 8_192;

/** Where a process is in its life. */
export type HostProcessState = "starting" | "ready" | "retiring" | "dead";

/** One supervised sandbox-host process. */
export class SandboxHostProcess {
  readonly connection: WireConnection;
  /** Resolves when the process is ready for sandboxes; rejects with why it could not start. */
  readonly started: Promise<void>;
  /** Resolves once the process has exited and its pipes are closed. */
  readonly exited: Promise<void>;
  readonly #child: ChildProcess;
  readonly #lane: Writable | null;
  readonly #onChange: (process: SandboxHostProcess) => void;
  #state: HostProcessState = "starting";
  #stderr = "";
  #ending: Ending | undefined;
  #referenced = true;
  #wasReady = false;

  /** Starts the process; `onChange` hears of every change of state and of load. */
  constructor(settings: HostProcessSettings, onChange: (process: SandboxHostProcess) => void) {
    this.#onChange = onChange;
    const args = [...settings.program.args, `--rss-limit-mb=${settings.maxRssMb}`];
    if (settings.lane) args.push("--lane");
    if (settings.warmLimits) args.push(`--warm-limits=${JSON.stringify(settings.warmLimits)}`);
    // No inherited environment: the sandbox host needs none, and the agent's secrets stay out of it. The
    // fourth pipe is the process's lane (LANE_FD).
    const stdio: StdioOptions = settings.lane ? ["pipe", "pipe", "pipe", "pipe"] : "pipe";
    this.#child = childProcess().spawn(settings.program.command, args, { stdio, env: {} });
    const child = this.#child;
    const lane = settings.lane ? (child.stdio[LANE_FD] as Writable | null) : null;
    this.#lane = lane;
    const transport: Transport = {
      write: (line) => {
        child.stdin?.write(line);
      },
    };
    if (lane) transport.writeLane = (line) => lane.write(line);
    this.connection = new WireConnection(transport, {
      onFailure: (failure) => {
        if (failure.kind === "violation") this.kill(violationEnding(failure.detail));
        else if (failure.kind === "unresponsive" || failure.kind === "stuck")
          this.kill(unresponsiveEnding(failure.detail));
        else this.kill(fatalEnding(failure.reason));
      },
      onTainted: () => this.retire(),
      onHealth: (health) => {
        if (health.rssMb > settings.maxRssMb) this.kill(memoryEnding(health.rssMb, settings.maxRssMb));
        else if (health.threads !== undefined && health.threads > settings.maxThreads) {
          this.kill(threadsEnding(health.threads, settings.maxThreads));
        }
      },
      onActivity: () => this.#activity(),
    });
    child.stdout?.on("data", (chunk: Buffer) => this.connection.receive(chunk));
    child.stderr?.on("data", (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
    });
    // Writing to a process that just died fails with EPIPE; its exit is what counts.
    child.stdin?.on("error", () => {});
    lane?.on("error", () => {});
    child.on("error", (error) => this.kill(unresponsiveEnding(`it could not be started: ${error.message}`)));
    this.exited = new Promise((resolve) => {
      child.on("close", (code, signal) => {
        this.#closed(code, signal);
        resolve();
      });
    });

    let startTimer: NodeJS.Timeout | undefined;
    this.started = Promise.race([
      this.connection.ready,
      new Promise<never>((_, reject) => {
        startTimer = setTimeout(() => {
          const ending = unresponsiveEnding(`it did not start within ${settings.startTimeoutMs} ms`);
          this.kill(ending);
          reject(new Error(ending.error.message));
        }, settings.startTimeoutMs);
      }),
    ]).then(
      () => {
        clearTimeout(startTimer);
        this.#wasReady = true;
        if (this.#state === "starting") this.#state = "ready";
        this.connection.startHeartbeat({
          intervalMs: settings.heartbeatMs,
          timeoutMs: settings.hangTimeoutMs,
        });
        this.#activity();
      },
      (error: unknown) => {
        clearTimeout(startTimer);
        throw new Error(`The sandbox process could not start: ${startFailure(error, this.#stderr)}`);
      },
    );
    this.started.catch(() => {});
  }

  get state(): HostProcessState {
    return this.#state;
  }

  /** The operating system's id of the process (undefined if it could not be started). */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** True once the process was ready (said hello in time); a process that never was failed to start. */
  get wasReady(): boolean {
    return this.#wasReady;
  }

  /** How busy the process is: runs in progress count most, then open sandboxes. */
  get load(): number {
    return this.connection.activeRuns * 1_000 + this.connection.liveSandboxes;
  }

  /** Opens a sandbox in this process; with `lane`, on its lane (the sandbox must be alone in it). */
  open(limits: SandboxLimits, lane = false): WireSandbox {
    return this.connection.open(limits, undefined, lane);
  }

  /**
   * Takes no new sandboxes and ends once its runs in progress have ended; its idle sandboxes (sessions)
   * end with it.
   */
  retire(): void {
    if (this.#state === "dead" || this.#state === "retiring") return;
    this.#state = "retiring";
    this.#onChange(this);
    this.#activity();
  }

  /** Stops the process now; its runs still open end with `ending`. */
  kill(ending: Ending): void {
    if (this.#state === "dead") return;
    this.#ending ??= ending;
    this.#state = "dead";
    this.#child.kill("SIGKILL");
    this.connection.end(this.#forRuns(this.#ending));
    this.#onChange(this);
  }

  /**
   * How the runs still open end when the process stops for `ending`: with it, when there is one; when
   * several shared the process and it failed, with an ending that blames none of them.
   */
  #forRuns(ending: Ending): Ending {
    const runs = this.connection.activeRuns;
    if (runs < 2 || ending.status === "cancelled") return ending;
    return sharedEnding(ending, runs);
  }

  #closed(code: number | null, signal: NodeJS.Signals | null): void {
    this.connection.end(this.#forRuns(this.#ending ?? crashEnding({ code, signal, stderr: this.#stderr })));
    if (this.#state !== "dead") {
      this.#state = "dead";
      this.#onChange(this);
    }
  }

  /** After runs start or end: a retiring process with nothing left to run ends; idle pipes are unref'd. */
  #activity(): void {
    const active = this.connection.activeRuns;
    if (this.#state === "retiring" && active === 0) {
      this.kill({
        ...runEnding("Disposed", "The sandbox process was replaced."),
      });
      return;
    }
    // An idle sandbox host never keeps the agent's process alive; one running code does.
    const wanted = active > 0 || this.#state === "starting";
    if (wanted === this.#referenced) return;
    this.#referenced = wanted;
    for (const handle of [
      this.#child,
      this.#child.stdout,
      this.#child.stdin,
      this.#child.stderr,
      this.#lane,
    ]) {
      const refable = handle as unknown as { ref?(): void; unref?(): void } | null;
      if (wanted) refable?.ref?.();
      else refable?.unref?.();
    }
  }
}

function startFailure(error: unknown, stderr: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const lastLine = stderr.trim().split("\n").at(-1)?.slice(0, 300);
  return lastLine ? `${message} (its last output: ${lastLine})` : message;
}
