/** The sandbox server's defaults and bounds, in a module of their own so `cordon --help` can quote them. */

/** The shortest token a sandbox server accepts, in characters. */
export const MIN_TOKEN_CHARS = 16;

/** Sandboxes a server keeps open at once over all its clients, unless told otherwise. */
export const DEFAULT_MAX_SANDBOXES = 16;

/** The port `cordon serve` listens on unless told otherwise. */
export const DEFAULT_SERVE_PORT = 7700;
