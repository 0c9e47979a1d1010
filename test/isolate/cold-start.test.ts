/**
 * The run's wall clock counts the code's time, not the host's work before the code starts: on a fresh
 * sandbox-host process the first run's parse of the code (to wrap it) runs cold and can take tens of ms,
 * which a run with a short limit must not lose. The cold parse is made explicit here: the wrapping holds
 * the thread until the run's whole limit has passed.
 */

import { describe, expect, it, vi } from "vitest";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import { resultOf, runOnce, useEnvironment } from "./helpers.js";

const TIMEOUT_MS = 200;

/** While set, wrapping the code first holds the thread for longer than the run's whole wall-clock limit. */
const slowWrap = { on: false };

vi.mock("../../sandbox/isolate/wrap.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../sandbox/isolate/wrap.js")>();
  return {
    ...actual,
    wrapCode: (code: string) => {
      if (slowWrap.on) {
        const until = performance.now() + TIMEOUT_MS * 1.5;
        while (performance.now() < until) {
          // A cold parser: the host's work, before any of the code runs.
        }
      }
      return actual.wrapCode(code);
    },
  };
});

describe("isolate environment: what the run's wall clock counts", () => {
  useEnvironment(() => isolateEnvironment());

  it("the host's own preparation of the code (parsing it to wrap it) does not count against the run's wall clock", async () => {
    slowWrap.on = true;
    try {
      const { outcome } = await runOnce("return 1 + 1;", { limits: { timeoutMs: TIMEOUT_MS } });
      expect(outcome.status).toBe("ok");
      expect(resultOf(outcome)).toBe(2);
    } finally {
      slowWrap.on = false;
    }
  });
});
