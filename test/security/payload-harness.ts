/**
 * Runs a harness of payloads in a child Node process, so that a payload that kills its host kills the
 * child, where the test sees it, and not the test's own process. The harness is a TypeScript file that
 * takes the payloads as JSON in its first argument and prints one JSON line per outcome, each with the
 * payload's `name`; a missing line means the child died on that payload.
 */

import { execFile } from "node:child_process";

/** What a harness printed, by payload, and how the child ended. */
export interface HarnessReport<Outcome extends { name: string }> {
  /** The outcomes in the order the harness printed them. */
  readonly outcomes: Map<string, Outcome>;
  /** How the child failed (its error and the end of its stderr), or undefined when it exited cleanly. */
  readonly error: string | undefined;
  /** The outcome of payload `name`; throws, saying how the child died, when it printed none. */
  outcomeOf(name: string): Outcome;
}

/** Options of {@link runPayloadHarness}. */
export interface HarnessOptions {
  /** Node flags before `--import tsx` (e.g. `--expose-gc`). */
  nodeFlags?: string[];
  /** How long the child may run, in ms, before it is killed. */
  timeoutMs: number;
  /** How much of its stdout is kept, in bytes (default 4 MiB). */
  maxBuffer?: number;
  /** Arguments for the harness after the payloads' JSON. */
  args?: string[];
}

/** Runs `harness` with `payloads` in a child Node process and reads what it printed. Never rejects. */
export async function runPayloadHarness<Outcome extends { name: string }>(
  harness: string,
  payloads: unknown[],
  options: HarnessOptions,
): Promise<HarnessReport<Outcome>> {
  let error: string | undefined;
  const stdout = await new Promise<string>((resolve) => {
    execFile(
      process.execPath,
      [
        ...(options.nodeFlags ?? []),
        "--import",
        "tsx",
        harness,
        JSON.stringify(payloads),
        ...(options.args ?? []),
      ],
      { maxBuffer: options.maxBuffer ?? 4 * 1024 * 1024, timeout: options.timeoutMs },
      (failure, out, err) => {
        if (failure) error = `${failure.message}\n${err.slice(-2_000)}`;
        resolve(out);
      },
    );
  });
  const outcomes = new Map<string, Outcome>();
  for (const line of stdout.split("\n").filter(Boolean)) {
    const outcome = JSON.parse(line) as Outcome;
    outcomes.set(outcome.name, outcome);
  }
  return {
    outcomes,
    error,
    outcomeOf(name) {
      const outcome = outcomes.get(name);
      if (!outcome) throw new Error(`the harness did not report "${name}": it died (${error ?? "no error"})`);
      return outcome;
    },
  };
}
