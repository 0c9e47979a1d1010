/**
 * dockerode, loaded when a Docker environment or an image build first needs it (it is an optional peer
 * dependency: users who never use Docker do not install it). Nothing public refers to its types.
 */

import { createRequire } from "node:module";
import type Dockerode from "dockerode";
import { UserError } from "../../common/errors.js";
import type { DockerConnection } from "./connection.js";

/** The dockerode class. */
export type DockerodeClass = new (options?: Dockerode.DockerOptions) => Dockerode;

let loaded: DockerodeClass | undefined;

/** The installed dockerode; a UserError naming the package when it is missing. */
export function loadDockerode(): DockerodeClass {
  if (loaded) return loaded;
  try {
    loaded = createRequire(import.meta.url)("dockerode") as DockerodeClass;
  } catch (error) {
    throw new UserError(
      `The Docker environment needs the dockerode package: install it with \`npm install dockerode\`. (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  return loaded;
}

/** A dockerode client for one engine. */
export function connectDocker(connection: DockerConnection = {}): Dockerode {
  const Docker = loadDockerode();
  const options: Dockerode.DockerOptions = {};
  for (const [key, value] of Object.entries(connection)) {
    if (value !== undefined) (options as Record<string, unknown>)[key] = value;
  }
  return new Docker(options);
}

/** A readable name for an engine in messages: its socket or host. */
export function engineName(connection: DockerConnection): string {
  if (connection.socketPath) return connection.socketPath;
  if (connection.host)
    return `${connection.protocol ?? "http"}://${connection.host}${connection.port ? `:${connection.port}` : ""}`;
  return process.env.DOCKER_HOST ?? "the local Docker engine";
}
