/**
 * The sandbox host's logic, apart from its transport: it takes {@link Command}s, runs the code in the
 * sandboxes of an environment, and sends {@link Report}s back. `main.ts` wires it to stdin/stdout
 * over in-process isolates; `cordon serve` wires one per client connection to a WebSocket, over its own
 * local environment (sandbox-host processes or Docker).
 */

import { untilAborted } from "../../common/abort.js";
import {
  type BridgeCallOutcome,
  type Command,
  callFailure,
  type ExecutionOutcome,
  type ExecutionRequest,
  type HostHealth,
  isRunFailureName,
  type LogEntry,
  type OpenOptions,
  PROTOCOL_VERSION,
  type RecordedValues,
  type Report,
  runEnding,
  type Sandbox,
  type SandboxBridge,
  type SandboxLimits,
} from "../contract/index.js";

/**
 * Where the host's sandboxes come from: the isolate engine in the sandbox-host program, the server's
 * own environment in `cordon serve`. A sandbox's `tainted` goes back in its run's `done` report. Only a
 * host with a {@link HostLane} opens sandboxes with `lane`.
 */
export interface SandboxSource {
  open(limits: SandboxLimits, options?: OpenOptions & { lane?: boolean }): Promise<Sandbox>;
}

/**
 * The lane of a sandbox-host process: where it waits, blocked, for the answer to a call reported with
 * `lane` (see `lane.ts`).
 */
export interface HostLane {
  /** The next command on the lane; blocks the thread until it comes. Never returns when the lane broke. */
  next(): Command;
  /** cordon broke the lane's rules: the process cannot go on. */
  broken(reason: string): never;
}

/** Sends one report; returns false when it could not be sent (too large for the protocol). */
export type SendReport = (report: Report) => boolean;

/** A run in progress: its bridge's pending tool calls wait for `result` commands. */
interface ActiveRun {
  controller: AbortController;
  pending: Map<number, PendingCall>;
}

/** A tool call waiting for its `result`, and the engine's hook for approval waits. */
interface PendingCall {
  settle(outcome: BridgeCallOutcome): void;
  waiting?: (waiting: boolean) => void;
}

/** Runs the commands of one connection. One per sandbox-host process. */
export class SandboxHost {
  readonly #send: SendReport;
  readonly #environment: SandboxSource;
  readonly #health: () => HostHealth;
  readonly #sandboxes = new Map<number, Promise<Sandbox | Error>>();
  readonly #runs = new Map<number, ActiveRun>();
  readonly #lane: HostLane | undefined;
  /** The sandbox that has the lane (at most one: the lane belongs to a sandbox alone in its process). */
  #laneSandbox: number | undefined;

  /** `health` answers pings: how the process doing the work is doing. */
  constructor(environment: SandboxSource, send: SendReport, health: () => HostHealth, lane?: HostLane) {
    this.#environment = environment;
    this.#send = send;
    this.#health = health;
    this.#lane = lane;
  }

  /** The `hello` report that starts a connection, with the ceilings its sandboxes are held under. */
  static hello(ceilings?: Partial<SandboxLimits>): Report {
    const hello: Report = { type: "hello", protocol: PROTOCOL_VERSION, node: process.version };
    return ceilings === undefined ? hello : { ...hello, ceilings };
  }

  /** Runs currently executing. */
  get activeRuns(): number {
    return this.#runs.size;
  }

  /** Handles one command. Never throws: a failure of a run is that run's `done` report. */
  handle(command: Command): void {
    switch (command.type) {
      case "open":
        this.#open(command.sandbox, command);
        return;
      case "exec":
        void this.#exec(command.sandbox, command.run, command.request);
        return;
      case "result":
        this.#runs.get(command.run)?.pending.get(command.call)?.settle(command.outcome);
        return;
      case "waiting":
        this.#runs.get(command.run)?.pending.get(command.call)?.waiting?.(command.waiting);
        return;
      case "cancel":
        this.#runs.get(command.run)?.controller.abort();
        return;
      case "later":
        // Only meaningful on the lane, in answer to a call waiting there; late or stray, it changes nothing.
        return;
      case "dispose":
        void this.#dispose(command.sandbox);
        return;
      case "ping":
        this.#send({ type: "pong", id: command.id, health: this.#health() });
        return;
    }
  }

  /** Stops every run and disposes every sandbox (the environment stays its owner's). */
  async close(): Promise<void> {
    for (const run of this.#runs.values()) run.controller.abort();
    await Promise.all([...this.#sandboxes.keys()].map((id) => this.#dispose(id)));
  }

  #open(id: number, command: Extract<Command, { type: "open" }>): void {
    if (this.#sandboxes.has(id)) return;
    const options: OpenOptions & { lane?: boolean } =
      command.tenant === undefined ? {} : { tenant: command.tenant };
    let opening: Promise<Sandbox | Error>;
    if (command.lane === true && (this.#lane === undefined || this.#laneSandbox !== undefined)) {
      opening = Promise.resolve(
        new Error(
          this.#lane === undefined
            ? "This sandbox host was started without a lane, so it cannot open a sandbox with one."
            : "This sandbox host's lane belongs to another sandbox.",
        ),
      );
    } else {
      if (command.lane === true) {
        options.lane = true;
        this.#laneSandbox = id;
      }
      opening = this.#environment
        .open(command.limits, options)
        .catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
    }
    this.#sandboxes.set(id, opening);
  }

  async #exec(sandboxId: number, runId: number, request: ExecutionRequest): Promise<void> {
    if (this.#runs.has(runId)) return;
    const run: ActiveRun = { controller: new AbortController(), pending: new Map() };
    this.#runs.set(runId, run);
    let outcome: ExecutionOutcome;
    let alive = false;
    let tainted = false;
    try {
      const opening = this.#sandboxes.get(sandboxId);
      if (opening === undefined)
        throw new Error("There is no such sandbox: it was never opened, or disposed.");
      // An open may wait (a server at capacity queues it): a cancel is answered without waiting for it.
      const sandbox = await untilAborted(opening, run.controller.signal);
      if (sandbox instanceof Error) throw sandbox;
      const bridge = this.#bridge(runId, run, sandboxId === this.#laneSandbox);
      outcome = await sandbox.execute(request, bridge, run.controller.signal);
      alive = sandbox.alive;
      tainted = sandbox.tainted === true;
    } catch (error) {
      if (run.controller.signal.aborted) {
        outcome = {
          ...runEnding("Cancelled", "The run was cancelled before its sandbox was ready."),
        };
        alive = true;
      } else {
        outcome = failedOutcome(error);
      }
    } finally {
      this.#runs.delete(runId);
    }
    // A dead sandbox (or one that never opened) gives the lane back: cordon may place the next sandbox
    // here without disposing this one first.
    if (!alive && sandboxId === this.#laneSandbox) this.#laneSandbox = undefined;
    const report: Report = { type: "done", run: runId, outcome, alive, tainted };
    if (!this.#send(report)) {
      // Only a huge result can make the report too large: say so instead of leaving the run open.
      const outcome = runEnding("ResultTooLarge", "The result is too large to send back from the sandbox.");
      this.#send({ type: "done", run: runId, outcome, alive, tainted });
    }
  }

  #bridge(runId: number, run: ActiveRun, onLane: boolean): SandboxBridge {
    let calls = 0;
    const lane = onLane ? this.#lane : undefined;
    const bridge: SandboxBridge = {
      callTool: (tool: string, args: string, waiting?: (waiting: boolean) => void, requested?: string) => {
        const call = ++calls;
        const outcome = awaitResult(run, call, waiting);
        const report: Report = { type: "call", run: runId, call, tool, args };
        if (requested !== undefined) report.requested = requested;
        if (!this.#send(report)) run.pending.get(call)?.settle(tooLarge(tool));
        return outcome;
      },
      log: (entry: LogEntry) => {
        this.#send({ type: "log", run: runId, entry });
      },
      record: (values: RecordedValues) => {
        this.#send({ type: "values", run: runId, values });
      },
      replayed: (count: number) => {
        this.#send({ type: "replayed", run: runId, count });
      },
    };
    if (lane === undefined) return bridge;
    // The code holds this thread and waits for this call alone: block on the lane for its answer.
    bridge.callToolNow = (tool, args, waiting, requested) => {
      const call = ++calls;
      const report: Report = { type: "call", run: runId, call, tool, args, lane: true };
      if (requested !== undefined) report.requested = requested;
      if (!this.#send(report)) return tooLarge(tool);
      const answer = lane.next();
      if (answer.type === "result" && answer.run === runId && answer.call === call) return answer.outcome;
      if (answer.type === "cancel" && answer.run === runId) {
        run.controller.abort();
        return callFailure(tool, "cancelled", "The run was cancelled.");
      }
      if (answer.type !== "later" || answer.run !== runId || answer.call !== call) {
        lane.broken(
          `cordon answered call ${call} of run ${runId} on the lane with another message: ${answer.type}`,
        );
      }
      return awaitResult(run, call, waiting);
    };
    return bridge;
  }

  async #dispose(id: number): Promise<void> {
    const opening = this.#sandboxes.get(id);
    if (opening === undefined) return;
    this.#sandboxes.delete(id);
    if (this.#laneSandbox === id) this.#laneSandbox = undefined;
    const sandbox = await opening;
    if (!(sandbox instanceof Error)) await sandbox.dispose();
  }
}

/** The outcome of call `call` of `run`, settled by the `result` command for it (see {@link PendingCall}). */
function awaitResult(
  run: ActiveRun,
  call: number,
  waiting: ((waiting: boolean) => void) | undefined,
): Promise<BridgeCallOutcome> {
  return new Promise((resolve) => {
    const settle = (outcome: BridgeCallOutcome) => {
      run.pending.delete(call);
      resolve(outcome);
    };
    run.pending.set(call, waiting ? { settle, waiting } : { settle });
  });
}

/** The outcome of a call whose arguments are over the protocol's cap. */
function tooLarge(tool: string): BridgeCallOutcome {
  return callFailure(
    tool,
    "invalid_arguments",
    "The arguments of this call are too large to send out of the sandbox.",
  );
}

/** A run that could not start or failed in the host: its error, named as the caller should see it. */
function failedOutcome(error: unknown): ExecutionOutcome {
  const message = error instanceof Error ? error.message : String(error);
  // A run failure's own name (SandboxBusy from a server at capacity) reaches the caller as it is.
  const name = error instanceof Error && isRunFailureName(error.name) ? error.name : "SandboxError";
  return runEnding(name, message);
}
