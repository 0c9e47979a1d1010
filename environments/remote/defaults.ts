/** The sandbox server's defaults and bounds, in a module of their own so `cordon --help` can quote them. */

/** The shortest token a sandbox server accepts, in characters. */
export const MIN_TOKEN_CHARS = 16;

/** Sandboxes a server keeps open at once over all its clients, unless told otherwise. */
export const DEFAULT_MAX_SANDBOXES = 16;

/**
 * The most a client may ask of a sandbox unless the server says otherwise: every `open` and `exec` is held
 * under these, and clients learn them in the server's hello. Code mode's defaults are well below them.
 */
export const DEFAULT_SERVE_CEILINGS = Object.freeze({
  timeoutMs: 300_000,
  cpuTimeMs: 60_000,
  memoryMb: 512,
  maxLogChars: 1_000_000,
  maxResultChars: 10_000_000,
  maxToolCalls: 10_000,
  maxArgsChars: 1_000_000,
});

/** The share of the server's sandboxes one client may hold at once, unless told otherwise: half. */
export function defaultSandboxesPerClient(maxSandboxes: number): number {
  return Math.max(1, Math.ceil(maxSandboxes / 2));
}

/** The port `cordon serve` listens on unless told otherwise. */
export const DEFAULT_SERVE_PORT = 7700;
