#!/usr/bin/env node
/**
 * The `cordon` executable. isolated-vm needs Node to run with `--no-node-snapshot`, but only a process
 * that hosts isolates itself: the default environment hosts them in sandbox-host child processes, which
 * get the flag when they are started. So this process runs the command as it is, unless the command asks
 * for isolates in this very process (`--env inprocess`) and Node was started without the flag: then the
 * same command is run again in a child Node that has it, with the same standard streams, and its exit
 * code (or signal) becomes this process's. (Node without its start-up snapshot also starts slower.)
 */

import { spawn } from "node:child_process";
import module from "node:module";
import { fileURLToPath } from "node:url";
import { cacheFolder, warnCacheNotUsed } from "./cache-dir.js";
import { hostsIsolatesHere } from "./isolates-here.js";

const FLAG = "--no-node-snapshot";

function hasFlag(): boolean {
  return process.execArgv.includes(FLAG) || (process.env.NODE_OPTIONS ?? "").split(/\s+/).includes(FLAG);
}

const argv = process.argv.slice(2);

/** Node 22.8+ keeps V8's compiled code of the modules it loads in a folder, for the next start. */
type WithCompileCache = { enableCompileCache?: (directory?: string) => unknown };

if (hasFlag() || !hostsIsolatesHere(argv)) {
  // Compiling cordon's modules is much of a command's start; older Nodes have no such cache. V8 trusts
  // what it finds there as compiled code, so only a folder that is this user's alone will do.
  const withCache = module as WithCompileCache;
  const cache = withCache.enableCompileCache && cacheFolder(process.env, ["node-compile-cache"]);
  if (cache !== undefined && "problem" in cache) warnCacheNotUsed(cache.problem);
  else if (cache !== undefined) withCache.enableCompileCache?.(cache.path);
  const { main } = await import("./main.js");
  const code = await main(argv);
  process.exitCode = code;
  // Anything still open (a pool's timers, a closed stdin) must not keep a finished command alive.
  setTimeout(() => process.exit(code), 2_000).unref();
} else {
  const child = spawn(
    process.execPath,
    [FLAG, ...process.execArgv, fileURLToPath(import.meta.url), ...argv],
    {
      stdio: "inherit",
    },
  );
  // The child is in the same process group: a Ctrl-C reaches it directly. Other signals are passed on.
  for (const signal of ["SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => child.kill(signal));
  }
  process.on("SIGINT", () => {});
  child.on("exit", (code, signal) => {
    if (signal) {
      // End the way the child did, so a shell sees the same signal.
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
  child.on("error", (error) => {
    process.stderr.write(`cordon: could not start Node with ${FLAG}: ${error.message}\n`);
    process.exit(1);
  });
}
