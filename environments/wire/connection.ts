/**
 * cordon's end of a connection to a sandbox host (`sandbox/program/main.ts`): it opens sandboxes over the
 * wire protocol, routes reports to the runs they belong to, checks the peer's health with pings, and
 * ends every run with a clear outcome when the peer goes away. It knows nothing of the transport (a
 * child process's stdio, a container's stream, a socket): its owner feeds it bytes and tells it when
 * the stream has ended, and decides what to do when the peer misbehaves (kill it).
 */

import {
  type Command,
  clampLimits,
  encodeMessage,
  type HostHealth,
  LineSplitter,
  PROTOCOL_VERSION,
  parseReport,
  type Report,
  type SandboxLimits,
} from "../../sandbox/contract/index.js";
import type { Ending, PeerFailure } from "./endings.js";
import { type RunLink, WireSandbox } from "./wire-sandbox.js";

/** Writes one encoded line to the peer. */
export interface Transport {
  write(line: string): void;
  /**
   * Writes one encoded line to the peer's lane (see `sandbox/program/lane.ts`); only a peer
   * started with one has it.
   */
  writeLane?(line: string): void;
}

/** What a connection tells its owner. */
export interface ConnectionHooks {
  /**
   * The peer broke the protocol, stopped answering, or asked to die (a `fatal` report): the owner must
   * stop it and then call {@link WireConnection.end} with the ending its runs get.
   */
  onFailure(failure: PeerFailure): void;
  /** A run ended with its sandbox killed while busy: the peer's process should be replaced. */
  onTainted?(): void;
  /** The peer's health, from each `pong`. */
  onHealth?(health: HostHealth): void;
  /** A run started or ended. */
  onActivity?(): void;
}

/** Runs given up as stuck, and never reported done, that a connection tolerates before it stops its peer. */
export const MAX_GIVEN_UP_RUNS = 16;

/** The pause between pings, and how long a pong may take before the peer counts as hung. */
export interface Heartbeat {
  intervalMs: number;
  timeoutMs: number;
}

/** One connection to one sandbox host. */
export class WireConnection {
  /** Resolves once the peer said `hello` in this protocol's version; rejects when it cannot. */
  readonly ready: Promise<void>;
  readonly #transport: Transport;
  readonly #hooks: ConnectionHooks;
  readonly #splitter = new LineSplitter();
  readonly #runs = new Map<number, RunLink>();
  /** Runs given up as stuck whose `done` has not come: their late reports are dropped, not violations. */
  readonly #givenUp = new Set<number>();
  readonly #sandboxes = new Set<WireSandbox>();
  #nextId = 0;
  #hello = false;
  /** The most the peer lets a sandbox have, from its hello (a sandbox server's ceilings). */
  #ceilings: Partial<SandboxLimits> = {};
  #ended: Ending | undefined;
  #settleReady: { resolve(): void; reject(error: Error): void } = { resolve() {}, reject() {} };
  #heartbeat: NodeJS.Timeout | undefined;
  #awaitingPong: { id: number; sentAt: number } | undefined;

  constructor(transport: Transport, hooks: ConnectionHooks) {
    this.#transport = transport;
    this.#hooks = hooks;
    this.ready = new Promise<void>((resolve, reject) => {
      this.#settleReady = { resolve, reject };
    });
    // A caller that never awaits `ready` must not see an unhandled rejection.
    this.ready.catch(() => {});
  }

  /** Runs in progress (sent and not yet reported done). */
  get activeRuns(): number {
    let active = 0;
    for (const run of this.#runs.values()) if (!run.finished) active++;
    return active;
  }

  /** Sandboxes opened and not disposed or dead. */
  get liveSandboxes(): number {
    return this.#sandboxes.size;
  }

  /** True once {@link end} was called. */
  get ended(): boolean {
    return this.#ended !== undefined;
  }

  /**
   * Opens a sandbox on the peer, for `tenant` when given (a sandbox server keeps tenants apart). The
   * command is sent at once; a failure to open shows in its first run.
   */
  open(limits: SandboxLimits, tenant?: string, lane = false): WireSandbox {
    if (this.#ended) throw new Error(this.#ended.error.message);
    const onLane = lane && this.#transport.writeLane !== undefined;
    // The peer holds the sandbox under its ceilings; this side keeps to the same effective limits.
    const sandbox = new WireSandbox(this.#nextId++, clampLimits(limits, this.#ceilings), {
      send: (command) => this.#send(command),
      sendLane: (command) => this.#send(command, true),
      onLane,
      newRunId: () => this.#nextId++,
      track: (run) => {
        this.#runs.set(run.id, run);
        this.#hooks.onActivity?.();
      },
      fail: (failure) => this.#hooks.onFailure(failure),
      giveUp: (run) => this.#giveUp(run),
      forget: (dead) => this.#sandboxes.delete(dead),
      ended: () => this.#ended,
    });
    this.#sandboxes.add(sandbox);
    this.#send({
      type: "open",
      sandbox: sandbox.id,
      limits,
      ...(tenant === undefined ? {} : { tenant }),
      ...(onLane ? { lane: true as const } : {}),
    });
    return sandbox;
  }

  /** Bytes from the peer. A line that breaks the protocol is reported to the owner; nothing throws. */
  receive(chunk: Buffer): void {
    if (this.#ended) return;
    let lines: string[];
    try {
      lines = this.#splitter.push(chunk);
    } catch (error) {
      this.#violation((error as Error).message);
      return;
    }
    for (const line of lines) {
      if (this.#ended) return;
      let report: Report;
      try {
        report = parseReport(line);
      } catch (error) {
        this.#violation((error as Error).message);
        return;
      }
      this.#route(report);
    }
  }

  /**
   * The peer is gone (or is being stopped): every run still open ends with `ending`, every sandbox is
   * dead, and nothing more is sent. Safe to call twice; the first ending wins.
   */
  end(ending: Ending): void {
    if (this.#ended) return;
    this.#ended = ending;
    clearInterval(this.#heartbeat);
    this.#settleReady.reject(new Error(ending.error.message));
    for (const run of this.#runs.values()) run.end(ending);
    this.#runs.clear();
    this.#givenUp.clear();
    for (const sandbox of this.#sandboxes) sandbox.markDead();
    this.#sandboxes.clear();
    this.#hooks.onActivity?.();
  }

  /**
   * Pings the peer every `intervalMs`; a pong that takes longer than `timeoutMs` is a hung peer. The
   * timer never keeps the process alive.
   */
  startHeartbeat({ intervalMs, timeoutMs }: Heartbeat): void {
    clearInterval(this.#heartbeat);
    let pings = 0;
    this.#heartbeat = setInterval(() => {
      if (this.#ended) return;
      const waiting = this.#awaitingPong;
      if (waiting) {
        const late = performance.now() - waiting.sentAt;
        // Read whatever already arrived before judging: this process's own event loop may have been slow.
        // A run on the lane holds the peer's main thread while its code runs: its own deadline judges it.
        if (late > timeoutMs && !this.#laneRunActive()) {
          setImmediate(() => {
            if (this.#awaitingPong === waiting && !this.#ended) {
              this.#hooks.onFailure({
                kind: "unresponsive",
                detail: `it did not answer a ping for ${Math.round(late)} ms`,
              });
            }
          });
        }
        return;
      }
      this.#awaitingPong = { id: ++pings, sentAt: performance.now() };
      this.#send({ type: "ping", id: pings });
    }, intervalMs);
    this.#heartbeat.unref();
  }

  #laneRunActive(): boolean {
    for (const run of this.#runs.values()) if (run.onLane && !run.finished) return true;
    return false;
  }

  #route(report: Report): void {
    const problem = this.#problemWith(report);
    if (problem !== undefined) this.#violation(problem);
  }

  /** Acts on one report; returns what was wrong with it when it breaks the protocol. */
  #problemWith(report: Report): string | undefined {
    if (!this.#hello) {
      if (report.type !== "hello") return `the first message was ${report.type}, not hello`;
      if (report.protocol !== PROTOCOL_VERSION) {
        return `it speaks protocol version ${report.protocol}, this cordon speaks ${PROTOCOL_VERSION}; install matching versions`;
      }
      this.#hello = true;
      this.#ceilings = report.ceilings ?? {};
      this.#settleReady.resolve();
      return undefined;
    }
    switch (report.type) {
      case "hello":
        return "a second hello";
      case "pong":
        if (this.#awaitingPong?.id === report.id) this.#awaitingPong = undefined;
        this.#hooks.onHealth?.(report.health);
        return undefined;
      case "fatal":
        this.#hooks.onFailure({ kind: "fatal", reason: report.reason });
        return undefined;
      case "call":
      case "log":
      case "values":
      case "replayed":
      case "done": {
        const run = this.#runs.get(report.run);
        if (!run && this.#givenUp.has(report.run)) {
          if (report.type === "done") this.#givenUp.delete(report.run);
          return undefined;
        }
        if (!run) return `a ${report.type} message for run ${report.run}, which is not running`;
        const problem = run.receive(report);
        if (problem) return problem;
        if (report.type === "done") {
          this.#runs.delete(report.run);
          if (report.tainted) this.#hooks.onTainted?.();
          this.#hooks.onActivity?.();
        }
        return undefined;
      }
    }
  }

  /**
   * Forgets a run its sandbox was given up for (it has its outcome already). A peer that leaves more
   * than {@link MAX_GIVEN_UP_RUNS} of them without a `done` is not ending runs at all: it is stopped.
   */
  #giveUp(run: RunLink): void {
    if (this.#runs.get(run.id) !== run) return;
    this.#runs.delete(run.id);
    this.#givenUp.add(run.id);
    if (this.#givenUp.size > MAX_GIVEN_UP_RUNS) {
      this.#hooks.onFailure({
        kind: "unresponsive",
        detail: `${this.#givenUp.size} of its runs went on past their limits and never ended`,
      });
    }
  }

  #violation(detail: string): void {
    this.#hooks.onFailure({ kind: "violation", detail });
  }

  /**
   * Sends a command (on the lane with `lane`); false when it could not be sent (over the size cap, no
   * lane, or the connection ended).
   */
  #send(command: Command, lane = false): boolean {
    if (this.#ended) return false;
    const write = lane ? this.#transport.writeLane : this.#transport.write;
    if (write === undefined) return false;
    let line: string;
    try {
      line = encodeMessage(command);
    } catch {
      return false;
    }
    try {
      write.call(this.#transport, line);
      return true;
    } catch {
      return false;
    }
  }
}
