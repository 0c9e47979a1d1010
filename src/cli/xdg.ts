/**
 * The XDG base directories the `cordon` command keeps its files in: the cache (compiled tools modules),
 * the config (the checkpoint key) and the state (`cordon mcp`'s tasks). The XDG Base Directory spec says a path in XDG_CACHE_HOME or
 * XDG_CONFIG_HOME that is not absolute is invalid and must be ignored: a relative one would put the
 * files wherever the command happens to run.
 */

import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/** The XDG base directories cordon uses, and their folders under the home directory by default. */
const XDG_DEFAULTS = {
  XDG_CACHE_HOME: ".cache",
  XDG_CONFIG_HOME: ".config",
  XDG_STATE_HOME: ".local/state",
} as const;

/** An XDG base directory variable cordon reads. */
export type XdgVariable = keyof typeof XDG_DEFAULTS;

/**
 * The base directory `variable` names in `env` when it is an absolute path, else its default under the
 * home directory (`~/.cache`, `~/.config`, `~/.local/state`); undefined when it is not set to an absolute path and there
 * is no home directory either.
 */
export function xdgBaseDir(env: NodeJS.ProcessEnv, variable: XdgVariable): string | undefined {
  const value = env[variable];
  if (value && isAbsolute(value)) return value;
  const home = homedir();
  return home ? join(home, XDG_DEFAULTS[variable]) : undefined;
}
