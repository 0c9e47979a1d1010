/** The resource limits of a sandbox container (in a module of its own: the public types need no dockerode). */

/** The resource limits a sandbox container's process runs under (hard and soft alike). */
export interface DockerUlimits {
  /** Open files. */
  nofile: number;
  /** Processes and threads of the sandbox's user. */
  nproc: number;
  /** Core dump size, in bytes: 0, none. */
  core: number;
  /** The largest file the process may write, in bytes. */
  fsize: number;
}
