/**
 * The environment conformance cases (test/conformance/cases.ts, the same ones vitest runs on Node) on
 * the runtime the matrix runs: one QuickJS environment shared by the cases, as the suite shares one per
 * environment, each case's outcome as a check line, and the cases that do not apply here with why.
 */

import type { Environment } from "cordon";
import { type Capability, casesFor, type NotApplicable } from "../conformance/cases.js";
import type { CheckResult } from "./checks.js";

/** How long one case may take before it counts as failed (vitest's testTimeout for the suite on Node). */
const CASE_TIMEOUT_MS = 20_000;

/** The conformance cases' outcomes on this runtime, and the cases that do not apply here. */
export async function runConformance(
  environment: Environment,
  lacks: Partial<Record<Capability, string>>,
): Promise<{ results: CheckResult[]; notApplicable: NotApplicable[] }> {
  const subject = { environment, lacks };
  const { cases, notApplicable } = casesFor(subject);
  const results: CheckResult[] = [];
  try {
    for (const each of cases) {
      const started = Date.now();
      let detail: string | undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        await Promise.race([
          each.run(subject),
          new Promise((_, reject) => {
            timer = setTimeout(
              () => reject(new Error(`did not finish within ${CASE_TIMEOUT_MS} ms`)),
              CASE_TIMEOUT_MS,
            );
          }),
        ]);
      } catch (error) {
        // An assertion says what was wrong; anything else thrown needs its stack.
        detail =
          error instanceof Error
            ? error.name === "AssertionError"
              ? error.message
              : (error.stack ?? error.message)
            : String(error);
      } finally {
        clearTimeout(timer);
      }
      results.push({
        name: `conformance: ${each.name}`,
        ok: detail === undefined,
        ...(detail ? { detail } : {}),
        ms: Date.now() - started,
      });
    }
  } finally {
    await environment.close();
  }
  return {
    results,
    notApplicable: notApplicable.map((each) => ({ ...each, name: `conformance: ${each.name}` })),
  };
}
