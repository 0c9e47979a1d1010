/**
 * The sandbox environments `--env` can name. Adding one (Docker, a remote host) is one entry here: a
 * description for the help, and how to create it.
 */

import { UsageError } from "../../common/errors.js";
import type { Environment } from "../../sandbox/contract/index.js";
import { loadDriver } from "../load-driver.js";
import { IN_PROCESS_ENVIRONMENT } from "./isolates-here.js";

/** What an environment's factory is told about how it will be used. */
export interface EnvironmentUse {
  /** One run and then exit (`cordon run`): no warm spare processes are worth starting. */
  oneShot: boolean;
  /** The process environment, for settings such as a remote host's URL and token. */
  env: NodeJS.ProcessEnv;
  /**
   * Sandboxes it must hold at once, each apart (`cordon serve`'s --max-sandboxes): it gets a process or
   * container for each. Default: the environment's own.
   */
  capacity?: number;
}

/** One `--env` choice. */
export interface EnvironmentChoice {
  /** One line for `--help`. */
  description: string;
  /** Creates it, loading its driver first (only the chosen driver is ever loaded). */
  create(use: EnvironmentUse): Promise<Environment>;
}

/** The environments this build of cordon has, by `--env` name; the first is the default. */
export const ENVIRONMENTS: Readonly<Record<string, EnvironmentChoice>> = {
  default: {
    description:
      "isolated-vm isolates in supervised sandbox processes, sandboxHostEnvironment(); QuickJS where isolated-vm is not installed",
    create: async ({ oneShot, capacity }) => {
      const host = await loadDriver.sandboxHost();
      const problem = host.isolatedVmProblem();
      if (problem === undefined) {
        return host.sandboxHostEnvironment({
          ...(oneShot ? { processes: 1 } : {}),
          ...(capacity === undefined ? {} : { maxProcesses: capacity }),
        });
      }
      process.stderr.write(
        `cordon: ${problem}; code runs in QuickJS (--env quickjs: WebAssembly, in this process). For isolated-vm isolates in sandbox processes, ${host.HOW_TO_GET_ISOLATED_VM}.\n`,
      );
      return (await loadDriver.quickjs()).quickjsEnvironment();
    },
  },
  [IN_PROCESS_ENVIRONMENT]: {
    description:
      "isolated-vm isolates in cordon's own process: faster, for trusted code (isolateEnvironment)",
    create: async () => (await loadDriver.inProcess()).isolateEnvironment(),
  },
  quickjs: {
    description:
      "QuickJS in WebAssembly in cordon's own process: no native addon, runs on any Node (quickjsEnvironment)",
    create: async () => (await loadDriver.quickjs()).quickjsEnvironment(),
  },
  docker: {
    description:
      "a locked-down container per run on the Docker engine of DOCKER_HOST (dockerEnvironment; needs dockerode and `cordon image build` first)",
    create: async ({ oneShot, capacity }) =>
      (await loadDriver.docker()).dockerEnvironment({
        ...(oneShot ? { warm: 0 } : {}),
        ...(capacity === undefined ? {} : { maxContainers: capacity }),
      }),
  },
  remote: {
    description:
      "sandboxes on the `cordon serve` server at CORDON_REMOTE_URL, authenticated with CORDON_REMOTE_TOKEN (remoteEnvironment)",
    create: async ({ env }) => {
      const url = env.CORDON_REMOTE_URL;
      const token = env.CORDON_REMOTE_TOKEN;
      if (!url || !token) {
        throw new UsageError(
          "--env remote needs CORDON_REMOTE_URL (for example ws://host:7700/sandbox) and CORDON_REMOTE_TOKEN (the token `cordon serve` was started with) in the environment.",
        );
      }
      return (await loadDriver.remote()).remoteEnvironment({ url, token });
    },
  },
};

/** The `--env` names, default first. */
export function environmentNames(): string[] {
  return Object.keys(ENVIRONMENTS);
}

/**
 * Creates the environment `name` names, loading its driver; rejects with a {@link UsageError} that
 * lists the ones this build has.
 */
export async function createEnvironment(name: string | undefined, use: EnvironmentUse): Promise<Environment> {
  const key = name ?? "default";
  const choice = Object.hasOwn(ENVIRONMENTS, key) ? ENVIRONMENTS[key] : undefined;
  if (!choice) {
    throw new UsageError(
      `--env ${key}: this build of cordon has no such environment. Available: ${environmentNames().join(", ")}.`,
    );
  }
  return choice.create(use);
}
