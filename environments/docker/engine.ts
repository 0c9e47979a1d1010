/**
 * One Docker engine as the Docker environment uses it: a warm pool of started sandbox containers, a cap
 * on how many it runs at once, a health check, and the reaping of orphaned containers. An engine that
 * stops answering is out of rotation (its runs end with a clear error) until it answers again.
 */

import { hostname } from "node:os";
import type Dockerode from "dockerode";
import { within } from "../../common/abort.js";
import { UserError } from "../../common/errors.js";
import { runEnding } from "../../sandbox/contract/index.js";
import { engineGoneEnding } from "../wire/endings.js";
import type { DockerConnection } from "./connection.js";
import { type ContainerSettings, SandboxContainer } from "./container.js";
import { connectDocker, engineName } from "./dockerode.js";
import { IMAGE_BUILD_COMMAND } from "./image.js";

/** The label every sandbox container carries, and the labels that say who started it. */
export const SANDBOX_LABEL = "cordon.sandbox";
export const OWNER_HOST_LABEL = "cordon.owner.host";
export const OWNER_PID_LABEL = "cordon.owner.pid";
/** Which Docker environment (one object in one process) started the container. */
export const OWNER_ENV_LABEL = "cordon.owner.env";

/** How an engine's pool is run. */
export interface EngineSettings {
  connection: DockerConnection;
  /** Containers this engine may run at once (warm ones included). */
  maxContainers: number;
  /** Started containers kept ready. */
  warm: number;
  /** How often the engine is pinged, in ms. */
  healthMs: number;
  container: ContainerSettings;
}

/** One engine and its containers. */
export class DockerEngine {
  readonly name: string;
  readonly docker: Dockerode;
  readonly #settings: EngineSettings;
  readonly #ready: SandboxContainer[] = [];
  readonly #starting = new Set<SandboxContainer>();
  readonly #inUse = new Set<SandboxContainer>();
  /** Containers ended and not yet removed from the engine: close() waits for them too. */
  readonly #removing = new Set<SandboxContainer>();
  readonly #waiters: (() => void)[] = [];
  #healthy = true;
  #checked: Promise<void> | undefined;
  #health: NodeJS.Timeout | undefined;
  #closed = false;
  #lastFailure: Error | undefined;

  constructor(settings: EngineSettings) {
    this.#settings = settings;
    this.name = engineName(settings.connection);
    this.docker = connectDocker(settings.connection);
  }

  /** Whether the engine answered its last health check. */
  get healthy(): boolean {
    return this.#healthy;
  }

  /** Containers this engine runs at once. */
  get maxContainers(): number {
    return this.#settings.maxContainers;
  }

  /** Containers that could still be handed out: the cap minus those in use or starting for a run. */
  get free(): number {
    return this.#settings.maxContainers - this.#inUse.size;
  }

  /** Started containers waiting for a run. */
  get ready(): number {
    return this.#ready.length;
  }

  /** Containers being started. */
  get starting(): number {
    return this.#starting.size;
  }

  /** Containers alive now (ready, starting, in use). */
  get containers(): number {
    return this.#ready.length + this.#starting.size + this.#inUse.size;
  }

  /**
   * Checks once that the engine answers and has the image, reaps containers an earlier process left
   * behind, starts the warm pool and the health checks. A missing image is a UserError naming the
   * command that builds it.
   */
  prepare(): Promise<void> {
    // A failed check is not kept: the engine may answer, or have the image, by the next run.
    this.#checked ??= this.#prepare().catch((error: unknown) => {
      this.#checked = undefined;
      throw error;
    });
    return this.#checked;
  }

  /** A started container for one sandbox, from the warm pool when one is ready; waits for room. */
  async take(): Promise<SandboxContainer> {
    for (;;) {
      if (this.#closed) throw new Error("This Docker environment was closed; create a new one.");
      if (!this.#healthy)
        throw this.#lastFailure ?? new Error(`The Docker engine ${this.name} is not answering.`);
      const ready = this.#ready.shift();
      if (ready) {
        if (ready.state !== "ready") continue;
        this.#inUse.add(ready);
        this.#refill();
        return ready;
      }
      if (this.#inUse.size + this.#starting.size < this.#settings.maxContainers) {
        const container = this.#start();
        this.#starting.delete(container);
        this.#inUse.add(container);
        try {
          await container.started;
        } catch (error) {
          this.#inUse.delete(container);
          throw error;
        }
        this.#refill();
        return container;
      }
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** A container's sandbox is done: the container is removed, and its place goes to the pool or a waiter. */
  release(container: SandboxContainer): void {
    container.kill({ ...runEnding("Disposed", "The sandbox was closed.") });
  }

  /** Removes every container and stops the health checks. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#health);
    const all = [...this.#ready, ...this.#starting, ...this.#inUse];
    for (const container of all) {
      container.kill({
        ...runEnding("Disposed", "The sandbox was closed while the code was running."),
      });
    }
    for (const wake of this.#waiters.splice(0)) wake();
    await Promise.all([...all, ...this.#removing].map((container) => container.gone));
  }

  async #prepare(): Promise<void> {
    try {
      await this.#pingWithin(this.#settings.healthMs);
    } catch (error) {
      this.#lastFailure = new Error(
        `The Docker engine ${this.name} does not answer: ${error instanceof Error ? error.message : String(error)}. Start it (for example \`make docker-engine\` in cordon's repository) or check its connection options.`,
      );
      this.#healthy = false;
      this.#watchHealth();
      throw this.#lastFailure;
    }
    try {
      await this.docker.getImage(this.#settings.container.image).inspect();
    } catch {
      throw new UserError(
        `The Docker engine ${this.name} has no image ${this.#settings.container.image}: build it with \`${IMAGE_BUILD_COMMAND}\` (it needs no registry).`,
      );
    }
    await this.#reap();
    this.#watchHealth();
    this.#refill();
  }

  #start(): SandboxContainer {
    const container = new SandboxContainer(this.docker, this.#settings.container, (changed) =>
      this.#changed(changed),
    );
    this.#starting.add(container);
    return container;
  }

  /** Keeps `warm` containers ready (within the cap). */
  #refill(): void {
    if (this.#closed || !this.#healthy) return;
    const room = this.#settings.maxContainers - this.containers;
    const wanted = Math.min(room, this.#settings.warm - this.#ready.length - this.#starting.size);
    for (let i = 0; i < wanted; i++) {
      const container = this.#start();
      container.started.then(
        () => {
          if (!this.#starting.delete(container)) return;
          if (this.#closed || !this.#healthy) container.kill({ ...runEnding("Disposed", "Not needed.") });
          else this.#ready.push(container);
          // A run may be waiting for room that this container took while it started.
          this.#waiters.shift()?.();
        },
        () => {
          this.#starting.delete(container);
          this.#waiters.shift()?.();
        },
      );
    }
  }

  #changed(container: SandboxContainer): void {
    if (container.state !== "dead") return;
    this.#removing.add(container);
    void container.gone.then(() => this.#removing.delete(container));
    this.#starting.delete(container);
    this.#inUse.delete(container);
    const index = this.#ready.indexOf(container);
    if (index !== -1) this.#ready.splice(index, 1);
    this.#waiters.shift()?.();
    this.#refill();
  }

  /** Pings the engine; one that stops answering is out of rotation, and its containers' runs end. */
  #watchHealth(): void {
    if (this.#health) return;
    this.#health = setInterval(() => void this.#check(), this.#settings.healthMs);
    this.#health.unref();
  }

  /** Pings the engine; rejects when it does not answer within `ms`. */
  async #pingWithin(ms: number): Promise<void> {
    await within(this.docker.ping(), ms, () => new Error(`no answer to a ping within ${ms} ms`));
  }

  async #check(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.#pingWithin(this.#settings.healthMs);
      if (!this.#healthy) {
        this.#healthy = true;
        await this.#reap();
        this.#refill();
      }
    } catch (error) {
      if (!this.#healthy) return;
      this.#healthy = false;
      const detail = error instanceof Error ? error.message : String(error);
      this.#lastFailure = new Error(`The Docker engine ${this.name} stopped answering (${detail}).`);
      const ending = engineGoneEnding(this.name, detail);
      for (const container of [...this.#ready, ...this.#starting, ...this.#inUse]) container.abandon(ending);
      for (const wake of this.#waiters.splice(0)) wake();
    }
  }

  /**
   * Removes sandbox containers this engine still has from an earlier process on this machine that is
   * gone (a crashed agent), and any that have exited.
   */
  async #reap(): Promise<void> {
    let listed: Dockerode.ContainerInfo[];
    try {
      listed = await this.docker.listContainers({ all: true, filters: { label: [SANDBOX_LABEL] } });
    } catch {
      return;
    }
    const mine = new Set(
      [...this.#ready, ...this.#starting, ...this.#inUse].map((container) => container.id),
    );
    await Promise.all(
      listed.map(async (info) => {
        if (mine.has(info.Id)) return;
        const labels = info.Labels;
        const ownerPid = Number(labels[OWNER_PID_LABEL]);
        const here = labels[OWNER_HOST_LABEL] === hostname();
        const exited = info.State === "exited" || info.State === "dead";
        // Ours from before the engine stopped answering, or left by an agent process that is gone.
        const abandoned = labels[OWNER_ENV_LABEL] === this.#settings.container.labels[OWNER_ENV_LABEL];
        const orphaned = here && !processAlive(ownerPid);
        if (!exited && !abandoned && !orphaned) return;
        try {
          await this.docker.getContainer(info.Id).remove({ force: true });
        } catch {
          // Removed meanwhile.
        }
      }),
    );
  }
}

function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
