/**
 * Whether a `cordon` command line makes this very process host isolated-vm isolates, which needs Node's
 * `--no-node-snapshot` (bin.ts starts Node again with it then). Only the in-process environment does;
 * every other one hosts isolates in processes of its own, started with the flag.
 */

/** The `--env` name of the environment that hosts isolates in cordon's own process. */
export const IN_PROCESS_ENVIRONMENT = "inprocess";

/** True when `argv` (the words after `cordon`) chooses `--env inprocess` (or `--env=inprocess`). */
export function hostsIsolatesHere(argv: readonly string[]): boolean {
  return argv.some(
    (word, i) =>
      word === `--env=${IN_PROCESS_ENVIRONMENT}` ||
      (word === "--env" && argv[i + 1] === IN_PROCESS_ENVIRONMENT),
  );
}
