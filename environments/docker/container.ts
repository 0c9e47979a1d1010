/**
 * One sandbox container: the sandbox-host program in a locked-down container, spoken to over its
 * attached stdin/stdout with the wire protocol. It serves one sandbox (one run, or one session) and is
 * then removed. Whatever ends it (the run, a crash, the out-of-memory killer, a kill from outside, the
 * engine going away) ends its runs with a clear status and removes the container.
 */

import { type Duplex, PassThrough } from "node:stream";
import type Dockerode from "dockerode";
import { within } from "../../common/abort.js";
import type { SandboxLimits } from "../../sandbox/contract/index.js";
import { WireConnection } from "../wire/connection.js";
import {
  containerMemoryEnding,
  crashEnding,
  type Ending,
  fatalEnding,
  unresponsiveEnding,
  violationEnding,
} from "../wire/endings.js";
import type { WireSandbox } from "../wire/wire-sandbox.js";
import type { DockerUlimits } from "./ulimits.js";

/** How every sandbox container is made; all of it comes from the environment's options. */
export interface ContainerSettings {
  image: string;
  user: string;
  memoryMb: number;
  cpus: number;
  pidsLimit: number;
  tmpfsMb: number;
  ulimits: DockerUlimits;
  networkMode: string;
  readOnlyRootfs: boolean;
  capDrop: string[];
  noNewPrivileges: boolean;
  labels: Record<string, string>;
  heartbeatMs: number;
  hangTimeoutMs: number;
  startTimeoutMs: number;
  /** The limits runs were last opened with: a new container prepares a spare isolate for them. */
  warmLimits?: SandboxLimits;
}

/** Where a container is in its life. */
export type ContainerState = "starting" | "ready" | "dead";

/** The characters of the container's stderr kept to explain a crash. */
const STDERR_TAIL_CHARS = 8_192;

/** One sandbox container. */
export class SandboxContainer {
  readonly connection: WireConnection;
  /** Resolves once the program in the container said hello; rejects with why it could not start. */
  readonly started: Promise<void>;
  /** Resolves once the container is gone (removed, or its engine gave up on it). */
  readonly gone: Promise<void>;
  readonly #docker: Dockerode;
  readonly #settings: ContainerSettings;
  readonly #onChange: (container: SandboxContainer) => void;
  #container: Dockerode.Container | undefined;
  #stream: Duplex | undefined;
  #state: ContainerState = "starting";
  #stderr = "";
  #ending: Ending | undefined;
  #markGone: () => void = () => {};
  /** Ends a start still in progress when the container is killed (a start may wait on a hung engine). */
  #stopStarting: (ending: Ending) => void = () => {};
  /** Creating, attaching and starting the container; removal waits for it, so no container escapes. */
  readonly #booting: Promise<void>;

  constructor(
    docker: Dockerode,
    settings: ContainerSettings,
    onChange: (container: SandboxContainer) => void,
  ) {
    this.#docker = docker;
    this.#settings = settings;
    this.#onChange = onChange;
    this.gone = new Promise((resolve) => {
      this.#markGone = resolve;
    });
    this.connection = new WireConnection(
      { write: (line) => void this.#stream?.write(line) },
      {
        onFailure: (failure) => {
          if (failure.kind === "violation") this.kill(violationEnding(failure.detail));
          else if (failure.kind === "unresponsive" || failure.kind === "stuck")
            this.kill(unresponsiveEnding(failure.detail));
          else this.kill(fatalEnding(failure.reason));
        },
      },
    );
    let timer: NodeJS.Timeout | undefined;
    this.#booting = this.#boot();
    this.started = Promise.race([
      this.#booting.then(() => this.connection.ready),
      new Promise<never>((_, reject) => {
        this.#stopStarting = (ending) => reject(new Error(ending.error.message));
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const ending = unresponsiveEnding(
            `its container did not start within ${settings.startTimeoutMs} ms`,
          );
          this.kill(ending);
          reject(new Error(ending.error.message));
        }, settings.startTimeoutMs);
      }),
    ]).then(
      () => {
        clearTimeout(timer);
        if (this.#state !== "starting") throw new Error("The sandbox container ended while it started.");
        this.#state = "ready";
        this.connection.startHeartbeat({
          intervalMs: settings.heartbeatMs,
          timeoutMs: settings.hangTimeoutMs,
        });
      },
      (error: unknown) => {
        clearTimeout(timer);
        const message = error instanceof Error ? error.message : String(error);
        this.kill(unresponsiveEnding(`it could not be started: ${message}`));
        throw new Error(`The sandbox container could not start: ${message}${this.#lastOutput()}`);
      },
    );
    this.started.catch(() => {});
  }

  get state(): ContainerState {
    return this.#state;
  }

  /** The container's id, once created. */
  get id(): string | undefined {
    return this.#container?.id;
  }

  /** Opens the container's one sandbox. */
  open(limits: SandboxLimits): WireSandbox {
    return this.connection.open(limits);
  }

  /** Ends the container now: its runs end with `ending`, and it is removed. Safe to call twice. */
  kill(ending: Ending): void {
    this.#end(ending, false);
  }

  /**
   * Gives the container up without waiting for its engine (which stopped answering): the removal is
   * still asked for, and lands if the engine answers again; the engine's reaper is the second chance.
   */
  abandon(ending: Ending): void {
    this.#end(ending, true);
  }

  /** Ends its runs and asks for its removal; `gone` resolves now when the engine is not waited for. */
  #end(ending: Ending, goneNow: boolean): void {
    if (this.#state === "dead") return;
    this.#ending ??= ending;
    this.#state = "dead";
    this.connection.end(this.#ending);
    this.#stopStarting(this.#ending);
    this.#stream?.destroy();
    if (goneNow) this.#markGone();
    void this.#remove();
    this.#onChange(this);
  }

  async #boot(): Promise<void> {
    const s = this.#settings;
    const securityOpt = s.noNewPrivileges ? ["no-new-privileges"] : [];
    this.#container = await this.#docker.createContainer({
      Image: s.image,
      // The program stops itself a little below the container's limit, so it can say why.
      Cmd: [
        `--rss-limit-mb=${Math.floor(s.memoryMb * 0.9)}`,
        ...(s.warmLimits ? [`--warm-limits=${JSON.stringify(s.warmLimits)}`] : []),
      ],
      User: s.user,
      Env: [],
      Labels: s.labels,
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      OpenStdin: true,
      StdinOnce: true,
      Tty: false,
      NetworkDisabled: s.networkMode === "none",
      HostConfig: {
        NetworkMode: s.networkMode,
        ReadonlyRootfs: s.readOnlyRootfs,
        CapDrop: s.capDrop,
        SecurityOpt: securityOpt,
        PidsLimit: s.pidsLimit,
        Ulimits: Object.entries(s.ulimits).map(([Name, limit]) => ({ Name, Soft: limit, Hard: limit })),
        Memory: s.memoryMb * 2 ** 20,
        MemorySwap: s.memoryMb * 2 ** 20,
        NanoCpus: Math.round(s.cpus * 1e9),
        Tmpfs: { "/tmp": `rw,noexec,nosuid,nodev,size=${s.tmpfsMb}m` },
        // An init process: the program must not be PID 1, which ignores the signals it sends itself.
        Init: true,
      },
    });
    if (this.#state === "dead") return;
    const stream = (await this.#container.attach({
      stream: true,
      stdin: true,
      stdout: true,
      stderr: true,
      hijack: true,
    })) as unknown as Duplex;
    this.#stream = stream;
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    stdout.on("data", (chunk: Buffer) => this.connection.receive(chunk));
    stderr.on("data", (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
    });
    this.#docker.modem.demuxStream(stream, stdout, stderr);
    stream.on("error", () => {});
    stream.on("close", () => void this.#exited());
    stream.on("end", () => void this.#exited());
    await this.#container.start();
  }

  /** The container's output stream ended: find out why, end its runs, remove it. */
  async #exited(): Promise<void> {
    if (this.#state === "dead") return;
    let ending: Ending;
    try {
      const info = await this.#container!.inspect();
      if (info.State.OOMKilled) ending = containerMemoryEnding(this.#settings.memoryMb);
      else {
        ending = crashEnding({ code: info.State.ExitCode, signal: null, stderr: this.#stderr });
      }
    } catch (error) {
      ending = unresponsiveEnding(
        `its container could not be inspected after its output ended: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    this.kill(ending);
  }

  async #remove(): Promise<void> {
    const removal = (async () => {
      await this.#booting.catch(() => {});
      await this.#container?.remove({ force: true });
    })();
    try {
      // An engine that stopped answering must not hold close() for ever: the removal stays with the
      // engine, which carries it out if it answers again.
      await within(
        removal,
        this.#settings.hangTimeoutMs,
        () => new Error("the engine did not remove the container"),
      );
    } catch {
      // Already gone, or its engine is not answering.
    }
    this.#markGone();
  }

  #lastOutput(): string {
    const line = this.#stderr.trim().split("\n").at(-1)?.slice(0, 300);
    return line ? ` (its last output: ${line})` : "";
  }
}
