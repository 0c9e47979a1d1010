/**
 * The environment drivers, each loaded when it is asked for. The `cordon` command starts the one its
 * `--env` names without loading the others: loading them all would put the in-process isolate, Docker
 * and the sandbox server before the first sandbox process can start. Besides the driver entries
 * (src/defaults.ts, src/entries/), the only module of src/ that imports environments/.
 */

/** Each driver's module, loaded on the first call (Node keeps it for later ones). */
export const loadDriver = {
  sandboxHost: () => import("../environments/sandbox-host/index.js"),
  inProcess: () => import("../environments/in-process/index.js"),
  quickjs: () => import("../environments/quickjs/index.js"),
  docker: () => import("../environments/docker/index.js"),
  remote: () => import("../environments/remote/index.js"),
} as const;

export {
  DEFAULT_MAX_SANDBOXES,
  DEFAULT_SERVE_PORT,
  MIN_TOKEN_CHARS,
} from "../environments/remote/defaults.js";
