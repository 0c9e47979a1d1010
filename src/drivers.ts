/**
 * The environment drivers cordon ships, as the public surface offers them. Code mode itself knows only
 * the sandbox contract; `index.ts` and `defaults.ts` reach the drivers through here, and the `cordon`
 * command through `load-driver.ts`, which loads one driver at a time: the only two modules of
 * `src/` that import `environments/`.
 */

export {
  buildSandboxImage,
  DOCKER_DEFAULTS,
  type DockerConnection,
  type DockerEngineOptions,
  type DockerEngineStatus,
  type DockerEnvironment,
  type DockerEnvironmentOptions,
  dockerEnvironment,
  IMAGE_BUILD_COMMAND,
  type ImageBuildOptions,
  SANDBOX_IMAGE,
} from "../environments/docker/index.js";
export {
  type IsolatedVmModule,
  type IsolateEnvironment,
  type IsolateEnvironmentOptions,
  type IsolateSandboxHandle,
  isolateEnvironment,
  type SpinMode,
} from "../environments/in-process/index.js";
export {
  DEFAULT_MAX_SANDBOXES,
  DEFAULT_SERVE_PORT,
  MIN_TOKEN_CHARS,
} from "../environments/remote/defaults.js";
export {
  REMOTE_ISOLATION,
  type RemoteEnvironmentOptions,
  remoteEnvironment,
  SANDBOX_PATH,
  type SandboxServer,
  type SandboxServerOptions,
  serveSandboxes,
} from "../environments/remote/index.js";
export {
  SANDBOX_HOST_DEFAULTS,
  type SandboxHostEnvironmentOptions,
  sandboxHostEnvironment,
} from "../environments/sandbox-host/index.js";
