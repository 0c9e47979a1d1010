/**
 * dockerode, loaded when a Docker environment or an image build first needs it (it is an optional peer
 * dependency: users who never use Docker do not install it), and the connection options cordon accepts.
 */

import { createRequire } from "node:module";
import type Dockerode from "dockerode";
import { UserError } from "../../src/errors.js";

/**
 * How to reach one Docker engine: dockerode's connection options. Empty: the local engine, or what
 * DOCKER_HOST, DOCKER_TLS_VERIFY and DOCKER_CERT_PATH say, as the docker command would.
 */
export interface DockerConnection {
  /** A unix socket, e.g. /var/run/docker.sock. */
  socketPath?: string;
  /** A host name or address, with `port` and `protocol` (https with ca/cert/key for a TLS engine). */
  host?: string;
  port?: number | string;
  protocol?: "http" | "https" | "ssh";
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
  /** For ssh: the user. */
  username?: string;
}

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
