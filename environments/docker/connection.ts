/** How cordon reaches a Docker engine (dockerode's connection options, typed without dockerode). */

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
