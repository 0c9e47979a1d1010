/** Where the `cordon` command keeps what it may compute again: one folder per user. */

import { homedir } from "node:os";
import { join } from "node:path";

/** `$XDG_CACHE_HOME/cordon`, else `~/.cache/cordon`; undefined when there is no home to put it in. */
export function cordonCacheDir(env: NodeJS.ProcessEnv): string | undefined {
  const home = homedir();
  const base = env.XDG_CACHE_HOME || (home ? join(home, ".cache") : "");
  return base ? join(base, "cordon") : undefined;
}
