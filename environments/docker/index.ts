/**
 * The Docker environment: each sandbox is a container running the sandbox-host program, with no network,
 * a read-only root file system, every capability dropped, no new privileges, a non-root user, pids,
 * memory and CPU limits and a small tmpfs. A warm pool per engine hides start-up; a container serves one
 * run (or one session) and is then removed. Several engines (local or remote) share the load: each run
 * goes to the engine with the most free capacity, and an engine that stops answering is skipped until
 * it answers again.
 */

import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { UserError } from "../../common/errors.js";
import type { Environment, Sandbox, SandboxLimits } from "../../sandbox/contract/index.js";
import type { DockerConnection } from "./connection.js";
import type { ContainerSettings } from "./container.js";
import { loadDockerode } from "./dockerode.js";
import { DockerEngine, OWNER_ENV_LABEL, OWNER_HOST_LABEL, OWNER_PID_LABEL, SANDBOX_LABEL } from "./engine.js";
import { SANDBOX_IMAGE, SANDBOX_USER } from "./image.js";
import type { DockerUlimits } from "./ulimits.js";

export type { DockerConnection } from "./connection.js";
export { buildSandboxImage, IMAGE_BUILD_COMMAND, type ImageBuildOptions, SANDBOX_IMAGE } from "./image.js";
export type { DockerUlimits } from "./ulimits.js";

/** One engine of a Docker environment: how to reach it, and optionally its own capacity. */
export interface DockerEngineOptions extends DockerConnection {
  /** Containers this engine may run at once. Default: the environment's `maxContainers`. */
  maxContainers?: number;
  /** Started containers kept ready on this engine. Default: the environment's `warm`. */
  warm?: number;
}

/** Options of {@link dockerEnvironment}. Every container setting is explicit; none is weakened silently. */
export interface DockerEnvironmentOptions {
  /** The engines to run containers on. Default: one, the local engine (or DOCKER_HOST). */
  engines?: DockerEngineOptions[];
  /** The sandbox image. Default {@link SANDBOX_IMAGE} (build it with `cordon image build`). */
  image?: string;
  /** Started containers kept ready per engine. Default 2. */
  warm?: number;
  /** Containers one engine runs at once; further runs wait for one to finish. Default 8. */
  maxContainers?: number;
  /** Memory of one container, in MB (more than the runs' memoryMb: the program itself needs ~60 MB). Default 512. */
  memoryMb?: number;
  /** CPUs of one container. Default 1. */
  cpus?: number;
  /** Processes and threads of one container. Default 64. */
  pidsLimit?: number;
  /** Size of the tmpfs at /tmp, in MB (the root file system is read-only). Default 16. */
  tmpfsMb?: number;
  /**
   * Resource limits of the program's process (setrlimit): open files, processes of the sandbox user,
   * core dump size and written file size (bytes). Default {@link DOCKER_DEFAULTS}`.ulimits`: 256 files,
   * 1,024 processes (the pids limit is the per-container cap; this one holds across containers of the
   * same user), no core dumps, files no larger than the tmpfs.
   */
  ulimits?: Partial<DockerUlimits>;
  /** uid:gid the program runs as. Default 10001:10001 (not root). */
  user?: string;
  /** Docker network mode. Default "none": no network at all. */
  networkMode?: string;
  /** Default true. */
  readOnlyRootfs?: boolean;
  /** Capabilities to drop. Default ["ALL"]. */
  capDrop?: string[];
  /** Default true. */
  noNewPrivileges?: boolean;
  /** How often each container is pinged, and how long an answer may take, in ms. Defaults 1,000 and 5,000. */
  heartbeatMs?: number;
  hangTimeoutMs?: number;
  /** How long a container may take to start, in ms. Default 30,000. */
  startTimeoutMs?: number;
  /** How often each engine is checked, in ms. Default 2,000. */
  engineHealthMs?: number;
}

/** The defaults of {@link DockerEnvironmentOptions}. */
export const DOCKER_DEFAULTS = Object.freeze({
  warm: 2,
  maxContainers: 8,
  memoryMb: 512,
  cpus: 1,
  pidsLimit: 64,
  tmpfsMb: 16,
  ulimits: Object.freeze({ nofile: 256, nproc: 1_024, core: 0, fsize: 16 * 2 ** 20 }) as DockerUlimits,
  user: SANDBOX_USER,
  networkMode: "none",
  readOnlyRootfs: true,
  capDrop: ["ALL"] as readonly string[],
  noNewPrivileges: true,
  heartbeatMs: 1_000,
  hangTimeoutMs: 5_000,
  startTimeoutMs: 30_000,
  engineHealthMs: 2_000,
});

/** The sentence the model's instructions use to describe this environment's isolation. */
export const DOCKER_ISOLATION =
  "Your code runs in a V8 isolate inside a container of its own, not in the agent's process: it has no " +
  "network, a read-only file system, no privileges, memory and CPU limits, no Node.js APIs (no require, " +
  "process, file system, network or timers), and can reach the outside world only through `tools`. If " +
  "the code crashes or exhausts its container, only the sandbox is affected and the run ends with an " +
  "error that says so.";

/** How one engine of a Docker environment is doing. */
export interface DockerEngineStatus {
  engine: string;
  healthy: boolean;
  /** Containers alive (ready, starting, in use). */
  containers: number;
  /** Started containers waiting for a run (the warm pool). */
  ready: number;
  /** Containers being started. */
  starting: number;
  /** Containers that could still be handed out. */
  free: number;
}

/** The Docker environment. */
export interface DockerEnvironment extends Environment {
  /** The value of the `cordon.owner.env` label on this environment's containers. */
  readonly id: string;
  /** Each engine: answering or not, and how full. */
  status(): DockerEngineStatus[];
}

/** Creates the Docker environment. Throws a UserError at once when dockerode is not installed. */
export function dockerEnvironment(options: DockerEnvironmentOptions = {}): DockerEnvironment {
  loadDockerode();
  const o = { ...DOCKER_DEFAULTS, ...definedOnly(options) };
  for (const key of [
    "warm",
    "maxContainers",
    "memoryMb",
    "pidsLimit",
    "tmpfsMb",
    "heartbeatMs",
    "hangTimeoutMs",
    "startTimeoutMs",
    "engineHealthMs",
  ] as const) {
    const value = o[key];
    if (!Number.isInteger(value) || value < (key === "warm" ? 0 : 1)) {
      throw new UserError(
        `dockerEnvironment: ${key} must be a whole number ${key === "warm" ? ">= 0" : "> 0"}, got ${String(value)}.`,
      );
    }
  }
  if (!(o.cpus > 0)) throw new UserError(`dockerEnvironment: cpus must be > 0, got ${String(o.cpus)}.`);
  // Files may by default be as large as the tmpfs they are written to, whatever its size.
  const ulimits: DockerUlimits = {
    ...DOCKER_DEFAULTS.ulimits,
    fsize: o.tmpfsMb * 2 ** 20,
    ...definedOnly(options.ulimits ?? {}),
  };
  for (const [name, value] of Object.entries(ulimits)) {
    if (!Number.isInteger(value) || value < 0) {
      throw new UserError(
        `dockerEnvironment: ulimits.${name} must be a whole number >= 0, got ${String(value)}.`,
      );
    }
  }
  const id = randomUUID();
  const container: ContainerSettings = {
    image: o.image ?? SANDBOX_IMAGE,
    user: o.user,
    memoryMb: o.memoryMb,
    cpus: o.cpus,
    pidsLimit: o.pidsLimit,
    tmpfsMb: o.tmpfsMb,
    ulimits,
    networkMode: o.networkMode,
    readOnlyRootfs: o.readOnlyRootfs,
    capDrop: [...o.capDrop],
    noNewPrivileges: o.noNewPrivileges,
    labels: {
      [SANDBOX_LABEL]: "1",
      [OWNER_HOST_LABEL]: hostname(),
      [OWNER_PID_LABEL]: String(process.pid),
      [OWNER_ENV_LABEL]: id,
    },
    heartbeatMs: o.heartbeatMs,
    hangTimeoutMs: o.hangTimeoutMs,
    startTimeoutMs: o.startTimeoutMs,
  };
  const engines = (options.engines ?? [{}]).map(
    (engine) =>
      new DockerEngine({
        connection: engine,
        maxContainers: engine.maxContainers ?? o.maxContainers,
        warm: engine.warm ?? o.warm,
        healthMs: o.engineHealthMs,
        container,
      }),
  );
  if (engines.length === 0)
    throw new UserError(
      "dockerEnvironment: engines is empty; give at least one engine, or leave it out for the local one.",
    );
  let closed = false;

  /** The healthy engine with the most room; waits for the first check of every engine. */
  const place = async (): Promise<DockerEngine> => {
    const checks = await Promise.allSettled(engines.map((engine) => engine.prepare()));
    const missingImage = checks.find(
      (check) => check.status === "rejected" && check.reason instanceof UserError,
    );
    if (missingImage) throw (missingImage as PromiseRejectedResult).reason;
    const healthy = engines.filter((engine, i) => checks[i]!.status === "fulfilled" && engine.healthy);
    if (healthy.length === 0) {
      const first = checks.find((check) => check.status === "rejected") as PromiseRejectedResult | undefined;
      throw first?.reason ?? new Error("No Docker engine is answering.");
    }
    return healthy.reduce((best, engine) => (engine.free > best.free ? engine : best));
  };

  return {
    name: "docker",
    isolation: DOCKER_ISOLATION,
    // A container per sandbox, on any engine.
    capacity: engines.reduce((sum, engine) => sum + engine.maxContainers, 0),
    id,
    status: () =>
      engines.map((engine) => ({
        engine: engine.name,
        healthy: engine.healthy,
        containers: engine.containers,
        ready: engine.ready,
        starting: engine.starting,
        free: engine.free,
      })),
    async open(limits: SandboxLimits): Promise<Sandbox> {
      if (closed) throw new Error("This Docker environment was closed; create a new one.");
      // Containers started from now on prepare an isolate for these limits before they are ready.
      container.warmLimits = { ...limits };
      const engine = await place();
      const box = await engine.take();
      const sandbox = box.open(limits);
      return {
        execute: (request, bridge, signal) => sandbox.execute(request, bridge, signal),
        get alive() {
          return sandbox.alive;
        },
        async dispose() {
          await sandbox.dispose();
          engine.release(box);
        },
      };
    },
    async close() {
      closed = true;
      await Promise.all(engines.map((engine) => engine.close()));
    },
  };
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
