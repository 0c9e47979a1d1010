/**
 * Helpers for the Docker suites: they talk to real Docker engines (started by `make docker-engine`). With
 * CORDON_REQUIRE_DOCKER=1 (set by `make test` and `.ci/run`) a missing engine fails the suites; without
 * it, a machine with no engine runs none of them.
 */

import { existsSync } from "node:fs";
import Docker from "dockerode";
import { OWNER_ENV_LABEL } from "../../environments/docker/engine.js";

/** Whether the Docker suites must run. */
const DOCKER_REQUIRED = process.env.CORDON_REQUIRE_DOCKER === "1";

/**
 * Whether the Docker environment is left out on purpose: scripts/node-matrix.sh sets CORDON_SKIP_DOCKER=1
 * on the Nodes it adds (and says why each run), because a container runs the image's Node, not theirs.
 */
const DOCKER_SKIPPED = process.env.CORDON_SKIP_DOCKER === "1";
if (DOCKER_REQUIRED && DOCKER_SKIPPED) {
  throw new Error(
    "CORDON_REQUIRE_DOCKER=1 and CORDON_SKIP_DOCKER=1 contradict each other: unset one of them.",
  );
}

/** The default engine's socket, and the second engine's (see scripts/docker-engine.sh). */
export const DEFAULT_SOCKET = "/var/run/docker.sock";
export const SECOND_SOCKET = process.env.CORDON_SECOND_DOCKER_SOCKET ?? "/run/cordon-docker-2/docker.sock";

/** True when the suites are required, or not skipped and the default engine's socket exists. */
export const DOCKER_SUITES = DOCKER_REQUIRED || (!DOCKER_SKIPPED && existsSync(DEFAULT_SOCKET));

/** A dockerode client of the default engine, or of another socket. */
export function engine(socketPath = DEFAULT_SOCKET): Docker {
  return new Docker({ socketPath });
}

/** The ids of the containers of one environment, found by its owner label on an engine. */
export async function containersOf(docker: Docker, ownerEnv: string): Promise<string[]> {
  const listed = await docker.listContainers({
    all: true,
    filters: { label: [`${OWNER_ENV_LABEL}=${ownerEnv}`] },
  });
  return listed.map((info) => info.Id);
}
