/**
 * `cordon/docker`: the Docker environment, each sandbox a locked-down container running the sandbox-host
 * program, on one engine or several; and the sandbox image it runs, built without a registry.
 */

export {
  buildSandboxImage,
  DOCKER_DEFAULTS,
  type DockerConnection,
  type DockerEngineOptions,
  type DockerEngineStatus,
  type DockerEnvironment,
  type DockerEnvironmentOptions,
  type DockerUlimits,
  dockerEnvironment,
  type ImageBuildOptions,
  SANDBOX_IMAGE,
} from "../../environments/docker/index.js";
